// `marrow retarget` run as a process: Soldier's Walk onto Xbot written as a .glb that loads with
// the retargeted clip; bad maps, clips and files exit 1 naming the file and leave no output.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "marrow/io/asset.h"
#include "shared_asset.h"

namespace fs = std::filesystem;

namespace {

const fs::path kAssets = marrow::test::shared_asset_dir();

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class RetargetCli : public testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kAssets / "gltf/Soldier.glb") || !fs::exists(kAssets / "gltf/Xbot.glb")) {
      GTEST_SKIP() << kAssets << " lacks Soldier.glb or Xbot.glb";
    }
    dir_ = fs::temp_directory_path() /
           ("marrow_retarget_cli_" +
            std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Outcome run(const std::vector<std::string>& args) const {
    std::string command = quote(MARROW_BIN);
    for (const std::string& a : args) command += " " + quote(a);
    command +=
        " >" + quote((dir_ / "out.txt").string()) + " 2>" + quote((dir_ / "err.txt").string());
    const int status = std::system(command.c_str());
    Outcome o;
    if (status != -1 && WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    o.out = slurp(dir_ / "out.txt");
    o.err = slurp(dir_ / "err.txt");
    return o;
  }
  void expect_failure(const Outcome& o, const std::vector<std::string>& parts) const {
    EXPECT_EQ(o.exit_code, 1) << o.err;
    EXPECT_EQ(o.out, "");
    EXPECT_EQ(o.err.rfind("marrow: ", 0), 0u) << o.err;
    for (const std::string& p : parts) {
      EXPECT_NE(o.err.find(p), std::string::npos) << "'" << p << "' not in: " << o.err;
    }
    EXPECT_FALSE(fs::exists(out())) << "a failed run left " << out();
  }
  fs::path out() const { return dir_ / "xbot_walk.glb"; }
  fs::path dir_;
};

TEST_F(RetargetCli, SoldierWalkOntoXbotWritesAFileWithTheClip) {
  const Outcome o =
      run({"retarget", (kAssets / "gltf/Soldier.glb").string(),
           (kAssets / "gltf/Xbot.glb").string(), "--clip", "Walk", "-o", out().string()});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("reference: clip 'TPose' at t = 0"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("left_forearm: mixamorig:LeftForeArm -> mixamorig:LeftForeArm"),
            std::string::npos);
  EXPECT_NE(o.out.find("target joints left at rest (unmapped): 3"), std::string::npos) << o.out;
  marrow::Result<marrow::Asset> a = marrow::load_asset(out().string());
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->clips.size(), 1u);
  EXPECT_EQ(a->clips[0].name(), "Walk");
  EXPECT_FLOAT_EQ(a->clips[0].duration(), 1.0f);
  EXPECT_EQ(a->skeleton.size(), 68u);  // Xbot's skeleton, with its meshes
  EXPECT_EQ(a->meshes.size(), 2u);
}

TEST_F(RetargetCli, BadMapsClipsAndFilesFailCleanly) {
  const std::string soldier = (kAssets / "gltf/Soldier.glb").string();
  const std::string xbot = (kAssets / "gltf/Xbot.glb").string();
  const fs::path map = dir_ / "map.json";
  std::ofstream(map) << R"({"joints": {"mixamorig:Nope": "mixamorig:Hips"}})";
  expect_failure(run({"retarget", soldier, xbot, "--map", map.string(), "-o", out().string()}),
                 {map.string(), "no joint 'mixamorig:Nope'"});
  std::ofstream(map) << R"({"joints": {"mixamorig:LeftHand": "mixamorig:Head",
                                       "mixamorig:RightHand": "mixamorig:Head"}})";
  expect_failure(run({"retarget", soldier, xbot, "--map", map.string(), "-o", out().string()}),
                 {map.string(), "many-to-one"});
  std::ofstream(map) << "{ not json";
  expect_failure(run({"retarget", soldier, xbot, "--map", map.string(), "-o", out().string()}),
                 {map.string() + ":1:"});
  expect_failure(run({"retarget", soldier, xbot, "--clip", "Dance", "-o", out().string()}),
                 {"no clip 'Dance'"});
  expect_failure(
      run({"retarget", soldier, (kAssets / "x/Testwuson.X").string(), "-o", out().string()}),
      {"target", "no hips", "A map to complete", "\"target\": {", "\"left_foot\": \"?\""});
  // Soldier's rest pose is turned 45 degrees: as a reference it cannot say which way is forward.
  expect_failure(run({"retarget", soldier, xbot, "--source-pose", "rest", "-o", out().string()}),
                 {"not upright", "T-pose"});
  expect_failure(run({"retarget", soldier, xbot, "--root-scale", "-2", "-o", out().string()}),
                 {"--root-scale"});
  expect_failure(run({"retarget", (dir_ / "missing.glb").string(), xbot, "-o", out().string()}),
                 {"missing.glb"});
}

TEST_F(RetargetCli, JointsAddressedByIndexAndPathInAMap) {
  // Xbot's head by its index and its spine by a path tail: the same parts as by name.
  const std::string soldier = (kAssets / "gltf/Soldier.glb").string();
  const std::string xbot = (kAssets / "gltf/Xbot.glb").string();
  marrow::Result<marrow::Asset> a = marrow::load_asset(xbot);
  ASSERT_TRUE(a.ok()) << a.error().message;
  const std::optional<marrow::JointIndex> head = a->skeleton.find("mixamorig:Head");
  ASSERT_TRUE(head.has_value());
  const fs::path map = dir_ / "map.json";
  std::ofstream(map) << R"({"target": {"head": "#)" << *head
                     << R"(", "spine": ["mixamorig:Hips/mixamorig:Spine", "mixamorig:Spine1",
                                        "mixamorig:Spine2"]}})";
  const Outcome o = run(
      {"retarget", soldier, xbot, "--map", map.string(), "-o", out().string(), "--clip", "Walk"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("head: mixamorig:Head -> mixamorig:Head"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("spine: mixamorig:Spine mixamorig:Spine1 mixamorig:Spine2 -> "
                       "mixamorig:Spine mixamorig:Spine1 mixamorig:Spine2"),
            std::string::npos)
      << o.out;
  fs::remove(out());
  std::ofstream(map) << R"({"target": {"head": "#100000"}})";
  expect_failure(run({"retarget", soldier, xbot, "--map", map.string(), "-o", out().string()}),
                 {map.string(), "part 'head'", "joint '#100000': the skeleton has"});
}

TEST_F(RetargetCli, ACharacterCreatorCaptureIsReferencedAtItsFirstFrame) {
  const fs::path capture = kAssets / "bvh/cmu_iclone/002_01.bvh";
  if (!fs::exists(capture)) GTEST_SKIP() << capture << " is absent";
  const Outcome o = run(
      {"retarget", capture.string(), (kAssets / "gltf/Xbot.glb").string(), "-o", out().string()});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("reference: clip '002_01' at t = 0"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("left_thigh: CC_Base_L_Thigh -> mixamorig:LeftUpLeg"), std::string::npos)
      << o.out;
  EXPECT_TRUE(fs::exists(out()));
}

}  // namespace
