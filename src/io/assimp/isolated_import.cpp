// The isolated assimp import: the parent spawns marrow-import-helper (posix_spawn, which is
// fork-and-exec done safely in a process that has threads), reads what the child writes to its
// descriptor 3 under a wall-clock limit, a memory watch and the document budget, and loads the
// archive inside with the archive's own checks. The child applies its limits to itself, imports
// with assimp, writes the result and leaves with _exit (whatever assimp leaked goes with it).
//
// What the child writes to descriptor 3:
//   8 bytes  "MRWCHLD1"
//   4 bytes  n, the number of clips (little-endian)
//   n bytes  per clip, where its rate came from (RateSource)
//   the rest the asset as a .marrow archive (docs/formats_archive.md)
#include "base/sanitizer_build.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "common/budget.h"
#include "marrow/io/archive.h"
#include "marrow/io/assimp_import.h"

extern char** environ;

// AddressSanitizer and ThreadSanitizer map their shadow memory as the program runs, so an
// address-space limit makes them fail ("Failed to mmap") before assimp does anything.
#if defined(MARROW_ADDRESS_SANITIZER) || defined(MARROW_THREAD_SANITIZER)
#define MARROW_HELPER_UNDER_SANITIZER 1
#endif

namespace marrow {
namespace {

constexpr char kMagic[8] = {'M', 'R', 'W', 'C', 'H', 'L', 'D', '1'};
constexpr int kExitImportError = 2;
constexpr int kExitOutOfMemory = 3;
constexpr int kExitUsage = 4;
constexpr const char* kHelperName = "marrow-import-helper";

std::string format_of(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".fbx") return "FBX";
  if (ext == ".dae") return "Collada";
  return "assimp";
}

std::uint64_t memory_limit(const LoadOptions& options, std::uint64_t file_bytes) {
  if (options.importer_memory_bytes > 0) return options.importer_memory_bytes;
  const std::uint64_t base = std::uint64_t{1} << 30;
  return base + io::DocumentBudget::times(file_bytes, 32);
}

std::string mebibytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", s);
  return text;
}

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    reset();
    fd_ = o.fd_;
    o.fd_ = -1;
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// A pipe whose ends are close-on-exec and numbered 10 or above, so that dup2 onto 2 or 3 in
// the child always clears close-on-exec (dup2 of a descriptor onto itself would not).
bool make_pipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  Fd a(fds[0]), b(fds[1]);
  read_end = Fd(::fcntl(a.get(), F_DUPFD_CLOEXEC, 10));
  write_end = Fd(::fcntl(b.get(), F_DUPFD_CLOEXEC, 10));
  return read_end.get() >= 0 && write_end.get() >= 0;
}

// Resident memory of `pid` in bytes (0 when it cannot be read).
std::uint64_t resident_bytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

bool executable_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

enum class Stop { kNone, kTime, kMemory, kOutput };

struct ChildRun {
  int status = 0;
  Stop stop = Stop::kNone;
  std::vector<std::uint8_t> data;
  std::string err;
};

// The child's last stderr line, for messages.
std::string last_line(std::string err) {
  while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
  const std::size_t nl = err.find_last_of("\r\n");
  std::string line = nl == std::string::npos ? err : err.substr(nl + 1);
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  return line;
}

std::string signal_text(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return "signal " + std::to_string(sig) + (abbrev ? std::string(", SIG") + abbrev : "");
}

Result<ChildRun> run_child(const std::string& helper, const std::vector<std::string>& args,
                           double seconds, std::uint64_t max_memory, std::uint64_t max_output) {
  Fd data_read, data_write, err_read, err_write;
  if (!make_pipe(data_read, data_write) || !make_pipe(err_read, err_write)) {
    return Error{std::string("cannot make a pipe (") + std::strerror(errno) + ")"};
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawnattr_init(&attr);
  ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  ::posix_spawn_file_actions_adddup2(&actions, err_write.get(), 2);
  ::posix_spawn_file_actions_adddup2(&actions, data_write.get(), 3);
  // The child starts with every signal at its default and none blocked, whatever the caller's
  // threads have set up.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  ::posix_spawnattr_setsigdefault(&attr, &all);
  ::posix_spawnattr_setsigmask(&attr, &none);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(helper.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, helper.c_str(), &actions, &attr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
  data_write.reset();
  err_write.reset();
  if (spawned != 0) {
    return Error{"cannot run " + helper + " (" + std::strerror(spawned) + ")"};
  }

  ChildRun run;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(seconds));
  constexpr std::size_t kMaxErr = 64 * 1024;
  std::vector<std::uint8_t> buffer(64 * 1024);
  auto ms_left = [&] {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, 50));
  };
  while (data_read.get() >= 0 || err_read.get() >= 0) {
    if (Clock::now() >= deadline) {
      run.stop = Stop::kTime;
      break;
    }
    pollfd fds[2] = {{data_read.get(), POLLIN, 0}, {err_read.get(), POLLIN, 0}};
    const int n = ::poll(fds, 2, ms_left());
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && n > 0; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) {
        (i == 0 ? data_read : err_read).reset();
        continue;
      }
      if (i == 0) {
        if (run.data.size() + static_cast<std::size_t>(got) > max_output) {
          run.stop = Stop::kOutput;
          break;
        }
        run.data.insert(run.data.end(), buffer.begin(), buffer.begin() + got);
      } else if (run.err.size() < kMaxErr) {
        run.err.append(
            reinterpret_cast<const char*>(buffer.data()),
            std::min<std::size_t>(static_cast<std::size_t>(got), kMaxErr - run.err.size()));
      }
    }
    if (run.stop != Stop::kNone) break;
    if (resident_bytes(pid) > max_memory) {
      run.stop = Stop::kMemory;
      break;
    }
  }
  // The pipes are closed: the child is leaving. Wait for it, within the same deadline.
  while (run.stop == Stop::kNone) {
    const pid_t done = ::waitpid(pid, &run.status, WNOHANG);
    if (done == pid) return run;
    if (done < 0 && errno != EINTR) return Error{std::string("cannot wait for ") + helper};
    if (Clock::now() >= deadline) {
      run.stop = Stop::kTime;
      break;
    }
    ::usleep(2000);
  }
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &run.status, 0) < 0 && errno == EINTR) {
  }
  return run;
}

std::uint32_t read_u32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

bool write_all(int fd, const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void leave(int status, const std::string& message = {}) {
  if (!message.empty()) {
    const std::string line = message + "\n";
    (void)write_all(2, line.data(), line.size());
  }
  ::_exit(status);
}

}  // namespace

Result<std::string> find_import_helper(const LoadOptions& options) {
  if (!options.importer_helper.empty()) {
    if (executable_file(options.importer_helper)) return options.importer_helper;
    return Error{"LoadOptions::importer_helper '" + options.importer_helper +
                 "' is not an executable file"};
  }
  if (const char* env = std::getenv("MARROW_IMPORT_HELPER"); env && *env) {
    if (executable_file(env)) return std::string(env);
    return Error{std::string("MARROW_IMPORT_HELPER '") + env + "' is not an executable file"};
  }
  std::vector<std::string> tried;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::string beside = (exe.parent_path() / kHelperName).string();
    if (executable_file(beside)) return beside;
    tried.push_back(beside);
  }
#ifdef MARROW_IMPORT_HELPER_BUILD_PATH
  if (executable_file(MARROW_IMPORT_HELPER_BUILD_PATH))
    return std::string(MARROW_IMPORT_HELPER_BUILD_PATH);
  tried.emplace_back(MARROW_IMPORT_HELPER_BUILD_PATH);
#endif
  std::string list;
  for (const std::string& t : tried) list += (list.empty() ? "" : ", ") + t;
  return Error{std::string(kHelperName) + " not found (looked at " + list +
               "); set MARROW_IMPORT_HELPER or LoadOptions::importer_helper, or import in this "
               "process with LoadOptions::isolate_importers = false"};
}

Result<Asset> read_assimp_isolated(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return make_error(path, "no such file");
  const std::uint64_t file_bytes = std::filesystem::file_size(path, ec);
  Result<std::string> helper = find_import_helper(options);
  if (!helper)
    return make_error(path, "cannot run the isolated importer: " + helper.error().message);
  const std::string format = format_of(path);
  const std::uint64_t max_memory = memory_limit(options, ec ? 0 : file_bytes);
  const double seconds = options.importer_seconds > 0 ? options.importer_seconds : 120.0;
  std::vector<std::string> args = {"--max-memory", std::to_string(max_memory), "--max-seconds",
                                   std::to_string(seconds)};
  if (options.ticks_per_second > 0) {
    char tps[64];
    std::snprintf(tps, sizeof tps, "%.17g", options.ticks_per_second);
    args.insert(args.end(), {"--ticks-per-second", tps});
  }
  args.insert(args.end(), {"--", path});
  // What the child may send back is the document's budget: an archive is never larger.
  const std::uint64_t max_output = io::DocumentBudget::limit_for(ec ? 0 : file_bytes);
  Result<ChildRun> ran = run_child(*helper, args, seconds, max_memory, max_output);
  if (!ran) return make_error(path, "cannot run the isolated importer: " + ran.error().message);
  ChildRun& run = *ran;
  const std::string importer = "the " + format + " importer";
  switch (run.stop) {
    case Stop::kTime:
      return Error{importer + " took longer than " + seconds_text(seconds) + " on " + path +
                   " and was stopped (LoadOptions::importer_seconds)"};
    case Stop::kMemory:
      return Error{importer + " used more than " + mebibytes(max_memory) + " on " + path +
                   " and was stopped (LoadOptions::importer_memory_bytes)"};
    case Stop::kOutput:
      return Error{importer + " sent back more than the " + mebibytes(max_output) +
                   " the budget allows for " + path + " and was stopped"};
    case Stop::kNone:
      break;
  }
  if (WIFSIGNALED(run.status)) {
    const int sig = WTERMSIG(run.status);
    if (sig == SIGXCPU) {
      return Error{importer + " took longer than " + seconds_text(seconds) + " of CPU on " + path +
                   " and was stopped (LoadOptions::importer_seconds)"};
    }
    std::string message = importer + " crashed on " + path + " (" + signal_text(sig) + ")";
    if (const std::string said = last_line(run.err); !said.empty()) message += ": " + said;
    return Error{message};
  }
  const int code = WIFEXITED(run.status) ? WEXITSTATUS(run.status) : -1;
  if (code == kExitImportError) {
    const std::string said = last_line(run.err);
    return Error{said.empty() ? path + ": " + importer + " failed" : said};
  }
  if (code == kExitOutOfMemory) {
    return Error{importer + " ran out of its " + mebibytes(max_memory) + " on " + path +
                 " (LoadOptions::importer_memory_bytes)"};
  }
  if (code != 0) {
    std::string message =
        importer + " failed on " + path + " (exit status " + std::to_string(code) + ")";
    if (const std::string said = last_line(run.err); !said.empty()) message += ": " + said;
    return Error{message};
  }
  return read_import_answer(run.data, path);
}

Result<Asset> read_import_answer(std::span<const std::uint8_t> data, const std::string& path) {
  // The frame around the archive, then the archive with its own checks.
  const std::string from = path + " (as returned by the isolated importer)";
  if (data.size() < 12 || !std::equal(kMagic, kMagic + 8, data.begin())) {
    return make_error(from, "the importer's answer does not start as expected");
  }
  const std::uint32_t clips = read_u32(data.data() + 8);
  if (clips > data.size() - 12) return make_error(from, "the importer's answer is cut short");
  std::vector<RateSource> sources;
  for (std::uint32_t c = 0; c < clips; ++c) {
    const std::uint8_t s = data[12 + c];
    if (s > static_cast<std::uint8_t>(RateSource::kOption)) {
      return make_error(from, "clip " + std::to_string(c) + " has an unknown rate source");
    }
    sources.push_back(static_cast<RateSource>(s));
  }
  Result<Asset> asset = read_archive(data.subspan(12 + clips), from);
  if (!asset) return asset.error();
  if (sources.size() != asset->clips.size()) {
    return make_error(from, "the importer names the rate of " + std::to_string(sources.size()) +
                                " clips, the archive holds " + std::to_string(asset->clips.size()));
  }
  asset->source = path;
  asset->rate_sources = std::move(sources);
  return asset;
}

int run_import_helper(int argc, char** argv) {
  std::uint64_t max_memory = 0;
  double max_seconds = 0;
  LoadOptions options;
  options.isolate_importers = false;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--" && i + 1 < argc) {
      path = argv[++i];
    } else if (arg == "--max-memory" && i + 1 < argc) {
      max_memory = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--max-seconds" && i + 1 < argc) {
      max_seconds = std::strtod(argv[++i], nullptr);
    } else if (arg == "--ticks-per-second" && i + 1 < argc) {
      options.ticks_per_second = std::strtod(argv[++i], nullptr);
    } else {
      leave(kExitUsage, std::string("usage: ") + kHelperName +
                            " [--max-memory BYTES] [--max-seconds S] [--ticks-per-second T] -- FILE"
                            " (run by marrow's isolated import; it writes to descriptor 3)");
    }
  }
  if (path.empty()) leave(kExitUsage, std::string(kHelperName) + ": no file given");
  if (::fcntl(3, F_GETFD) < 0)
    leave(kExitUsage, std::string(kHelperName) + ": descriptor 3 is not open");
  // No core files from a crash inside assimp; the limits before anything is read.
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  if (max_seconds > 0) {
    const auto cpu = static_cast<rlim_t>(std::ceil(max_seconds)) + 1;
    const rlimit limit{cpu, cpu + 1};  // SIGXCPU first, then SIGKILL
    ::setrlimit(RLIMIT_CPU, &limit);
  }
#ifndef MARROW_HELPER_UNDER_SANITIZER
  if (max_memory > 0) {
    const rlimit limit{max_memory, max_memory};
    ::setrlimit(RLIMIT_AS, &limit);
  }
#else
  // The sanitizers reserve terabytes of address space, so under them the parent's watch of
  // the resident memory is the only limit.
  (void)max_memory;
#endif
  try {
    Result<Asset> asset = read_assimp(path, options);
    if (!asset) {
      const std::string& m = asset.error().message;
      leave(m.find("bad_alloc") != std::string::npos ? kExitOutOfMemory : kExitImportError, m);
    }
    // Images named by path stay paths: the parent reads the file as any reader's caller does.
    Result<std::vector<std::uint8_t>> archive = archive_bytes(*asset, nullptr, ImageFiles::kByPath);
    if (!archive) leave(kExitImportError, archive.error().message);
    std::vector<std::uint8_t> head(kMagic, kMagic + 8);
    const auto clips = static_cast<std::uint32_t>(asset->clips.size());
    for (int b = 0; b < 4; ++b) head.push_back(static_cast<std::uint8_t>(clips >> (8 * b)));
    for (std::size_t c = 0; c < asset->clips.size(); ++c) {
      head.push_back(static_cast<std::uint8_t>(asset->rate_source(c)));
    }
    if (!write_all(3, head.data(), head.size()) ||
        !write_all(3, archive->data(), archive->size())) {
      leave(kExitImportError, path + ": the isolated importer cannot send its answer");
    }
  } catch (const std::bad_alloc&) {
    leave(kExitOutOfMemory, path + ": out of memory");
  }
  // _exit: no destructors, no leak report for what assimp left behind; the process ends here.
  leave(0);
}

}  // namespace marrow
