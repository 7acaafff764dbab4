// Every `marrow` command that writes a file, run as a process against the ways a write fails.
// What each case shows:
//  - FullDevice: the output path is a symlink to /dev/full, so every write returns ENOSPC: the
//    command exits 1 with one "marrow: <file>: ... No space left on device" line (and, for a
//    .gltf, leaves no side .bin behind either).
//  - FullDiskMidway: the process may write at most 1,000 bytes per file (RLIMIT_FSIZE, which
//    binds root too; SIGXFSZ ignored, so the write fails with EFBIG as on a full disk): the
//    output is cut off part way through the temporary file. The command exits 1, the old file
//    at the destination keeps its bytes, and no temporary is left in the folder.
//  - FolderUnderAFile / FolderNoOneCanWrite: the folder is a regular file (ENOTDIR) or /proc
//    (where no process, root included, can create a file): a clear error, nothing created.
//  - ReadOnlyFolder: a folder with mode 0555 stops only a non-root user; the case is skipped
//    when the tests run as root (as in CI), where the two cases above stand in for it.
//  - Success: the file is there and nothing else (no temporary).
// Commands that print (info, pose, check, autoskin --evaluate) fail when their standard output
// cannot be written (StdoutFull).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>
#include "../common/whole_file.h"

namespace fs = std::filesystem;

namespace {

const std::string kSeeds = std::string(MARROW_SOURCE_DIR) + "/fuzz/seeds";
// Committed inputs of our own: an animated skinned .X file and an OBJ mesh.
const std::string kSkinned = kSeeds + "/x_text/skinned_walk.x";
const std::string kMesh = kSeeds + "/obj/quad_negative_indices.obj";
// skinned_walk.x's joints mapped onto themselves, and a script that plays its clip.
const std::string kData = std::string(MARROW_SOURCE_DIR) + "/tests/reliability/data";
const std::string kIdentityMap = kData + "/skinned_walk_identity_map.json";
const std::string kWaveScript = kData + "/wave.json";

struct Outcome {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  return marrow::test::whole_file<std::string>(p);
}

struct RunOptions {
  rlim_t file_size_limit = RLIM_INFINITY;
  std::string stdout_path;  // empty: a log file
};

class Workspace {
 public:
  Workspace() {
    base_ = fs::temp_directory_path() /
            ("marrow_atomic_" + std::to_string(getpid()) + "_" + std::to_string(next_++));
    fs::remove_all(base_);
    fs::create_directories(base_ / "out");
    fs::create_directories(base_ / "logs");
  }
  ~Workspace() {
    std::error_code ec;
    fs::permissions(base_ / "out", fs::perms::owner_all, ec);
    fs::remove_all(base_, ec);
  }
  fs::path out() const { return base_ / "out"; }

  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(out()))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  Outcome run(const std::vector<std::string>& args, const RunOptions& options = {}) const {
    const fs::path out_log = base_ / "logs" / "stdout", err_log = base_ / "logs" / "stderr";
    const pid_t pid = fork();
    if (pid == 0) {
      if (options.file_size_limit != RLIM_INFINITY) {
        const rlimit limit{options.file_size_limit, options.file_size_limit};
        setrlimit(RLIMIT_FSIZE, &limit);
        signal(SIGXFSZ, SIG_IGN);  // kept across exec: a write past the limit fails with EFBIG
      }
      const std::string out_path =
          options.stdout_path.empty() ? out_log.string() : options.stdout_path;
      const int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = open(err_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(o, 1);
      dup2(e, 2);
      std::vector<char*> argv;
      std::string bin = MARROW_BIN;
      argv.push_back(bin.data());
      std::vector<std::string> copies(args);
      for (std::string& a : copies) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(bin.c_str(), argv.data());
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    Outcome o;
    if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    if (options.stdout_path.empty()) o.out = slurp(out_log);
    o.err = slurp(err_log);
    return o;
  }

 private:
  static inline int next_ = 0;
  fs::path base_;
};

// One "marrow: ..." line naming the reason, exit 1, no sanitizer report.
void expect_clean_failure(const Outcome& o, const std::string& reason) {
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_EQ(o.err.rfind("marrow: ", 0), 0u) << o.err;
  EXPECT_NE(o.err.find(reason), std::string::npos) << "'" << reason << "' not in: " << o.err;
  EXPECT_EQ(o.err.find("Sanitizer"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("runtime error"), std::string::npos) << o.err;
}

// A command that writes the file named `output` (inside the workspace's out/ folder), and the
// files a success leaves there.
struct WritingCommand {
  std::string name;
  std::string output;
  std::vector<std::string> written;  // on success
  std::vector<std::string> (*args)(const std::string& output_path);
  bool needs_ffmpeg = false;
};

// What gtest prints for a parameter (and ctest shows in test names): the command's name.
void PrintTo(const WritingCommand& command, std::ostream* out) {
  *out << command.name;
}

std::vector<WritingCommand> writing_commands() {
  return {
      {"ConvertToGlb",
       "a.glb",
       {"a.glb"},
       [](const std::string& o) {
         return std::vector<std::string>{"convert", kSkinned, o};
       }},
      {"ConvertToGltfWithBin",
       "a.gltf",
       {"a.bin", "a.gltf"},
       [](const std::string& o) {
         return std::vector<std::string>{"convert", kSkinned, o};
       }},
      {"ConvertToEmbeddedGltf",
       "a.gltf",
       {"a.gltf"},
       [](const std::string& o) {
         return std::vector<std::string>{"convert", kSkinned, o, "--embed"};
       }},
      {"ConvertToArchive",
       "a.marrow",
       {"a.marrow"},
       [](const std::string& o) {
         return std::vector<std::string>{"convert", kSkinned, o};
       }},
      {"AutoskinToGlb",
       "a.glb",
       {"a.glb"},
       [](const std::string& o) {
         return std::vector<std::string>{"autoskin", kMesh, "--skeleton", kSkinned,
                                         "-o",       o,     "--quiet"};
       }},
      {"RenderPng",
       "a.png",
       {"a.png"},
       [](const std::string& o) {
         return std::vector<std::string>{"render", kSkinned, "--out", o, "--size", "96x96"};
       }},
      {"RenderGif",
       "a.gif",
       {"a.gif"},
       [](const std::string& o) {
         return std::vector<std::string>{"render", kSkinned, "--out",     o,
                                         "--size", "96x96",  "--seconds", "0.4"};
       }},
      {"RenderMp4",
       "a.mp4",
       {"a.mp4"},
       [](const std::string& o) {
         return std::vector<std::string>{"render", kSkinned, "--out",     o,
                                         "--size", "96x96",  "--seconds", "0.4"};
       },
       true},
      {"DemoGif",
       "a.gif",
       {"a.gif"},
       [](const std::string& o) {
         return std::vector<std::string>{"demo", "--out", o, "--size", "48x48"};
       }},
      {"RetargetToGlb",
       "a.glb",
       {"a.glb"},
       [](const std::string& o) {
         return std::vector<std::string>{"retarget",   kSkinned, kSkinned, "--map",
                                         kIdentityMap, "-o",     o,        "--quiet"};
       }},
      {"CompileToArchive",
       "a.marrow",
       {"a.marrow"},
       [](const std::string& o) {
         return std::vector<std::string>{"compile", kSkinned, "--out", o};
       }},
  };
}

bool have_ffmpeg() {
  return std::system("command -v ffmpeg >/dev/null 2>&1") == 0;
}

class WritingCommands : public ::testing::TestWithParam<WritingCommand> {
 protected:
  void SetUp() override {
    if (GetParam().needs_ffmpeg && !have_ffmpeg()) GTEST_SKIP() << "ffmpeg is not installed";
  }
  std::vector<std::string> args(const std::string& path) const { return GetParam().args(path); }
  Workspace ws;
};

TEST_P(WritingCommands, SuccessLeavesTheFileAndNothingElse) {
  const Outcome o = ws.run(args((ws.out() / GetParam().output).string()));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(ws.listing(), GetParam().written);
}

TEST_P(WritingCommands, FullDeviceFailsClearly) {
  fs::create_symlink("/dev/full", ws.out() / GetParam().output);
  const Outcome o = ws.run(args((ws.out() / GetParam().output).string()));
  // MP4 is written by ffmpeg, which reports the full device in its own words.
  expect_clean_failure(o, GetParam().needs_ffmpeg ? "ffmpeg" : "No space left on device");
  EXPECT_EQ(ws.listing(), std::vector<std::string>{GetParam().output});  // the symlink alone
}

TEST_P(WritingCommands, FullDiskMidwayLeavesTheOldFileAndNoTemporary) {
  const fs::path target = ws.out() / GetParam().output;
  std::ofstream(target) << "old contents";
  const Outcome o = ws.run(args(target.string()), {.file_size_limit = 1000, .stdout_path = {}});
  expect_clean_failure(o, GetParam().needs_ffmpeg ? "ffmpeg" : "File too large");
  EXPECT_EQ(slurp(target), "old contents");
  EXPECT_EQ(ws.listing(), std::vector<std::string>{GetParam().output});
}

TEST_P(WritingCommands, FolderUnderAFileFailsAndCreatesNothing) {
  std::ofstream(ws.out() / "plain.txt") << "a file, not a folder";
  const Outcome o = ws.run(args((ws.out() / "plain.txt" / GetParam().output).string()));
  expect_clean_failure(o, "plain.txt");
  EXPECT_EQ(ws.listing(), std::vector<std::string>{"plain.txt"});
}

TEST_P(WritingCommands, FolderNoOneCanWriteFailsAndCreatesNothing) {
  const fs::path target = fs::path("/proc") / ("marrow-test-" + GetParam().output);
  const Outcome o = ws.run(args(target.string()));
  expect_clean_failure(o, "cannot create a file in '/proc'");
  EXPECT_FALSE(fs::exists(target));
}

TEST_P(WritingCommands, ReadOnlyFolderFailsAndCreatesNothing) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes into a read-only folder; see the /proc case";
  fs::permissions(ws.out(), fs::perms::owner_read | fs::perms::owner_exec);
  const Outcome o = ws.run(args((ws.out() / GetParam().output).string()));
  fs::permissions(ws.out(), fs::perms::owner_all);
  expect_clean_failure(o, "Permission denied");
  EXPECT_TRUE(ws.listing().empty());
}

INSTANTIATE_TEST_SUITE_P(Every, WritingCommands, ::testing::ValuesIn(writing_commands()),
                         [](const auto& info) { return info.param.name; });

// Commands that print their result: output lost to a full disk is a failure, not a success.
TEST(PrintingCommands, StdoutOnAFullDeviceFails) {
  Workspace ws;
  const std::vector<std::vector<std::string>> commands = {
      {"info", kSkinned},
      {"pose", kSkinned, "--times", "0,0.5", "--format", "json"},
      {"check", kSkinned, kSkinned},
      {"autoskin", "--evaluate", kSkinned, "--quiet"},
      {"compile", kSkinned},
      {"play", kSkinned, "--script", kWaveScript},
  };
  for (const auto& args : commands) {
    SCOPED_TRACE(args[0]);
    const Outcome ok = ws.run(args);
    ASSERT_EQ(ok.exit_code, 0) << ok.err;
    ASSERT_FALSE(ok.out.empty());
    const Outcome full =
        ws.run(args, {.file_size_limit = RLIM_INFINITY, .stdout_path = "/dev/full"});
    expect_clean_failure(full, "cannot write standard output: No space left on device");
  }
}

}  // namespace
