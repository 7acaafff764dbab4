// The controller fuzz targets' seeds must run, not stop at their first member: a seed that the
// parser refuses only teaches the fuzzer a parse error (docs/reliability.md, "Coverage"). Each
// script seed, and each state machine seed on the stage its target builds (read from the target's
// source, so the two cannot drift apart), is played by `marrow play` on Soldier.glb, whose clips
// carry the fuzz character's names (Idle, Walk, Run, TPose; mixamorig: joints).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
#include "../common/whole_file.h"
#include "shared_asset.h"

namespace {

namespace fs = std::filesystem;

const fs::path kSoldier = (marrow::test::shared_asset_dir() / "gltf/Soldier.glb");
const fs::path kSeedDir = fs::path(MARROW_SOURCE_DIR) / "fuzz/seeds";

std::string read_whole_file(const fs::path& p) {
  return marrow::test::whole_file<std::string>(p);
}

std::vector<fs::path> seeds(const std::string& target) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kSeedDir / target)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Runs `marrow play Soldier.glb --script script`; returns "" or what went wrong.
std::string play(const fs::path& script, const fs::path& scratch) {
  const fs::path err = scratch / "stderr";
  const std::string command = std::string(MARROW_BIN) + " play '" + kSoldier.string() +
                              "' --script '" + script.string() + "' >/dev/null 2>'" + err.string() +
                              "'";
  const int status = std::system(command.c_str());
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return "exit status " + std::to_string(status) + ": " + read_whole_file(err);
}

class Scratch {
 public:
  Scratch() : path_(fs::temp_directory_path() / ("marrow_seeds_" + std::to_string(getpid()))) {
    fs::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(ControlFuzzSeeds, EveryScriptSeedPlaysToItsEnd) {
  if (!fs::exists(kSoldier)) GTEST_SKIP() << kSoldier << " is absent";
  const Scratch scratch;
  for (const fs::path& seed : seeds("animation_script")) {
    EXPECT_EQ(play(seed, scratch.path()), "") << seed;
  }
}

TEST(ControlFuzzSeeds, EveryStateMachineSeedPlaysOnTheTargetsStage) {
  if (!fs::exists(kSoldier)) GTEST_SKIP() << kSoldier << " is absent";
  const std::string source =
      read_whole_file(fs::path(MARROW_SOURCE_DIR) / "fuzz/targets/state_machine.cpp");
  const std::size_t open = source.find("R\"({"), close = source.find("})\";");
  ASSERT_NE(open, std::string::npos) << "the stage's raw string in the state_machine target";
  ASSERT_NE(close, std::string::npos);
  std::string stage = source.substr(open + 3, close + 1 - (open + 3));
  // The stage is a script; name the machine's file as its state_machine member.
  const std::size_t last_brace = stage.rfind('}');
  const Scratch scratch;
  for (const fs::path& seed : seeds("state_machine")) {
    fs::copy_file(seed, scratch.path() / "machine.json", fs::copy_options::overwrite_existing);
    std::ofstream(scratch.path() / "stage.json")
        << stage.substr(0, last_brace) << ", \"state_machine\": \"machine.json\"}";
    EXPECT_EQ(play(scratch.path() / "stage.json", scratch.path()), "") << seed;
  }
}

}  // namespace
