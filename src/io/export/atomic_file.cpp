#include "marrow/io/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

namespace marrow {
namespace {

namespace fs = std::filesystem;

std::string reason(int error) {
  return std::strerror(error);
}

// Temporaries open right now, for the signal handler, which may only call async-signal-safe
// functions: fixed storage, a lock-free state per slot (0 free, 1 being filled, 2 ready), the
// path written before the slot reads as ready. Any thread may claim and free slots.
constexpr int kTrackedFiles = 16;
constexpr std::size_t kTrackedPath = 4096;
char g_tracked_paths[kTrackedFiles][kTrackedPath];
std::atomic<int> g_tracked_state[kTrackedFiles];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads these");

int track(const std::string& temp) {
  if (temp.size() >= kTrackedPath) return -1;
  for (int i = 0; i < kTrackedFiles; ++i) {
    int expected = 0;
    if (!g_tracked_state[i].compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_tracked_paths[i], temp.c_str(), temp.size() + 1);
    g_tracked_state[i].store(2);
    return i;
  }
  return -1;  // more open at once than the table holds: those are not removed on a signal
}

void untrack(int slot) {
  if (slot >= 0) g_tracked_state[slot].store(0);
}

extern "C" void remove_temporaries_and_reraise(int signal_number) {
  for (int i = 0; i < kTrackedFiles; ++i) {
    if (g_tracked_state[i].load() == 2) ::unlink(g_tracked_paths[i]);
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// A name no other writer uses: the process id and a counter shared by every thread.
std::string temporary_name(const fs::path& folder, const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  return (folder / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                    std::to_string(counter.fetch_add(1))))
      .string();
}

}  // namespace

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  const fs::path target(path);
  if (path.empty() || target.filename().empty())
    return make_error(path, "names a folder, not a file");
  fs::path folder = target.parent_path();
  if (folder.empty()) folder = ".";
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    return make_error(path, "cannot write into folder '" + folder.string() + "': " + reason(errno));
  }
  if (!S_ISDIR(st.st_mode)) return make_error(path, "'" + folder.string() + "' is not a folder");
  AtomicFile file;
  file.path_ = path;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return make_error(path, "is a folder");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      // A device or a pipe: written in place (renaming a file over it would replace the node).
      file.fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (file.fd_ < 0) return make_error(path, "cannot open for writing: " + reason(errno));
      file.temp_path_ = path;
      file.direct_ = true;
      return file;
    }
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = temporary_name(folder, target);
    // Tracked before it exists: a signal between creating and tracking it would leave it behind
    // (unlinking a name not yet created is harmless).
    const int slot = track(temp);
    // 0666 less the umask: the finished file gets the permissions any new file would.
    file.fd_ = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    const int open_error = errno;
    if (file.fd_ >= 0) {
      file.temp_path_ = std::move(temp);
      file.slot_ = slot;
      return file;
    }
    untrack(slot);
    errno = open_error;
    if (errno != EEXIST) break;
  }
  return make_error(path, "cannot create a file in '" + folder.string() + "': " + reason(errno));
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      fd_(other.fd_),
      slot_(other.slot_),
      direct_(other.direct_),
      committed_(other.committed_) {
  other.fd_ = -1;
  other.slot_ = -1;
  other.committed_ = true;  // the moved-from object owns nothing to remove
  other.temp_path_.clear();
}

AtomicFile::~AtomicFile() {
  close_descriptor();
  if (!committed_ && !direct_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
  untrack(slot_);
}

void AtomicFile::close_descriptor() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status AtomicFile::write(std::span<const std::uint8_t> bytes) {
  if (fd_ < 0) return make_error(path_, "not open for writing");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      // The temporary is of no more use: remove it now rather than when this object goes.
      close_descriptor();
      if (!direct_) ::unlink(temp_path_.c_str());
      committed_ = true;  // nothing left to remove
      untrack(slot_);
      slot_ = -1;
      return make_error(path_, "write failed: " + reason(error));
    }
    done += static_cast<std::size_t>(n);
  }
  return {};
}

Status AtomicFile::commit() {
  if (committed_) return make_error(path_, "already finished or failed");
  auto fail = [this](const std::string& what, int error) -> Status {
    close_descriptor();
    if (!direct_) ::unlink(temp_path_.c_str());
    committed_ = true;
    untrack(slot_);
    slot_ = -1;
    return make_error(path_, what + reason(error));
  };
  if (direct_) {
    committed_ = true;
    const int rc = fd_ >= 0 ? ::close(fd_) : 0;
    fd_ = -1;
    if (rc != 0) return make_error(path_, "write failed: " + reason(errno));
    return {};
  }
  if (fd_ < 0) {
    // Filled by name by another program: flushed through a descriptor of our own.
    fd_ = ::open(temp_path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return fail("the finished file cannot be reopened: ", errno);
  }
  // Delayed allocation can report a full disk only here (or at close).
  if (::fsync(fd_) != 0 && errno != EINVAL) return fail("write failed: ", errno);
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) return fail("write failed: ", errno);
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0)
    return fail("cannot rename the finished temporary file into place: ", errno);
  committed_ = true;
  untrack(slot_);
  slot_ = -1;
  return {};
}

Status write_files_atomically(std::span<const FileContents> files) {
  std::vector<AtomicFile> open;
  open.reserve(files.size());
  for (const FileContents& f : files) {
    Result<AtomicFile> file = AtomicFile::create(f.path);
    if (!file) return file.error();  // earlier temporaries go with `open`
    open.push_back(std::move(file).value());
    if (Status s = open.back().write(f.bytes); !s) return s;
  }
  for (AtomicFile& file : open) {
    if (Status s = file.commit(); !s) return s;
  }
  return {};
}

Status write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes) {
  const FileContents one{path, bytes};
  return write_files_atomically(std::span<const FileContents>(&one, 1));
}

void remove_temporaries_on_signal() {
  struct sigaction action {};
  action.sa_handler = remove_temporaries_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &action, nullptr);
}

}  // namespace marrow
