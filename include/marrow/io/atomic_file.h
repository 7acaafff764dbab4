/// @file
/// Writing files so that no reader ever sees half of one: every file marrow writes (convert,
/// autoskin, render's PNG, GIF and MP4, the archive and glTF writers) goes through here. The
/// bytes go to a temporary file beside the destination (".<name>.tmp-<pid>-<n>", same folder, so
/// the same file system), which is flushed to disk and renamed over the destination only once
/// everything is written. A failure at any point (disk full, read-only folder, a signal) leaves
/// the destination as it was and no temporary behind. docs/reliability.md says what the tests
/// show.
///
/// A destination that already exists as a character device or a FIFO (/dev/stdout, /dev/null,
/// a named pipe) cannot be replaced by a rename and has no half state to protect: the bytes go
/// straight to it, and a failed write (/dev/full) is still an error.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "marrow/base/error.h"

namespace marrow {

/// One file being written. Destroyed without commit(), it removes its temporary.
class AtomicFile {
 public:
  /// Creates the temporary. Errors name `path`: a folder that does not exist or is not a folder,
  /// a destination that is a folder, or why the temporary cannot be created there (read-only
  /// file system, permission denied).
  [[nodiscard]] static Result<AtomicFile> create(const std::string& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();

  const std::string& path() const { return path_; }
  /// Where the bytes go until commit() (the destination itself for a device or FIFO).
  const std::string& temp_path() const { return temp_path_; }
  /// Appends bytes. Errors carry the system's reason ("No space left on device").
  [[nodiscard]] Status write(std::span<const std::uint8_t> bytes);
  /// Flushes the temporary to disk, closes it and renames it over the destination.
  [[nodiscard]] Status commit();
  /// Closes the descriptor but keeps the temporary, for a writer that fills it by name (ffmpeg);
  /// commit() then flushes it by name.
  void close_descriptor();

 private:
  AtomicFile() = default;
  std::string path_, temp_path_;
  int fd_ = -1;
  int slot_ = -1;  ///< in the table of temporaries the signal handler removes
  bool direct_ = false;
  bool committed_ = false;
};

struct FileContents {
  std::string path;
  std::span<const std::uint8_t> bytes;
};

/// Writes every file to its temporary, then renames them in order (the last one is the file
/// that makes the set visible, e.g. the .gltf after its .bin). On failure no temporary is left
/// and no destination is touched, except that a failed rename of a later file leaves earlier
/// ones replaced (which callers order to be harmless).
[[nodiscard]] Status write_files_atomically(std::span<const FileContents> files);
[[nodiscard]] Status write_file_atomically(const std::string& path,
                                           std::span<const std::uint8_t> bytes);

/// For command-line programs: installs handlers for SIGINT, SIGTERM and SIGHUP that remove the
/// temporaries of AtomicFiles still open, then end the process as the signal would have. A
/// library does not install signal handlers by itself; the `marrow` command calls this.
void remove_temporaries_on_signal();

}  // namespace marrow
