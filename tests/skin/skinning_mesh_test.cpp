// SkinningMesh::build (validation, influence reduction), palettes and bounds.
#include <gtest/gtest.h>

#include <random>

#include "marrow/skin/skinning.h"
#include "skin_test_util.h"

namespace marrow {
namespace {

SkinnedMesh three_influences() {
  SkinnedMesh m;
  m.name = "tri";
  m.positions = {{0, 0, 0}, {1, 0, 0}};
  m.influence_offsets = {0, 3, 4};
  // Vertex 0: weights 0.2 (joint 0), 0.5 (joint 1), 0.3 (joint 2), deliberately not sorted.
  m.influence_joints = {0, 1, 2, 2};
  m.influence_weights = {0.2f, 0.5f, 0.3f, 1.0f};
  return m;
}

// Palette of pure translations: joint j moves by (10^j, 0, 0), so a skinned position's x tells
// which weights were used.
std::vector<Mat4> translations(std::size_t n) {
  std::vector<Mat4> p(n);
  float t = 1;
  for (auto& m : p) {
    m = mat4_from_trs({t, 0, 0}, Quat::identity(), {1, 1, 1});
    t *= 10;
  }
  return p;
}

TEST(SkinningMeshBuild, KeepsAllInfluencesOrTheStrongestRenormalized) {
  const auto palette = translations(3);
  {
    auto b = SkinningMesh::build(three_influences(), 3);
    ASSERT_TRUE(b.ok()) << b.error().message;
    EXPECT_EQ(b->max_influences(), 3u);
    std::vector<Vec3> out(2);
    ASSERT_TRUE(skin(b.value(), palette, SkinningMethod::kLinear, {out, {}, {}}));
    EXPECT_NEAR(out[0].x, 0.2f * 1 + 0.5f * 10 + 0.3f * 100, 1e-4);
    EXPECT_NEAR(out[1].x, 1 + 100, 1e-4);
  }
  {
    // Two strongest: 0.5 (joint 1) and 0.3 (joint 2), renormalized to 0.625 and 0.375.
    auto b = SkinningMesh::build(three_influences(), 3, 2);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->max_influences(), 2u);
    std::vector<Vec3> out(2);
    ASSERT_TRUE(skin(b.value(), palette, SkinningMethod::kLinear, {out, {}, {}}));
    EXPECT_NEAR(out[0].x, 0.625f * 10 + 0.375f * 100, 1e-4);
  }
  {
    auto b = SkinningMesh::build(three_influences(), 3, 1);
    ASSERT_TRUE(b.ok());
    std::vector<Vec3> out(2);
    ASSERT_TRUE(skin(b.value(), palette, SkinningMethod::kLinear, {out, {}, {}}));
    EXPECT_NEAR(out[0].x, 10, 1e-5);
  }
}

void expect_error(const SkinnedMesh& m, std::size_t joints, const std::string& part) {
  auto b = SkinningMesh::build(m, joints);
  ASSERT_FALSE(b.ok()) << "expected an error containing '" << part << "'";
  EXPECT_NE(b.error().message.find(part), std::string::npos) << b.error().message;
  EXPECT_NE(b.error().message.find("'" + m.name + "'"), std::string::npos) << b.error().message;
}

TEST(SkinningMeshBuild, BadInputGivesClearErrors) {
  SkinnedMesh m = three_influences();
  expect_error(m, 2, "vertex 0: uses skin joint 2 but the skin has 2");
  m.influence_weights[1] = std::nanf("");
  expect_error(m, 3, "vertex 0: has a non-finite weight");
  m = three_influences();
  m.influence_weights[3] = -1;
  expect_error(m, 3, "vertex 1: has a negative weight");
  m = three_influences();
  m.influence_weights[3] = 0;
  expect_error(m, 3, "vertex 1: has no influence with a weight above zero");
  m = three_influences();
  m.influence_offsets = {0, 3, 3};
  expect_error(m, 3, "influence offsets do not start at 0 and end");
  m = three_influences();
  m.influence_offsets = {0, 4, 3};
  m.influence_joints.push_back(0);
  m.influence_weights.push_back(0.1f);
  m.influence_offsets = {0, 5, 4};
  expect_error(m, 3, "influence offsets do not start at 0 and end");
  m = three_influences();
  m.influence_offsets = {0, 5, 4};
  expect_error(m, 3, "influence offsets");
  m = three_influences();
  m.influence_offsets.clear();
  expect_error(m, 3, "no skin influences");
  m = three_influences();
  m.influence_offsets = {0, 4};
  expect_error(m, 3, "2 influence offsets for 2 vertices");
  m = three_influences();
  m.normals = {{0, 0, 1}};
  expect_error(m, 3, "1 normals for 2 vertices");
  m = three_influences();
  m.tangents = {{1, 0, 0, 1}};
  expect_error(m, 3, "1 tangents for 2 vertices");
  m = three_influences();
  m.influence_weights.pop_back();
  expect_error(m, 3, "4 influence joints but 3 weights");
  m = three_influences();
  m.positions[1].y = std::numeric_limits<float>::infinity();
  expect_error(m, 3, "vertex 1: position is not finite");
  m = three_influences();
  m.positions.clear();
  expect_error(m, 3, "has no vertices");
  expect_error(three_influences(), 0, "the skin has no joints");
}

TEST(SkinningMeshBuild, UnweightedVerticesCanBeKeptInPlace) {
  // Vertex 1 loses its only weight. By default that is an error; with kKeepBindPosition the
  // vertex is written as stored every frame while vertex 0 follows its joints.
  SkinnedMesh m = three_influences();
  m.influence_weights[3] = 0;
  m.normals = {{0, 0, 1}, {0, 0, 2}};
  m.tangents = {{1, 0, 0, 1}, {0, 3, 0, -1}};
  EXPECT_FALSE(SkinningMesh::build(m, 3).ok());
  auto b = SkinningMesh::build(m, 3, 0, UnweightedVertices::kKeepBindPosition);
  ASSERT_TRUE(b.ok()) << b.error().message;
  const auto palette = translations(3);
  std::vector<DqsJoint> dq(3);
  ASSERT_TRUE(compute_dual_quat_palette(palette, dq));
  for (int path = 0; path < 4; ++path) {
    std::vector<Vec3> p(2), n(2);
    std::vector<std::array<float, 4>> t(2);
    const SkinningOutput out{p, n, t};
    switch (path) {
      case 0:
        ASSERT_TRUE(skin(b.value(), palette, SkinningMethod::kLinear, out));
        break;
      case 1:
        ASSERT_TRUE(skin(b.value(), palette, SkinningMethod::kDualQuaternion, out));
        break;
      case 2:
        ASSERT_TRUE(skin_reference(b.value(), palette, SkinningMethod::kLinear, out, 0, 2));
        break;
      default:
        ASSERT_TRUE(skin(b.value(), std::span<const DqsJoint>(dq), out, 0, 2));
        break;
    }
    EXPECT_NEAR(p[0].x, 0.2f * 1 + 0.5f * 10 + 0.3f * 100, 1e-4) << path;
    EXPECT_EQ(p[1], (Vec3{1, 0, 0})) << path;
    EXPECT_EQ(n[1], (Vec3{0, 0, 1})) << path;
    EXPECT_EQ(t[1], (std::array<float, 4>{0, 1, 0, -1})) << path;
  }
  // The conservative box still holds the vertex that stays behind.
  const Aabb box = conservative_skinned_bounds(b.value(), palette);
  EXPECT_LE(box.min.x, 1.0f);
  EXPECT_GE(box.max.x, 35.2f - 1e-4f);
}

TEST(Palette, IsModelTimesInverseBind) {
  Skin skin;
  skin.joints = {2, 0};
  const Mat4 ibm0 = mat4_from_trs({0, -1, 0}, Quat::identity(), {1, 1, 1});
  const Mat4 ibm1 = mat4_from_trs({0, 0, -5}, Quat::identity(), {1, 1, 1});
  skin.inverse_bind_matrices = {ibm0, ibm1};
  std::vector<Mat4> model(3);
  model[2] = mat4_from_trs({3, 1, 0}, from_axis_angle({0, 0, 1}, 1.5707963f), {1, 1, 1});
  model[0] = mat4_from_trs({0, 0, 5}, Quat::identity(), {2, 2, 2});
  std::vector<Mat4> palette(2);
  ASSERT_TRUE(compute_skinning_palette(skin, model, palette));
  // Joint 0 of the skin = skeleton joint 2: (x, y, z) -> (x, y - 1, z) -> rotate 90 deg about z
  // -> (-(y - 1), x, z) -> + (3, 1, 0).
  const Vec3 p = transform_point(palette[0], {1, 2, 3});
  EXPECT_NEAR(p.x, 3 - 1, 1e-5);
  EXPECT_NEAR(p.y, 1 + 1, 1e-5);
  EXPECT_NEAR(p.z, 3, 1e-5);
  // Skin joint 1 = skeleton joint 0: (x, y, z - 5) * 2 + (0, 0, 5).
  const Vec3 q = transform_point(palette[1], {1, 2, 3});
  EXPECT_NEAR(q.x, 2, 1e-5);
  EXPECT_NEAR(q.y, 4, 1e-5);
  EXPECT_NEAR(q.z, -4 + 5, 1e-5);
  // Short spans and out-of-range joints write nothing.
  std::vector<Mat4> one(1);
  EXPECT_FALSE(compute_skinning_palette(skin, model, one));
  skin.joints[1] = 7;
  std::vector<Mat4> untouched(2);
  EXPECT_FALSE(compute_skinning_palette(skin, model, untouched));
  EXPECT_EQ(untouched[0], Mat4::identity());
}

TEST(Palette, GpuLayouts) {
  Mat4 m;
  for (int i = 0; i < 16; ++i) m.m[i] = static_cast<float>(i);  // column-major
  const std::vector<Mat4> palette{Mat4::identity(), m};
  std::vector<float> rows(24);
  ASSERT_TRUE(write_palette_rows_3x4(palette, rows));
  // Row r of joint 1: m(r, 0..3) = m.m[r], m.m[4 + r], m.m[8 + r], m.m[12 + r].
  const std::vector<float> expect1{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14};
  EXPECT_EQ(std::vector<float>(rows.begin() + 12, rows.end()), expect1);
  EXPECT_EQ((std::vector<float>(rows.begin(), rows.begin() + 12)),
            (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));
  std::vector<float> small(23);
  EXPECT_FALSE(write_palette_rows_3x4(palette, small));

  // 90 degrees about z, translated by (1, 2, 3), x scaled by 2 before the rotation.
  const float h = std::sqrt(0.5f);
  const Mat4 joint = mat4_from_trs({1, 2, 3}, Quat{0, 0, h, h}, {2, 1, 1});
  std::vector<DqsJoint> dq(1);
  ASSERT_TRUE(compute_dual_quat_palette(std::span(&joint, 1), dq));
  std::vector<float> dqf(8), stretch(12);
  ASSERT_TRUE(write_palette_dual_quats(dq, dqf, stretch));
  const float sign = dqf[3] < 0 ? -1.0f : 1.0f;  // q and -q are the same rotation
  // real = (0, 0, h, h); dual = 0.5 * (1, 2, 3, 0) * real, worked by hand:
  // (t, 0) * (0, 0, h, h) = (1h + 2h, -1h + 2h, 3h, -3h) = (3h, h, 3h, -3h).
  const std::vector<float> expect{0, 0, h, h, 1.5f * h, 0.5f * h, 1.5f * h, -1.5f * h};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(dqf[i] * sign, expect[i], 1e-6) << i;
  const std::vector<float> expect_stretch{2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(stretch[i], expect_stretch[i], 1e-6) << i;
  std::vector<float> short_dq(7);
  EXPECT_FALSE(write_palette_dual_quats(dq, short_dq));
}

TEST(Bounds, ExactAndConservative) {
  std::mt19937 rng(4);
  SkinnedMesh mesh = test::random_mesh(rng, 400, 12, [](std::size_t v) { return 1 + v % 4; });
  std::vector<Mat4> palette;
  for (int j = 0; j < 12; ++j) palette.push_back(test::to_mat4(test::random_joint(rng, true)));
  auto built = SkinningMesh::build(mesh, 12);
  ASSERT_TRUE(built.ok());
  std::vector<Vec3> out(400);
  ASSERT_TRUE(skin(built.value(), palette, SkinningMethod::kLinear, {out, {}, {}}));
  const Aabb exact = compute_bounds(out);
  const Aabb cons = conservative_skinned_bounds(built.value(), palette);
  ASSERT_FALSE(exact.empty());
  Vec3 lo{1e9f, 1e9f, 1e9f}, hi{-1e9f, -1e9f, -1e9f};
  for (const Vec3& p : out) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  EXPECT_EQ(exact.min, lo);
  EXPECT_EQ(exact.max, hi);
  const float eps = 1e-5f;
  EXPECT_LE(cons.min.x, lo.x + eps);
  EXPECT_LE(cons.min.y, lo.y + eps);
  EXPECT_LE(cons.min.z, lo.z + eps);
  EXPECT_GE(cons.max.x, hi.x - eps);
  EXPECT_GE(cons.max.y, hi.y - eps);
  EXPECT_GE(cons.max.z, hi.z - eps);
  // With the identity palette the conservative box is the bind box.
  const std::vector<Mat4> identity(12);
  const Aabb bind = conservative_skinned_bounds(built.value(), identity);
  const Aabb bind_exact = compute_bounds(mesh.positions);
  EXPECT_LT(length(bind.min - bind_exact.min), 1e-6f);
  EXPECT_LT(length(bind.max - bind_exact.max), 1e-6f);
  EXPECT_TRUE(compute_bounds({}).empty());
  EXPECT_TRUE(conservative_skinned_bounds(built.value(), std::span<const Mat4>()).empty());
}

}  // namespace
}  // namespace marrow
