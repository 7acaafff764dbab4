// glTF morph targets: the hand-built Khronos-style cubes and the shared sample models, with
// sampled weights and morphed positions against values worked out by hand from the glTF 2.0
// spec (within 1e-5), names, default weights, node weights, sparseness, and the command line.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "marrow/io/pose_dump.h"
#include "morph_test_util.h"
#include "shared_asset.h"

namespace marrow {
namespace {

using morph_test::load;
using morph_test::weights_at;

constexpr float kTol = 1e-5f;

// Morphed positions of mesh 0 at weights `w` through the run-time path (MorphMesh + MorphJob).
std::vector<Vec3> morphed(const Asset& a, std::span<const float> w) {
  const MorphLayout layout = MorphLayout::build(a.meshes);
  Result<MorphMesh> mm = MorphMesh::build(a.meshes[0]);
  EXPECT_TRUE(mm.ok());
  if (!mm.ok()) return {};
  MorphedVertices out = MorphedVertices::create(*mm);
  EXPECT_TRUE((MorphJob{&*mm, layout.weights_of(a.meshes[0], w), &out}.run()));
  out.positions.resize(a.meshes[0].vertex_count());
  return out.positions;
}

void expect_near(Vec3 got, Vec3 want) {
  EXPECT_NEAR(got.x, want.x, kTol);
  EXPECT_NEAR(got.y, want.y, kTol);
  EXPECT_NEAR(got.z, want.z, kTol);
}

TEST(GltfMorph, CubeTargetsNamesAndDefaultsAreRead) {
  const Asset a = load(morph_test::two_target_cube(), "cube.gltf");
  ASSERT_EQ(a.meshes.size(), 1u);
  const SkinnedMesh& m = a.meshes[0];
  ASSERT_EQ(m.morph_targets.size(), 2u);
  EXPECT_EQ(m.morph_targets[0].name, "up");
  EXPECT_EQ(m.morph_targets[1].name, "wide");
  // Sparse in memory: only the four vertices each target moves.
  EXPECT_EQ(m.morph_targets[0].vertices, (std::vector<std::uint32_t>{2, 3, 6, 7}));
  EXPECT_EQ(m.morph_targets[1].vertices, (std::vector<std::uint32_t>{1, 3, 5, 7}));
  EXPECT_EQ(m.default_morph_weights, (std::vector<float>{0.25f, 0}));
  EXPECT_EQ(a.clips.size(), 3u);
  for (const Clip& c : a.clips) {
    EXPECT_TRUE(c.tracks().empty());
    ASSERT_EQ(c.weight_tracks().size(), 1u);
    EXPECT_EQ(c.weight_tracks()[0].weight_count, 2u);
  }
  for (const std::string& w : a.warnings) EXPECT_EQ(w.find("morph"), std::string::npos) << w;
}

// What --morph, scripts and Python name targets by: every slot of a name (two meshes of one
// face share names), or one slot by "#N"; an error lists the names there are.
TEST(GltfMorph, SlotsAreFoundByTargetNameOrNumber) {
  Asset a = load(morph_test::two_target_cube(), "cube.gltf");
  a.meshes.push_back(a.meshes[0]);  // a second mesh with the same targets on another node
  a.meshes[1].node = a.meshes[0].node == 0 ? 1 : 0;
  const MorphLayout layout = MorphLayout::build(a.meshes);
  ASSERT_EQ(layout.weight_count(), 4u);
  const Result<std::vector<std::uint32_t>> wide = layout.find_slots("wide");
  ASSERT_TRUE(wide.ok()) << wide.error().message;
  EXPECT_EQ(*wide, (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(*layout.find_slots("#2"), (std::vector<std::uint32_t>{2}));
  const Result<std::vector<std::uint32_t>> missing = layout.find_slots("smile");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "no morph target 'smile' (targets: 'up', 'wide'; by slot: #0..#3)");
  EXPECT_FALSE(layout.find_slots("#4").ok());
  EXPECT_FALSE(layout.find_slots("#").ok());
  EXPECT_FALSE(layout.find_slots("").ok());
}

TEST(GltfMorph, LinearWeightsAndPositionsMatchHandValues) {
  const Asset a = load(morph_test::two_target_cube(), "cube.gltf");
  // Keys (0, 0) at 0 s, (1, 0.5) at 1 s, (0.5, 1) at 2 s.
  const struct {
    float t, up, wide;
  } expected[] = {{0, 0, 0},    {0.5f, 0.5f, 0.25f}, {1, 1, 0.5f}, {1.5f, 0.75f, 0.75f},
                  {2, 0.5f, 1}, {3, 0.5f, 1}};
  for (const auto& e : expected) {
    const std::vector<float> w = weights_at(a, 0, e.t);
    EXPECT_NEAR(w[0], e.up, kTol) << e.t;
    EXPECT_NEAR(w[1], e.wide, kTol) << e.t;
  }
  // Vertex 7 (0.5, 0.5, 0.5) at 0.5 s: + 0.5 (0, 1, 0) + 0.25 (0.5, 0, 0) = (0.625, 1, 0.5);
  // vertex 0 (-0.5, -0.5, -0.5) moves with neither target.
  const std::vector<Vec3> p = morphed(a, weights_at(a, 0, 0.5f));
  expect_near(p[7], {0.625f, 1, 0.5f});
  expect_near(p[2], {-0.5f, 1, -0.5f});
  expect_near(p[1], {0.625f, -0.5f, -0.5f});
  expect_near(p[0], {-0.5f, -0.5f, -0.5f});
}

TEST(GltfMorph, StepWeightsHoldTheirKey) {
  const Asset a = load(morph_test::two_target_cube(), "cube.gltf");
  const std::vector<float> w = weights_at(a, 1, 1.999f);
  EXPECT_EQ(w[0], 1);
  EXPECT_EQ(w[1], 0.5f);
  EXPECT_EQ(weights_at(a, 1, 0.999f)[0], 0);
  EXPECT_EQ(weights_at(a, 1, 2)[1], 1);
  const std::vector<Vec3> p = morphed(a, weights_at(a, 1, 1.5f));
  expect_near(p[7], {0.75f, 1.5f, 0.5f});
}

TEST(GltfMorph, CubicSplineWeightsFollowTheSpecsHermite) {
  const Asset a = load(morph_test::two_target_cube(), "cube.gltf");
  // td = 2; key 0: v0 = (0, 0), b0 = (1, -1); key 1: a1 = (2, 0), v1 = (1, 1).
  // t = 0.5, s = 0.25: h10 = 0.140625, h01 = 0.15625, h11 = -0.046875:
  //   up   = 2 (0.140625) (1) + 0.15625 (1) + 2 (-0.046875) (2) = 0.25
  //   wide = 2 (0.140625) (-1) + 0.15625 (1) + 0                  = -0.125
  // t = 1, s = 0.5: h10 = 0.125, h01 = 0.5, h11 = -0.125:
  //   up   = 0.25 + 0.5 - 0.5 = 0.25,  wide = -0.25 + 0.5 = 0.25
  std::vector<float> w = weights_at(a, 2, 0.5f);
  EXPECT_NEAR(w[0], 0.25f, kTol);
  EXPECT_NEAR(w[1], -0.125f, kTol);  // negative weights are kept: nothing is clamped
  w = weights_at(a, 2, 1.0f);
  EXPECT_NEAR(w[0], 0.25f, kTol);
  EXPECT_NEAR(w[1], 0.25f, kTol);
  EXPECT_NEAR(weights_at(a, 2, 2)[0], 1, kTol);
  // Vertex 3 (0.5, 0.5, -0.5) at 0.5 s: + 0.25 (0, 1, 0) - 0.125 (0.5, 0, 0).
  const std::vector<Vec3> p = morphed(a, weights_at(a, 2, 0.5f));
  expect_near(p[3], {0.4375f, 0.75f, -0.5f});
}

TEST(GltfMorph, SparseTargetStaysSparse) {
  const Asset a = load(morph_test::sparse_target_cube(), "sparse.gltf");
  ASSERT_EQ(a.meshes.size(), 1u);
  const MorphTarget& t = a.meshes[0].morph_targets.at(0);
  EXPECT_EQ(t.vertices, (std::vector<std::uint32_t>{1, 6}));
  ASSERT_EQ(t.position_deltas.size(), 2u);
  EXPECT_EQ(t.position_deltas[1], (Vec3{0, 2, 0}));
  // 0.3 s into a 0 -> 1 ramp: weight 0.3; vertex 6 (-0.5, 0.5, 0.5) + 0.3 (0, 2, 0).
  const std::vector<float> w = weights_at(a, 0, 0.3f);
  EXPECT_NEAR(w[0], 0.3f, kTol);
  const std::vector<Vec3> p = morphed(a, w);
  expect_near(p[6], {-0.5f, 1.1f, 0.5f});
  expect_near(p[1], {0.5f, -0.5f, -0.2f});
  expect_near(p[5], {0.5f, -0.5f, 0.5f});
}

TEST(GltfMorph, NodeWeightsOverrideTheMeshsDefaults) {
  morph_test::Builder b = morph_test::two_target_cube();
  b.doc["nodes"][0]["weights"] = {0.5, 0.75};
  const Asset a = load(b, "cube.gltf");
  EXPECT_EQ(a.meshes[0].default_morph_weights, (std::vector<float>{0.5f, 0.75f}));
}

TEST(GltfMorph, SharedAnimatedMorphCube) {
  const std::string path = marrow::test::shared_asset_path("gltf/morph/AnimatedMorphCube.gltf");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  Result<Asset> a = load_asset(path);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->meshes.size(), 1u);
  const SkinnedMesh& m = a->meshes[0];
  ASSERT_EQ(m.morph_targets.size(), 2u);
  EXPECT_EQ(m.morph_targets[0].normal_deltas.size(), m.morph_targets[0].vertices.size());
  EXPECT_EQ(m.morph_targets[0].tangent_deltas.size(), m.morph_targets[0].vertices.size());
  ASSERT_EQ(a->clips.size(), 1u);
  const Clip& clip = a->clips[0];
  ASSERT_EQ(clip.weight_tracks().size(), 1u);
  // The file's own keys (accessor 11: two weights per key, LINEAR): at every key time the
  // sampled weights are the stored ones, and half way between two keys their mean.
  const WeightTrack& track = clip.weight_tracks()[0];
  const auto times = clip.times().subspan(track.first_key, track.key_count);
  const auto values = clip.values().subspan(track.first_value, track.key_count * 2u);
  EXPECT_EQ(track.key_count, 127u);
  for (std::uint32_t k = 0; k + 1 < track.key_count; k += 9) {
    const std::vector<float> at_key = weights_at(*a, 0, times[k]);
    EXPECT_NEAR(at_key[0], values[k * 2], kTol);
    const std::vector<float> mid = weights_at(*a, 0, 0.5f * (times[k] + times[k + 1]));
    EXPECT_NEAR(mid[1], 0.5f * (values[k * 2 + 1] + values[k * 2 + 3]), kTol);
  }
  // Morphed positions: the run-time kernel against base + sum w * delta, vertex by vertex.
  for (float t : {0.5f, 1.6f, 2.9f}) {
    const std::vector<float> w = weights_at(*a, 0, t);
    const std::vector<Vec3> p = morphed(*a, w);
    std::vector<Vec3> expected = m.positions;
    for (std::size_t k = 0; k < m.morph_targets.size(); ++k) {
      const MorphTarget& target = m.morph_targets[k];
      for (std::size_t i = 0; i < target.vertices.size(); ++i)
        expected[target.vertices[i]] += target.position_deltas[i] * w[k];
    }
    for (std::size_t v = 0; v < m.vertex_count(); ++v) expect_near(p[v], expected[v]);
  }
}

TEST(GltfMorph, SharedMorphPrimitivesTestGivesEachPrimitiveTheNodesWeights) {
  const std::string path = marrow::test::shared_asset_path("gltf/morph/MorphPrimitivesTest.gltf");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  Result<Asset> a = load_asset(path);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->meshes.size(), 2u);
  const MorphLayout layout = MorphLayout::build(a->meshes);
  ASSERT_EQ(layout.slots().size(), 1u);
  EXPECT_EQ(layout.weight_count(), 1u);
  EXPECT_EQ(layout.default_weights()[0], 0.5f);  // the mesh's "weights": [0.5]
  for (const SkinnedMesh& m : a->meshes) {
    ASSERT_EQ(m.morph_targets.size(), 1u);
    EXPECT_LT(m.morph_targets[0].vertices.size(), m.vertex_count());
  }
}

std::string run(const std::string& args) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(
      popen((std::string(MARROW_BIN) + " " + args + " 2>&1").c_str(), "r"), pclose);
  char buf[4096];
  while (pipe && fgets(buf, sizeof buf, pipe.get())) out += buf;
  return out;
}

TEST(GltfMorph, InfoListsTargetsAndPosePrintsWeights) {
  const std::string dir = testing::TempDir();
  const std::string file = dir + "/morph_cube.gltf";
  { std::ofstream(file) << morph_test::two_target_cube().gltf_text(); }
  const std::string info = run("info " + file);
  EXPECT_NE(info.find("2 morph targets"), std::string::npos) << info;
  EXPECT_NE(info.find("target 0 'up': moves 4 of 8 vertices"), std::string::npos) << info;
  EXPECT_NE(info.find("target 1 'wide'"), std::string::npos) << info;
  EXPECT_NE(info.find("1 morph weight channels (2 weights)"), std::string::npos) << info;
  const std::string json = run("pose " + file + " --clip linear --times 0.5,1.5 --format json");
  const auto j = gltf_test::Json::parse(json);
  ASSERT_EQ(j["morphs"].size(), 1u);
  EXPECT_EQ(j["morphs"][0]["name"], "cube");
  EXPECT_EQ(j["morphs"][0]["targets"], (gltf_test::Json{"up", "wide"}));
  EXPECT_NEAR(j["samples"][0]["weights"][0][0].get<double>(), 0.5, 1e-6);
  EXPECT_NEAR(j["samples"][0]["weights"][0][1].get<double>(), 0.25, 1e-6);
  EXPECT_NEAR(j["samples"][1]["weights"][0][1].get<double>(), 0.75, 1e-6);
  // A layered pose blends the weights too: half of "linear" at 0.5 s and half of "step" (0, 0).
  const std::string blended = run("pose " + file +
                                  " --layer linear:weight=0.5 --layer step:weight=0.5 --times "
                                  "0.5 --format json");
  const auto b = gltf_test::Json::parse(blended);
  EXPECT_NEAR(b["samples"][0]["weights"][0][0].get<double>(), 0.25, 1e-6);
}

}  // namespace
}  // namespace marrow
