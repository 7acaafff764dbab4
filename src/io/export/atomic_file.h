// Writing a file so that readers never see half of it: the bytes go to a temporary file in the
// same folder, which is renamed over the destination only once everything is written.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"

namespace marrow::io_detail {

struct FileContents {
  std::string path;
  std::span<const std::uint8_t> bytes;
};

// Writes every file to a temporary sibling, then renames them in order (the last one is the file
// that makes the set visible, e.g. the .gltf after its .bin). On failure no temporary is left
// and no destination is touched (a failed rename of a later file leaves earlier ones replaced,
// which the caller orders to be harmless).
Status write_files_atomically(std::span<const FileContents> files);

inline Status write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes) {
  const FileContents one{path, bytes};
  return write_files_atomically(std::span<const FileContents>(&one, 1));
}

}  // namespace marrow::io_detail
