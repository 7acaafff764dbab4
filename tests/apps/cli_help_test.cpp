// What `marrow --help`, `--version` and each subcommand's help say, and that a command that does
// not exist is an error naming it, even with --help.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <regex>
#include <sstream>

#include "base/sanitizer_build.h"
#include "run_process.h"
#include "shared_asset.h"

using namespace marrow_test;

namespace {

const std::vector<std::string> kCommands = {"info",    "pose",    "demo",     "check",
                                            "convert", "render",  "autoskin", "retarget",
                                            "play",    "compile", "match"};

}  // namespace

TEST(CliHelp, MainHelpNamesTheFormatsAndEveryCommand) {
  Scratch s("help");
  const Outcome o = run(s, {"--help"});
  EXPECT_EQ(o.exit_code, 0);
  for (const char* format : {"glTF", ".X", "BVH", "FBX", "Collada", "MD5", "SMD", "OBJ"}) {
    EXPECT_NE(o.out.find(format), std::string::npos) << format << " not in:\n" << o.out;
  }
  EXPECT_EQ(o.out.find("from glTF files"), std::string::npos) << o.out;
  for (const std::string& c : kCommands) EXPECT_NE(o.out.find(c), std::string::npos) << c;
}

TEST(CliHelp, EachCommandsHelpEndsWithAWorkedExampleOfThatCommand) {
  Scratch s("sub_help");
  for (const std::string& c : kCommands) {
    const Outcome o = run(s, {c, "--help"});
    EXPECT_EQ(o.exit_code, 0) << c;
    const std::size_t at = o.out.rfind("Example:\n  marrow " + c + " ");
    ASSERT_NE(at, std::string::npos) << c << ":\n" << o.out;
    // The example is the last thing: one line after "Example:".
    const std::string tail = o.out.substr(at);
    EXPECT_EQ(std::count(tail.begin(), tail.end(), '\n'), 2) << c << ":\n" << tail;
  }
}

TEST(CliHelp, AnUnknownCommandIsAnErrorEvenWithHelp) {
  Scratch s("unknown");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"retargetx", "--help"}, std::vector<std::string>{"retargetx"},
        std::vector<std::string>{"--help", "frobnicate"}}) {
    const Outcome o = run(s, args);
    EXPECT_EQ(o.exit_code, 1) << args[0];
    EXPECT_EQ(o.out, "");
    EXPECT_NE(o.err.find("unknown command '" + (args[0] == "--help" ? args[1] : args[0]) + "'"),
              std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("render"), std::string::npos) << o.err;  // lists the real ones
  }
}

TEST(CliHelp, VersionPrintsTheVersionFormatsAndSimdLevel) {
  Scratch s("version");
  const Outcome o = run(s, {"--version"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("^marrow [0-9]+\\.[0-9]+\\.[0-9]+\n"))) << o.out;
  for (const char* ext :
       {".gltf", ".glb", ".x", ".bvh", ".fbx", ".dae", ".md5mesh", ".smd", ".obj", ".marrow"}) {
    EXPECT_NE(o.out.find(std::string(" ") + ext), std::string::npos) << ext;
  }
  EXPECT_NE(o.out.find("writes: .glb .gltf .marrow"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("simd: "), std::string::npos) << o.out;
}

// A usage mistake is a failure like any other: one "marrow: COMMAND: ..." line that says where to
// look, exit code 1 (not CLI11's 104-109), nothing on stdout, for every command.
TEST(CliHelp, UsageErrorsAreOneMarrowLineWithExitCodeOne) {
  Scratch s("usage_errors");
  for (const std::string& c : kCommands) {
    const Outcome o = run(s, {c, "--no-such-option", "a.glb", "b.glb"});
    EXPECT_EQ(o.exit_code, 1) << c << ": " << o.err;
    EXPECT_EQ(o.out, "") << c;
    EXPECT_EQ(o.err.rfind("marrow: " + c + ": ", 0), 0u) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find("(see marrow " + c + " --help)"), std::string::npos) << o.err;
  }
  const Outcome none = run(s, {});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.err, "marrow: a subcommand is required (see marrow --help)\n");
  const Outcome bad_value = run(s, {"pose", "x.glb", "--format", "yaml"});
  EXPECT_EQ(bad_value.exit_code, 1);
  EXPECT_NE(bad_value.err.find("marrow: pose: --format: yaml not in {text,json}"),
            std::string::npos)
      << bad_value.err;
}

TEST(CliHelp, UsageLinesNameTheProgramNotThePathItWasRunBy) {
  Scratch s("usage_name");
  for (const std::string& c : kCommands) {
    const Outcome o = run(s, {c, "--help"});
    EXPECT_NE(o.out.find("Usage: marrow " + c + " "), std::string::npos) << o.out;
  }
  EXPECT_NE(run(s, {"--help"}).out.find("Usage: marrow [OPTIONS]"), std::string::npos);
}

// Each command's --help example, run as written with its file names pointed at the shared
// assets: it succeeds and makes what it says (a file, or a report on stdout). An example that
// demonstrates a failure teaches the wrong thing.
TEST(CliHelp, EveryHelpExampleSucceeds) {
#if defined(MARROW_ADDRESS_SANITIZER)
  // The examples run whole commands (a heat-diffusion bind, a GIF, the demo) whose code the
  // commands' own tests already run under the sanitizers; here they would only cost CI time.
  GTEST_SKIP() << "run by the Release suite";
#endif
  const std::string gltf = marrow::test::shared_asset_path("gltf/");
  std::map<std::string, std::string> files = {
      {"Soldier.glb", gltf + "Soldier.glb"},
      {"Xbot.glb", gltf + "Xbot.glb"},
      {"walk_to_run.json",
       std::string(MARROW_SOURCE_DIR) + "/examples/scripts/soldier_walk_to_run.json"},
      {"assets/", gltf + "morph"}};
  // The match example's CMU takes (docs/motion_matching.md).
  const std::string cmu = marrow::test::shared_asset_path("bvh/cmu_iclone/");
  for (const char* take : {"002_01.bvh", "007_01.bvh", "006_10.bvh"})
    files.emplace(take, cmu + take);
  for (const auto& [name, path] : files)
    if (!fs::exists(path)) GTEST_SKIP() << "no " << path;
  Scratch s("examples");
  for (const std::string& c : kCommands) {
    const std::string help = run(s, {c, "--help"}).out;
    const std::size_t at = help.rfind("Example:\n  marrow ");
    ASSERT_NE(at, std::string::npos) << c;
    std::istringstream words(help.substr(at + std::strlen("Example:\n  marrow ")));
    std::vector<std::string> args;
    std::string output;  // the file or folder the example writes
    for (std::string word; words >> word;) {
      if (files.count(word))
        word = files.at(word);
      else if (!args.empty() && (args.back() == "-o" || args.back() == "--out" ||
                                 word.find('/') != std::string::npos))
        word = (s.dir / word).string(), output = word;
      args.push_back(word);
    }
    const Outcome o = run(s, args);
    EXPECT_EQ(o.exit_code, 0) << c << ": " << o.err;
    if (!output.empty())
      EXPECT_TRUE(fs::exists(output) && (fs::is_directory(output) || fs::file_size(output) > 0))
          << c << " did not write " << output;
    else
      EXPECT_GT(o.out.size(), 20u) << c << " printed no report";
  }
}
