// `marrow autoskin` run as a process: bind an OBJ tube to a glTF skeleton, read the result back.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "marrow/io/asset.h"
#include "shared_asset.h"
#include "test_meshes.h"

namespace marrow {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int exit_code;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

Outcome run_marrow(const fs::path& dir, const std::string& args) {
  const std::string cmd = std::string(MARROW_BIN) + " " + args + " >" +
                          (dir / "stdout.txt").string() + " 2>" + (dir / "stderr.txt").string();
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "stdout.txt"),
          slurp(dir / "stderr.txt")};
}

class AutoskinCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("marrow_autoskin_cli_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // A tube along +y from 0 to 2 as OBJ.
    test::TestMesh tube;
    test::add_tube(tube, 0, 0, 0, 2, 0.15f, 0.15f, 21, 12);
    std::ofstream obj(dir_ / "tube.obj");
    for (Vec3 p : tube.positions) obj << "v " << p.x << " " << p.y << " " << p.z << "\n";
    for (std::size_t i = 0; i < tube.indices.size(); i += 3)
      obj << "f " << tube.indices[i] + 1 << " " << tube.indices[i + 1] + 1 << " "
          << tube.indices[i + 2] + 1 << "\n";
    vertices_ = tube.positions.size();
    // The same tube in centimetres, and 2.5 times as tall.
    for (auto [name, scale] :
         {std::pair{"tube_cm.obj", 100.0f}, std::pair{"tube_tall.obj", 2.5f}}) {
      std::ofstream scaled(dir_ / name);
      for (Vec3 p : tube.positions)
        scaled << "v " << p.x * scale << " " << p.y * scale << " " << p.z * scale << "\n";
      for (std::size_t i = 0; i < tube.indices.size(); i += 3)
        scaled << "f " << tube.indices[i] + 1 << " " << tube.indices[i + 1] + 1 << " "
               << tube.indices[i + 2] + 1 << "\n";
    }
    // root (0,0,0) -> mid (0,1,0) -> tip (0,2,0), and a clip bending mid.
    std::ofstream gltf(dir_ / "skeleton.gltf");
    gltf << R"({"asset": {"version": "2.0"},
  "nodes": [{"name": "root", "children": [1]}, {"name": "mid", "translation": [0, 1, 0], "children": [2]},
            {"name": "tip", "translation": [0, 1, 0]}],
  "buffers": [{"byteLength": 40, "uri": "data:application/octet-stream;base64,AAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAADzBDU/8wQ1Pw=="}],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 32}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
                {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC4"}],
  "animations": [{"name": "Bend", "samplers": [{"input": 0, "output": 1}],
                  "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]})";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::size_t vertices_ = 0;
};

TEST_F(AutoskinCommand, BindsAnObjToASkeletonAndWritesASkinnedGlb) {
  for (const char* method : {"proximity", "heat"}) {
    const fs::path out = dir_ / (std::string(method) + ".glb");
    const Outcome o = run_marrow(dir_, "autoskin " + (dir_ / "tube.obj").string() + " --skeleton " +
                                           (dir_ / "skeleton.gltf").string() + " --method " +
                                           method + " -o " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    EXPECT_NE(o.out.find("bound to 3 bones"), std::string::npos) << o.out;
    Result<Asset> a = load_asset(out.string());
    ASSERT_TRUE(a.ok()) << a.error().message;
    ASSERT_EQ(a->skins.size(), 1u);
    ASSERT_EQ(a->meshes.size(), 1u);
    ASSERT_EQ(a->clips.size(), 1u);
    EXPECT_EQ(a->clips[0].name(), "Bend");
    const SkinnedMesh& m = a->meshes[0];
    EXPECT_EQ(m.skin, 0);
    ASSERT_EQ(m.vertex_count(), vertices_);
    ASSERT_EQ(m.influence_offsets.size(), vertices_ + 1);
    for (std::size_t v = 0; v < vertices_; ++v) {
      float sum = 0;
      for (auto i = m.influence_offsets[v]; i < m.influence_offsets[v + 1]; ++i)
        sum += m.influence_weights[i];
      ASSERT_NEAR(sum, 1.0f, 1e-3f) << method << " vertex " << v;
      // Low on the tube: the root joint alone (skin joint 0 is root).
      if (m.positions[v].y < 0.3f) {
        ASSERT_EQ(m.influence_offsets[v + 1] - m.influence_offsets[v], 1u) << method;
        EXPECT_EQ(a->skins[0].joints[m.influence_joints[m.influence_offsets[v]]],
                  *a->skeleton.find("root"));
      }
    }
  }
}

TEST_F(AutoskinCommand, BadArgumentsFailClearlyAndWriteNothing) {
  const fs::path out = dir_ / "out.glb";
  const std::string mesh = (dir_ / "tube.obj").string(), skel = (dir_ / "skeleton.gltf").string();
  Outcome o = run_marrow(dir_, "autoskin " + mesh + " -o " + out.string());
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("--skeleton"), std::string::npos) << o.err;
  o = run_marrow(dir_, "autoskin " + mesh + " --skeleton " + skel +
                           " --method proximity --range nobody=0:1 -o " + out.string());
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("no joint named 'nobody'"), std::string::npos) << o.err;
  o = run_marrow(
      dir_, "autoskin " + mesh + " --skeleton " + skel + " --range mid=0.9:0.1 -o " + out.string());
  EXPECT_NE(o.exit_code, 0);
  o = run_marrow(dir_, "autoskin " + (dir_ / "missing.obj").string() + " --skeleton " + skel +
                           " -o " + out.string());
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("missing.obj"), std::string::npos) << o.err;
  o = run_marrow(dir_, "autoskin --evaluate " + mesh);  // an OBJ has no artist weights
  EXPECT_NE(o.exit_code, 0);
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(AutoskinCommand, PerBoneRangeOverrideChangesTheWeights) {
  const std::string mesh = (dir_ / "tube.obj").string(), skel = (dir_ / "skeleton.gltf").string();
  const fs::path a = dir_ / "a.glb", b = dir_ / "b.glb";
  ASSERT_EQ(run_marrow(dir_, "autoskin " + mesh + " --skeleton " + skel +
                                 " --method proximity --quiet -o " + a.string())
                .exit_code,
            0);
  ASSERT_EQ(
      run_marrow(dir_, "autoskin " + mesh + " --skeleton " + skel +
                           " --method proximity --quiet --range mid=0:1 --range root=0:1 -o " +
                           b.string())
          .exit_code,
      0);
  auto wa = load_asset(a.string()), wb = load_asset(b.string());
  ASSERT_TRUE(wa.ok() && wb.ok());
  // With [0, 1] on both bones every vertex has one influence; by default some near the joint
  // have two.
  EXPECT_GT(wa->meshes[0].max_influences(), 1u);
  EXPECT_EQ(wb->meshes[0].max_influences(), 1u);
}

TEST_F(AutoskinCommand, EvaluatePrintsTheMetricsAsTextAndJson) {
  const std::string rigged = marrow::test::shared_asset_path("gltf/rigged_simple.gltf");
  const std::string clips = marrow::test::shared_asset_path("gltf/cesium_man.gltf");
  if (!fs::exists(rigged)) GTEST_SKIP() << "rigged_simple.gltf is absent from ../shared/assets";
  Outcome o = run_marrow(dir_, "autoskin --evaluate " + rigged + " --method proximity --quiet");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("2 bones, 160 vertices"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("1 clips, 64 frames at 30 Hz"), std::string::npos) << o.out;
  o = run_marrow(dir_, "autoskin --evaluate " + rigged + " --method heat --format json --quiet");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("\"method\": \"heat\""), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"frames\": 64"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"mean_l1\": "), std::string::npos) << o.out;
  // Clips from a file whose joints share no name with this skeleton: a clear error.
  if (fs::exists(clips)) {
    o = run_marrow(dir_, "autoskin --evaluate " + rigged + " --clips " + clips + " --quiet");
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find("no clip animates a joint"), std::string::npos) << o.err;
  }
}

// The tube is 2 units tall, the skeleton's joints span 2 m (glTF's unit). In centimetres the
// tube is 200 across, 100 times the skeleton: refused with both sizes, bound with --force.
// 2.5 times as tall (5 against 2) is within the factor of 3 and binds without a word.
TEST_F(AutoskinCommand, ASkeletonInOtherUnitsIsRefusedUnlessForced) {
  const std::string skel = (dir_ / "skeleton.gltf").string();
  const std::string cm = (dir_ / "tube_cm.obj").string();
  const fs::path out = dir_ / "out.glb";
  Outcome o = run_marrow(dir_, "autoskin " + cm + " --skeleton " + skel + " -o " + out.string());
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("the mesh (" + cm + ") is 200 units across and the skeleton (" + skel +
                       ") 2 m, 100 times smaller: are they in the same units?"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("--force"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(out));

  o = run_marrow(dir_, "autoskin " + cm + " --skeleton " + skel +
                           " --method proximity --force -o " + out.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("marrow: warning: autoskin: the mesh"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("bound as given (--force)"), std::string::npos) << o.err;
  EXPECT_TRUE(fs::exists(out));

  o = run_marrow(dir_, "autoskin " + (dir_ / "tube_tall.obj").string() + " --skeleton " + skel +
                           " --method proximity -o " + (dir_ / "tall.glb").string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.err.find("same units"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace marrow
