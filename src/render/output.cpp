#include "marrow/render/output.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stb_image_write.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "marrow/render/gif.h"

extern char** environ;

namespace marrow::render {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void append_bytes(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(context);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  out->insert(out->end(), bytes, bytes + size);
}

class PngWriter final : public FrameWriter {
 public:
  PngWriter(AtomicFile file) : file_(std::move(file)) {}
  Status add(const Image& frame) override {
    if (frames_++ > 0) return make_error(file_.path(), "a PNG holds one frame");
    png_ = encode_png(frame);
    if (png_.empty()) return make_error(file_.path(), "PNG encoding failed");
    return {};
  }
  Status finish() override {
    if (frames_ == 0) return make_error(file_.path(), "no frame to write");
    if (Status s = file_.write(png_); !s) return s;
    return file_.commit();
  }
  std::uint64_t size() const override { return png_.size(); }

 private:
  AtomicFile file_;
  std::vector<std::uint8_t> png_;
  int frames_ = 0;
};

class GifWriter final : public FrameWriter {
 public:
  GifWriter(AtomicFile file, int width, int height, double fps)
      : file_(std::move(file)), encoder_(width, height), fps_(fps) {}
  Status add(const Image& frame) override {
    if (!encoder_.add_frame(frame, gif_frame_delay(frames_++, fps_))) {
      return make_error(file_.path(), "frame size changed");
    }
    return flush();
  }
  Status finish() override {
    if (frames_ == 0) return make_error(file_.path(), "no frame to write");
    encoder_.finish();
    if (Status s = flush(); !s) return s;
    return file_.commit();
  }
  std::uint64_t size() const override { return written_; }

 private:
  Status flush() {
    const std::vector<std::uint8_t> bytes = encoder_.take_bytes();
    written_ += bytes.size();
    return file_.write(bytes);
  }
  AtomicFile file_;
  GifEncoder encoder_;
  double fps_;
  int frames_ = 0;
  std::uint64_t written_ = 0;
};

class Mp4Writer final : public FrameWriter {
 public:
  static Result<std::unique_ptr<FrameWriter>> start(AtomicFile file, const std::string& ffmpeg,
                                                    int width, int height, double fps) {
    auto writer = std::unique_ptr<Mp4Writer>(new Mp4Writer(std::move(file)));
    // ffmpeg overwrites the temporary by name; our descriptor is not needed.
    writer->file_.close_descriptor();
    int fds[2];
    if (pipe(fds) != 0) return make_error(writer->file_.path(), "cannot create a pipe for ffmpeg");
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.6g", fps);
    // H.264 in yuv420p needs even sizes: pad by one pixel where needed.
    std::vector<std::string> args = {ffmpeg,
                                     "-hide_banner",
                                     "-loglevel",
                                     "error",
                                     "-y",
                                     "-f",
                                     "rawvideo",
                                     "-pixel_format",
                                     "rgb24",
                                     "-video_size",
                                     size,
                                     "-framerate",
                                     rate,
                                     "-i",
                                     "pipe:0",
                                     "-vf",
                                     "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                                     "-pix_fmt",
                                     "yuv420p",
                                     "-f",
                                     "mp4",
                                     writer->file_.temp_path()};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, ffmpeg.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[0]);
    if (rc != 0) {
      ::close(fds[1]);
      return make_error(writer->file_.path(), "cannot start " + ffmpeg + ": " + std::strerror(rc));
    }
    writer->pid_ = pid;
    writer->pipe_ = fds[1];
    writer->frame_bytes_ = static_cast<std::size_t>(width) * height * 3;
    return std::unique_ptr<FrameWriter>(std::move(writer));
  }
  ~Mp4Writer() override { stop(); }

  Status add(const Image& frame) override {
    if (pipe_ < 0) return make_error(file_.path(), "ffmpeg is not running");
    if (frame.rgb.size() != frame_bytes_) return make_error(file_.path(), "frame size changed");
    // A dead ffmpeg must give EPIPE here, not kill marrow with SIGPIPE.
    struct sigaction ignore {
    }, previous{};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &previous);
    std::size_t done = 0;
    while (done < frame.rgb.size()) {
      const ssize_t n = ::write(pipe_, frame.rgb.data() + done, frame.rgb.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    sigaction(SIGPIPE, &previous, nullptr);
    if (done < frame.rgb.size()) {
      const int status = stop();
      return make_error(file_.path(), "ffmpeg stopped reading frames (exit status " +
                                          std::to_string(status) + ")");
    }
    return {};
  }
  Status finish() override {
    const int status = stop();
    if (status != 0) {
      return make_error(file_.path(), "ffmpeg failed (exit status " + std::to_string(status) + ")");
    }
    std::error_code ec;
    size_ = fs::file_size(file_.temp_path(), ec);
    if (ec || size_ == 0) return make_error(file_.path(), "ffmpeg wrote nothing");
    return file_.commit();
  }
  std::uint64_t size() const override { return size_; }

 private:
  explicit Mp4Writer(AtomicFile file) : file_(std::move(file)) {}
  // Closes the pipe and waits for ffmpeg; returns its exit status (-1 if it died by a signal).
  int stop() {
    if (pipe_ >= 0) {
      ::close(pipe_);
      pipe_ = -1;
    }
    if (pid_ <= 0) return status_;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return status_;
  }
  AtomicFile file_;
  pid_t pid_ = -1;
  int pipe_ = -1;
  int status_ = -1;
  std::size_t frame_bytes_ = 0;
  std::uint64_t size_ = 0;
};

// Temporaries open right now, for the signal handler: fixed storage, written before a slot is
// marked used, so the handler (which may only call async-signal-safe functions) reads whole
// paths.
constexpr int kTrackedFiles = 8;
constexpr std::size_t kTrackedPath = 4096;
char tracked_paths[kTrackedFiles][kTrackedPath];
volatile sig_atomic_t tracked_used[kTrackedFiles];

int track(const std::string& temp) {
  if (temp.size() >= kTrackedPath) return -1;
  for (int i = 0; i < kTrackedFiles; ++i) {
    if (tracked_used[i]) continue;
    std::memcpy(tracked_paths[i], temp.c_str(), temp.size() + 1);
    tracked_used[i] = 1;
    return i;
  }
  return -1;
}

void untrack(int slot) {
  if (slot >= 0) tracked_used[slot] = 0;
}

extern "C" void remove_temporaries_and_reraise(int signal_number) {
  for (int i = 0; i < kTrackedFiles; ++i) {
    if (tracked_used[i]) ::unlink(tracked_paths[i]);
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

void remove_temporaries_on_signal() {
  struct sigaction action {};
  action.sa_handler = remove_temporaries_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &action, nullptr);
}

Result<OutputFormat> output_format_of(const std::string& path) {
  const std::string ext = lower(fs::path(path).extension().string());
  if (ext == ".png") return OutputFormat::kPng;
  if (ext == ".gif") return OutputFormat::kGif;
  if (ext == ".mp4") return OutputFormat::kMp4;
  return make_error(
      path, "unknown output format '" + ext + "' (the extension chooses it: .png, .gif or .mp4)");
}

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  const fs::path target(path);
  if (target.filename().empty()) return make_error(path, "names a folder, not a file");
  fs::path folder = target.parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    return make_error(path, "folder '" + folder.string() + "' does not exist");
  }
  if (fs::is_directory(target, ec)) return make_error(path, "is a folder");
  std::string temp = (folder / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = mkstemp(temp.data());
  if (fd < 0)
    return make_error(path, std::string("cannot create a file there: ") + std::strerror(errno));
  fchmod(fd, 0644);
  AtomicFile file;
  file.path_ = path;
  file.temp_path_ = temp;
  file.fd_ = fd;
  file.slot_ = track(temp);
  return file;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      fd_(other.fd_),
      slot_(other.slot_),
      committed_(other.committed_) {
  other.fd_ = -1;
  other.slot_ = -1;
  other.committed_ = true;  // the moved-from object owns nothing to remove
  other.temp_path_.clear();
}

AtomicFile::~AtomicFile() {
  close_descriptor();
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
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
    if (n <= 0) return make_error(path_, std::string("write failed: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return {};
}

Status AtomicFile::commit() {
  if (fd_ >= 0) {
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return make_error(path_, std::string("write failed: ") + std::strerror(errno));
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    return make_error(path_, std::string("cannot rename into place: ") + std::strerror(errno));
  }
  committed_ = true;
  untrack(slot_);
  slot_ = -1;
  return {};
}

std::vector<std::uint8_t> encode_png(const Image& image) {
  std::vector<std::uint8_t> out;
  if (image.width <= 0 || image.height <= 0) return out;
  if (!stbi_write_png_to_func(append_bytes, &out, image.width, image.height, 3, image.rgb.data(),
                              image.width * 3)) {
    out.clear();
  }
  return out;
}

std::optional<std::string> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::string dirs = path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

Result<std::unique_ptr<FrameWriter>> FrameWriter::open(const std::string& path, int width,
                                                       int height, double fps) {
  Result<OutputFormat> format = output_format_of(path);
  if (!format) return format.error();
  if (width <= 0 || height <= 0) return make_error(path, "image size must be positive");
  if (!(fps > 0) || !std::isfinite(fps)) return make_error(path, "frame rate must be positive");
  std::optional<std::string> ffmpeg;
  if (*format == OutputFormat::kMp4) {
    ffmpeg = find_on_path("ffmpeg");
    if (!ffmpeg) {
      return make_error(path,
                        "MP4 output needs the ffmpeg command, which is not installed (on Debian: "
                        "apt-get install ffmpeg); write a .gif instead");
    }
  }
  Result<AtomicFile> file = AtomicFile::create(path);
  if (!file) return file.error();
  switch (*format) {
    case OutputFormat::kPng:
      return std::unique_ptr<FrameWriter>(new PngWriter(std::move(file).value()));
    case OutputFormat::kGif:
      return std::unique_ptr<FrameWriter>(
          new GifWriter(std::move(file).value(), width, height, fps));
    case OutputFormat::kMp4:
      return Mp4Writer::start(std::move(file).value(), *ffmpeg, width, height, fps);
  }
  return make_error(path, "unknown output format");
}

}  // namespace marrow::render
