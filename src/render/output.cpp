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
    // ffmpeg's messages go to a file of our own: they become part of marrow's one error line,
    // and with -loglevel error any message is an error, whatever the exit status says.
    writer->log_ = std::tmpfile();
    if (writer->log_) posix_spawn_file_actions_adddup2(&actions, fileno(writer->log_), 2);
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
  ~Mp4Writer() override {
    stop();
    if (log_) std::fclose(log_);
  }

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
                                          std::to_string(status) + ")" + ffmpeg_says());
    }
    return {};
  }
  Status finish() override {
    const int status = stop();
    if (status != 0) {
      return make_error(file_.path(), "ffmpeg failed (exit status " + std::to_string(status) + ")" +
                                          ffmpeg_says());
    }
    // ffmpeg exits with 0 when it cannot write the file's trailer (a full disk): a message is
    // the only sign, and the truncated file must not be renamed into place.
    if (!ffmpeg_messages_.empty())
      return make_error(file_.path(), "ffmpeg reported an error" + ffmpeg_says());
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
    if (log_) {
      std::rewind(log_);
      char buffer[4096];
      const std::size_t n = std::fread(buffer, 1, sizeof buffer, log_);
      ffmpeg_messages_.assign(buffer, n);
      while (!ffmpeg_messages_.empty() &&
             std::isspace(static_cast<unsigned char>(ffmpeg_messages_.back())))
        ffmpeg_messages_.pop_back();
    }
    return status_;
  }
  // ": <ffmpeg's last message line>", or nothing.
  std::string ffmpeg_says() const {
    if (ffmpeg_messages_.empty()) return {};
    const std::size_t line = ffmpeg_messages_.find_last_of('\n');
    return ": " + ffmpeg_messages_.substr(line == std::string::npos ? 0 : line + 1);
  }
  AtomicFile file_;
  pid_t pid_ = -1;
  int pipe_ = -1;
  int status_ = -1;
  std::FILE* log_ = nullptr;  // ffmpeg's stderr
  std::string ffmpeg_messages_;
  std::size_t frame_bytes_ = 0;
  std::uint64_t size_ = 0;
};

}  // namespace

Result<OutputFormat> output_format_of(const std::string& path) {
  const std::string ext = lower(fs::path(path).extension().string());
  if (ext == ".png") return OutputFormat::kPng;
  if (ext == ".gif") return OutputFormat::kGif;
  if (ext == ".mp4") return OutputFormat::kMp4;
  return make_error(
      path, "unknown output format '" + ext + "' (the extension chooses it: .png, .gif or .mp4)");
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
