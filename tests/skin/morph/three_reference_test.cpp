// marrow's sampled morph weights against three.js's Mesh.morphTargetInfluences (AnimationMixer,
// three 0.187 run through node by three_morph_weights.mjs) for every glTF file with targets:
// the shared sample models and the hand-built cubes (LINEAR, STEP, CUBICSPLINE, sparse), at
// twelve times per clip, within 1e-4.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "morph_test_util.h"
#include "shared_asset.h"

namespace marrow {
namespace {

namespace fs = std::filesystem;
using morph_test::Json;

// Runs the script on `files`; skips the test (saying why) when node or three is missing.
Json three_weights(const std::vector<std::string>& files, std::string& skip) {
  if (std::string(MARROW_NODE).empty() || !fs::exists(MARROW_NODE)) {
    skip = "node is not installed";
    return {};
  }
  if (!fs::exists(std::string(MARROW_THREE_DIR) + "/node_modules/three/package.json")) {
    skip = "the npm package three is not installed in " + std::string(MARROW_THREE_DIR);
    return {};
  }
  std::string command =
      std::string(MARROW_NODE) + " '" + MARROW_THREE_SCRIPT + "' '" + MARROW_THREE_DIR + "'";
  for (const std::string& f : files) command += " '" + f + "'";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  char buf[8192];
  while (pipe && fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pipe ? pclose(pipe) : -1;
  EXPECT_EQ(status, 0) << out;
  return Json::parse(out, nullptr, false);
}

void compare_with_three(const std::vector<std::string>& files) {
  std::string skip;
  const Json ref = three_weights(files, skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_TRUE(ref.contains("files")) << ref.dump();
  std::size_t compared = 0;
  for (const Json& f : ref["files"]) {
    const std::string file = f["file"];
    SCOPED_TRACE(file);
    Result<Asset> asset = load_asset(file);
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    const MorphLayout layout = MorphLayout::build(asset->meshes);
    for (const Json& clip : f["clips"]) {
      const std::size_t c = clip["index"];
      ASSERT_LT(c, asset->clips.size());
      EXPECT_NEAR(asset->clips[c].duration(), clip["duration"].get<double>(), 1e-5);
      for (std::size_t s = 0; s < clip["times"].size(); ++s) {
        const float t = clip["times"][s].get<float>();
        const std::vector<float> w = morph_test::weights_at(*asset, c, t);
        for (const Json& morph : clip["morphs"]) {
          const auto joint = asset->joint_of_source(morph["node"].get<std::int64_t>());
          ASSERT_TRUE(joint);
          const MorphSlots* slots = layout.find(*joint);
          ASSERT_NE(slots, nullptr);
          const Json& influences = morph["influences"][s];
          ASSERT_EQ(influences.size(), slots->count);
          for (std::uint32_t k = 0; k < slots->count; ++k) {
            EXPECT_NEAR(w[slots->first + k], influences[k].get<double>(), 1e-4)
                << "clip " << c << " at " << t << " s, target " << k;
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 0u);
}

TEST(MorphThreeReference, SharedSampleModelsMatchThreeJs) {
  const std::string dir = marrow::test::shared_asset_path("gltf/morph/");
  if (!fs::exists(dir + "AnimatedMorphCube.gltf")) GTEST_SKIP() << dir << " is absent";
  compare_with_three({dir + "AnimatedMorphCube.gltf", dir + "MorphPrimitivesTest.gltf"});
}

TEST(MorphThreeReference, HandBuiltCubesMatchThreeJsForEveryInterpolationAndASparseTarget) {
  const std::string dir = testing::TempDir() + "/morph_three_" + std::to_string(::getpid());
  fs::create_directories(dir);
  const std::string cube = dir + "/two_targets.gltf", sparse = dir + "/sparse_target.gltf";
  std::ofstream(cube) << morph_test::two_target_cube().gltf_text();
  std::ofstream(sparse) << morph_test::sparse_target_cube().gltf_text();
  compare_with_three({cube, sparse});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace marrow
