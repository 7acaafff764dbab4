#include "export/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace marrow::io_detail {
namespace {

std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path p(path);
  const std::string name = "." + p.filename().string() + ".tmp-" + std::to_string(::getpid()) +
                           "-" + std::to_string(counter.fetch_add(1));
  return (p.parent_path() / name).string();
}

Status write_whole(const std::string& temp, const std::string& target,
                   std::span<const std::uint8_t> bytes) {
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Error{target + ": cannot create a temporary file: " + std::strerror(errno)};
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      return Error{target + ": write failed: " + why};
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    return Error{target + ": write failed: " + why};
  }
  return {};
}

}  // namespace

Status write_files_atomically(std::span<const FileContents> files) {
  std::vector<std::string> temps;
  auto discard = [&temps] {
    for (const std::string& t : temps) ::unlink(t.c_str());
  };
  for (const FileContents& f : files) {
    temps.push_back(temporary_name(f.path));
    Status st = write_whole(temps.back(), f.path, f.bytes);
    if (!st) {
      temps.pop_back();
      discard();
      return st;
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::rename(temps[i].c_str(), files[i].path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      for (std::size_t k = i; k < temps.size(); ++k) ::unlink(temps[k].c_str());
      return Error{files[i].path +
                   ": cannot rename the finished temporary file into place: " + why};
    }
  }
  return {};
}

}  // namespace marrow::io_detail
