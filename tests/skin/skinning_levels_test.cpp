// The dispatched skinning kernels on every SIMD level the machine has, forced in turn, against
// the scalar reference (skin_reference). They differ from it only by rounding: fused multiply-
// adds, sums in another order, and a reciprocal square root refined by one Newton step instead of
// 1 / sqrt. On these meshes (coordinates within 1, palettes with translations within 1 and
// scales within 0.6 to 1.6) that stays below kTolerance on every coordinate of every output.
#include <gtest/gtest.h>

#include <random>

#include "../simd/simd_test_util.h"
#include "marrow/skin/skinning.h"
#include "skin_test_util.h"
#include "thread_pool.h"

namespace marrow {
namespace {

// ~8 float ulps at magnitude 4 (the largest output coordinate here): a real error in a kernel
// (a wrong lane, a missed influence, a wrong sign) is orders of magnitude larger.
constexpr float kTolerance = 4e-6f;

struct Frame {
  std::vector<Vec3> positions, normals;
  std::vector<std::array<float, 4>> tangents;
  explicit Frame(std::size_t n) : positions(n), normals(n), tangents(n) {}
  SkinningOutput out() { return {positions, normals, tangents}; }
};

float largest_difference(const Frame& a, const Frame& b) {
  float worst = 0;
  auto take = [&](float x, float y) { worst = std::max(worst, std::fabs(x - y)); };
  for (std::size_t v = 0; v < a.positions.size(); ++v) {
    take(a.positions[v].x, b.positions[v].x), take(a.positions[v].y, b.positions[v].y);
    take(a.positions[v].z, b.positions[v].z);
    take(a.normals[v].x, b.normals[v].x), take(a.normals[v].y, b.normals[v].y);
    take(a.normals[v].z, b.normals[v].z);
    for (int c = 0; c < 4; ++c) take(a.tangents[v][c], b.tangents[v][c]);
  }
  return worst;
}

struct Case {
  SkinnedMesh mesh;
  std::vector<Mat4> palette;
};

template <typename CountOf>
Case make_case(std::uint32_t seed, std::size_t vertices, std::size_t joints, bool stretch,
               CountOf&& count) {
  std::mt19937 rng(seed);
  Case c;
  c.mesh = test::random_mesh(rng, vertices, joints, count);
  for (std::size_t j = 0; j < joints; ++j)
    c.palette.push_back(test::to_mat4(test::random_joint(rng, stretch)));
  return c;
}

// LBS, DQS from matrices and DQS from a dual-quaternion palette, every level against the
// reference; returns the largest difference seen.
float check_levels(const Case& c, UnweightedVertices unweighted = UnweightedVertices::kError) {
  auto built = SkinningMesh::build(c.mesh, c.palette.size(), 0, unweighted);
  EXPECT_TRUE(built.ok()) << built.error().message;
  if (!built.ok()) return 0;
  const SkinningMesh& mesh = built.value();
  const std::size_t n = mesh.vertex_count();
  std::vector<DqsJoint> dq(c.palette.size());
  EXPECT_TRUE(compute_dual_quat_palette(c.palette, dq));
  Frame lbs(n), dqs(n), dqs_palette(n);
  EXPECT_TRUE(skin_reference(mesh, c.palette, SkinningMethod::kLinear, lbs.out(), 0, n));
  EXPECT_TRUE(skin_reference(mesh, c.palette, SkinningMethod::kDualQuaternion, dqs.out(), 0, n));
  EXPECT_TRUE(skin_reference(mesh, std::span<const DqsJoint>(dq), dqs_palette.out(), 0, n));
  float worst = 0;
  test::for_each_simd_level([&](SimdLevel) {
    Frame f(n), g(n), h(n);
    ASSERT_TRUE(skin(mesh, c.palette, SkinningMethod::kLinear, f.out()));
    ASSERT_TRUE(skin(mesh, c.palette, SkinningMethod::kDualQuaternion, g.out()));
    ASSERT_TRUE(skin(mesh, std::span<const DqsJoint>(dq), h.out(), 0, n));
    for (std::size_t v = 0; v < n; ++v) {
      ASSERT_EQ(f.tangents[v][3], lbs.tangents[v][3]) << "tangent handedness of vertex " << v;
      ASSERT_EQ(h.tangents[v][3], dqs.tangents[v][3]) << "tangent handedness of vertex " << v;
    }
    const float e_lbs = largest_difference(f, lbs), e_dqs = largest_difference(g, dqs);
    const float e_palette = largest_difference(h, dqs_palette);
    EXPECT_LE(e_lbs, kTolerance) << "LBS";
    EXPECT_LE(e_dqs, kTolerance) << "DQS from matrices";
    EXPECT_LE(e_palette, kTolerance) << "DQS from a dual-quaternion palette";
    worst = std::max({worst, e_lbs, e_dqs, e_palette});
  });
  return worst;
}

TEST(SkinLevels, EveryInfluenceCountFromOneToEightMatchesTheReferenceOnEveryLevel) {
  // 67 vertices: eight full blocks of 8 and a partial one of 3.
  for (std::size_t k = 1; k <= 8; ++k) {
    SCOPED_TRACE("influences " + std::to_string(k));
    check_levels(make_case(300 + k, 67, 24, false, [k](std::size_t) { return k; }));
    check_levels(make_case(400 + k, 67, 24, true, [k](std::size_t) { return k; }));
  }
}

TEST(SkinLevels, MixedCountsScatterToTheirOwnVerticesOnEveryLevel) {
  // Counts 1..12 interleaved: every group's slots go to non-consecutive vertices, and counts
  // above 8 take the kernels' run-time loop.
  const float worst =
      check_levels(make_case(17, 523, 40, true, [](std::size_t v) { return 1 + (v * 7) % 12; }));
  std::cout << "[ note ] largest difference from the reference: " << worst << "\n";
}

TEST(SkinLevels, GroupsSmallerThanOneBlockAndSingleVertices) {
  for (std::size_t vertices : {1, 2, 7, 8, 9}) {
    SCOPED_TRACE(std::to_string(vertices) + " vertices");
    check_levels(make_case(50 + static_cast<std::uint32_t>(vertices), vertices, 6, true,
                           [](std::size_t v) { return 1 + v % 3; }));
  }
}

TEST(SkinLevels, UnweightedVerticesKeepTheirBindPoseOnEveryLevel) {
  Case c = make_case(23, 200, 12, true, [](std::size_t v) { return 1 + v % 4; });
  // Every fifth vertex loses its weights (found in real .X files).
  for (std::size_t v = 0; v < 200; v += 5) {
    for (std::uint32_t i = c.mesh.influence_offsets[v]; i < c.mesh.influence_offsets[v + 1]; ++i)
      c.mesh.influence_weights[i] = 0;
  }
  check_levels(c, UnweightedVertices::kKeepBindPosition);
  auto built = SkinningMesh::build(c.mesh, 12, 0, UnweightedVertices::kKeepBindPosition);
  ASSERT_TRUE(built.ok());
  test::for_each_simd_level([&](SimdLevel) {
    Frame f(200);
    ASSERT_TRUE(skin(built.value(), c.palette, SkinningMethod::kLinear, f.out()));
    for (std::size_t v = 0; v < 200; v += 5) EXPECT_EQ(f.positions[v], c.mesh.positions[v]) << v;
  });
}

TEST(SkinLevels, MeshesWithoutNormalsOrTangentsAndSkippedOutputs) {
  Case c = make_case(29, 90, 10, true, [](std::size_t v) { return 1 + v % 5; });
  Case bare = c;
  bare.mesh.normals.clear();
  bare.mesh.tangents.clear();
  auto with = SkinningMesh::build(c.mesh, 10);
  auto without = SkinningMesh::build(bare.mesh, 10);
  ASSERT_TRUE(with.ok() && without.ok());
  Frame want(90);
  ASSERT_TRUE(skin_reference(with.value(), c.palette, SkinningMethod::kLinear, want.out(), 0, 90));
  test::for_each_simd_level([&](SimdLevel) {
    for (const SkinningMesh* mesh : {&with.value(), &without.value()}) {
      Frame f(90);
      // Positions only: the normal and tangent outputs stay untouched.
      ASSERT_TRUE(skin(*mesh, c.palette, SkinningMethod::kLinear, {f.positions, {}, {}}));
      for (std::size_t v = 0; v < 90; ++v) {
        EXPECT_LE(length(f.positions[v] - want.positions[v]), 2 * kTolerance) << v;
        EXPECT_EQ(f.normals[v], (Vec3{0, 0, 0}));
        EXPECT_EQ(f.tangents[v], (std::array<float, 4>{0, 0, 0, 0}));
      }
    }
  });
}

TEST(SkinLevels, RangesSplitAcrossThreadsGiveTheWholeMeshResultOnEveryLevel) {
  const Case c = make_case(31, 3001, 30, true, [](std::size_t v) { return 1 + (v * 5) % 9; });
  auto built = SkinningMesh::build(c.mesh, c.palette.size());
  ASSERT_TRUE(built.ok());
  const SkinningMesh& mesh = built.value();
  std::vector<DqsJoint> dq(c.palette.size());
  ASSERT_TRUE(compute_dual_quat_palette(c.palette, dq));
  ThreadPool pool(2);
  test::for_each_simd_level([&](SimdLevel) {
    for (SkinningMethod method : {SkinningMethod::kLinear, SkinningMethod::kDualQuaternion}) {
      Frame whole(3001), threaded(3001), palette_whole(3001), palette_threaded(3001);
      ASSERT_TRUE(skin(mesh, c.palette, method, whole.out()));
      // A grain that is no multiple of 8 cuts blocks in the middle of groups.
      ASSERT_TRUE(
          skin_parallel(pool, mesh, std::span<const Mat4>(c.palette), method, threaded.out(), 37));
      EXPECT_EQ(whole.positions, threaded.positions);
      EXPECT_EQ(whole.normals, threaded.normals);
      EXPECT_EQ(whole.tangents, threaded.tangents);
    }
    Frame whole(3001), threaded(3001);
    ASSERT_TRUE(skin(mesh, std::span<const DqsJoint>(dq), whole.out(), 0, 3001));
    ASSERT_TRUE(skin_parallel(pool, mesh, std::span<const DqsJoint>(dq),
                              SkinningMethod::kDualQuaternion, threaded.out(), 101));
    EXPECT_EQ(whole.positions, threaded.positions);
    EXPECT_EQ(whole.tangents, threaded.tangents);
  });
}

}  // namespace
}  // namespace marrow
