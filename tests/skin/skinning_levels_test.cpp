// The dispatched skinning kernels on every SIMD level the machine has, forced in turn, against
// the scalar reference (skin_reference). They differ from it only by rounding: fused multiply-
// adds, sums in another order, and a reciprocal square root refined by one Newton step instead of
// 1 / sqrt. On these meshes (coordinates within 1, palettes with translations within 1 and
// scales within 0.6 to 1.6) that stays below kTolerance on every coordinate of every output.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "marrow/skin/skinning.h"
#include "simd_test_util.h"
#include "skin_test_util.h"
#include "thread_pool.h"

namespace marrow {
namespace {

// ~8 float ulps at magnitude 4 (the largest output coordinate here): a real error in a kernel
// (a wrong lane, a missed influence, a wrong sign) is orders of magnitude larger.
constexpr float kTolerance = 4e-6f;

using test::Frame;

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

struct LevelCase {
  SkinnedMesh mesh;
  std::vector<Mat4> palette;
};

template <typename CountOf>
LevelCase make_level_case(std::uint32_t seed, std::size_t vertices, std::size_t joints,
                          bool stretch, CountOf&& count) {
  std::mt19937 rng(seed);
  LevelCase c;
  c.mesh = test::random_mesh(rng, vertices, joints, count);
  for (std::size_t j = 0; j < joints; ++j)
    c.palette.push_back(test::to_mat4(test::random_joint(rng, stretch)));
  return c;
}

// LBS, DQS from matrices and DQS from a dual-quaternion palette, every level against the
// reference, with normals and tangents transformed as `mode` says; returns the largest
// difference seen.
float check_levels(const LevelCase& c, UnweightedVertices unweighted = UnweightedVertices::kError,
                   NormalTransform mode = NormalTransform::kExact) {
  auto built = SkinningMesh::build(c.mesh, c.palette.size(), 0, unweighted);
  EXPECT_TRUE(built.ok()) << built.error().message;
  if (!built.ok()) return 0;
  const SkinningMesh& mesh = built.value();
  const std::size_t n = mesh.vertex_count();
  std::vector<DqsJoint> dq(c.palette.size());
  EXPECT_TRUE(compute_dual_quat_palette(c.palette, dq));
  Frame lbs(n), dqs(n), dqs_palette(n);
  EXPECT_TRUE(skin_reference(mesh, c.palette, SkinningMethod::kLinear, lbs.out(mode), 0, n));
  EXPECT_TRUE(
      skin_reference(mesh, c.palette, SkinningMethod::kDualQuaternion, dqs.out(mode), 0, n));
  EXPECT_TRUE(skin_reference(mesh, std::span<const DqsJoint>(dq), dqs_palette.out(mode), 0, n));
  float worst = 0;
  test::for_each_simd_level([&](SimdLevel) {
    Frame f(n), g(n), h(n);
    ASSERT_TRUE(skin(mesh, c.palette, SkinningMethod::kLinear, f.out(mode)));
    ASSERT_TRUE(skin(mesh, c.palette, SkinningMethod::kDualQuaternion, g.out(mode)));
    ASSERT_TRUE(skin(mesh, std::span<const DqsJoint>(dq), h.out(mode), 0, n));
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
    check_levels(make_level_case(300 + k, 67, 24, false, [k](std::size_t) { return k; }));
    check_levels(make_level_case(400 + k, 67, 24, true, [k](std::size_t) { return k; }));
  }
}

TEST(SkinLevels, LinearUnnormalizedVectorsMatchTheReferenceOnEveryLevel) {
  for (std::size_t k : {1, 3, 4, 8, 11}) {
    SCOPED_TRACE("influences " + std::to_string(k));
    for (bool stretch : {false, true})
      check_levels(make_level_case(500 + k, 67, 24, stretch, [k](std::size_t) { return k; }),
                   UnweightedVertices::kError, NormalTransform::kLinearUnnormalized);
  }
  // Mixed counts, scattered vertices, and unweighted vertices copied as stored.
  LevelCase c = make_level_case(31, 301, 20, true, [](std::size_t v) { return 1 + (v * 5) % 9; });
  for (std::size_t v = 0; v < 301; v += 7) {
    for (std::uint32_t i = c.mesh.influence_offsets[v]; i < c.mesh.influence_offsets[v + 1]; ++i)
      c.mesh.influence_weights[i] = 0;
  }
  check_levels(c, UnweightedVertices::kKeepBindPosition, NormalTransform::kLinearUnnormalized);
}

TEST(SkinLevels, LinearUnnormalizedVectorsAreTheBlendedMatrixTimesTheVector) {
  // Hand values. Vertex 0: half on a joint turning +60 degrees about z, half on one turning -60;
  // the blended 3x3 is diag(cos 60, cos 60, 1) = diag(0.5, 0.5, 1), so the normal (1, 0, 0) comes
  // out as (0.5, 0, 0) and the tangent (0, 1, 0) as (0, 0.5, 0) (the exact transform gives them
  // back at unit length). DQS blends the two rotations to none: both stay as they are.
  // Vertex 1: one joint turning 90 degrees about z and scaling by 3: the normal (1, 0, 0) comes
  // out as (0, 3, 0) by either method, (0, 1, 0) exactly.
  SkinnedMesh m;
  m.name = "hand";
  m.positions = {{1, 0, 0}, {1, 0, 0}};
  m.normals = {{1, 0, 0}, {1, 0, 0}};
  m.tangents = {{0, 1, 0, -1}, {0, 1, 0, 1}};
  m.influence_offsets = {0, 2, 3};
  m.influence_joints = {0, 1, 2};
  m.influence_weights = {0.5f, 0.5f, 1.0f};
  auto built = SkinningMesh::build(m, 3);
  ASSERT_TRUE(built.ok()) << built.error().message;
  const float pi = 3.14159265358979f;
  const Vec3 z{0, 0, 1};
  const std::vector<Mat4> palette{mat4_from_trs({0, 0, 0}, from_axis_angle(z, pi / 3), {1, 1, 1}),
                                  mat4_from_trs({0, 0, 0}, from_axis_angle(z, -pi / 3), {1, 1, 1}),
                                  mat4_from_trs({0, 0, 0}, from_axis_angle(z, pi / 2), {3, 3, 3})};
  struct Want {
    Vec3 normal0, tangent0, normal1, tangent1;
  };
  const Want lbs{{0.5f, 0, 0}, {0, 0.5f, 0}, {0, 3, 0}, {-3, 0, 0}};
  const Want dqs{{1, 0, 0}, {0, 1, 0}, {0, 3, 0}, {-3, 0, 0}};
  auto expect = [](const Frame& f, const Want& w, const char* what) {
    EXPECT_LT(length(f.normals[0] - w.normal0), 1e-6f) << what;
    EXPECT_LT(length(f.normals[1] - w.normal1), 1e-5f) << what;
    const auto& t0 = f.tangents[0];
    const auto& t1 = f.tangents[1];
    EXPECT_LT(length(Vec3{t0[0], t0[1], t0[2]} - w.tangent0), 1e-6f) << what;
    EXPECT_LT(length(Vec3{t1[0], t1[1], t1[2]} - w.tangent1), 1e-5f) << what;
    EXPECT_EQ(t0[3], -1.0f) << what;
    EXPECT_EQ(t1[3], 1.0f) << what;
  };
  const auto linear = NormalTransform::kLinearUnnormalized;
  Frame ref_lbs(2), ref_dqs(2);
  ASSERT_TRUE(
      skin_reference(built.value(), palette, SkinningMethod::kLinear, ref_lbs.out(linear), 0, 2));
  ASSERT_TRUE(skin_reference(built.value(), palette, SkinningMethod::kDualQuaternion,
                             ref_dqs.out(linear), 0, 2));
  expect(ref_lbs, lbs, "reference LBS");
  expect(ref_dqs, dqs, "reference DQS");
  test::for_each_simd_level([&](SimdLevel) {
    Frame f(2), g(2), exact(2);
    ASSERT_TRUE(skin(built.value(), palette, SkinningMethod::kLinear, f.out(linear)));
    ASSERT_TRUE(skin(built.value(), palette, SkinningMethod::kDualQuaternion, g.out(linear)));
    expect(f, lbs, "LBS");
    expect(g, dqs, "DQS");
    ASSERT_TRUE(skin(built.value(), palette, SkinningMethod::kLinear, exact.out()));
    EXPECT_LT(length(exact.normals[0] - Vec3{1, 0, 0}), 1e-6f);
    EXPECT_LT(length(exact.normals[1] - Vec3{0, 1, 0}), 1e-6f);
  });
}

TEST(SkinLevels, MixedCountsScatterToTheirOwnVerticesOnEveryLevel) {
  // Counts 1..12 interleaved: every group's slots go to non-consecutive vertices, and counts
  // above 8 take the kernels' run-time loop.
  const float worst = check_levels(
      make_level_case(17, 523, 40, true, [](std::size_t v) { return 1 + (v * 7) % 12; }));
  std::cout << "[ note ] largest difference from the reference: " << worst << "\n";
}

TEST(SkinLevels, GroupsSmallerThanOneBlockAndSingleVertices) {
  for (std::size_t vertices : {1, 2, 7, 8, 9}) {
    SCOPED_TRACE(std::to_string(vertices) + " vertices");
    check_levels(make_level_case(50 + static_cast<std::uint32_t>(vertices), vertices, 6, true,
                                 [](std::size_t v) { return 1 + v % 3; }));
  }
}

TEST(SkinLevels, UnweightedVerticesKeepTheirBindPoseOnEveryLevel) {
  LevelCase c = make_level_case(23, 200, 12, true, [](std::size_t v) { return 1 + v % 4; });
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
  LevelCase c = make_level_case(29, 90, 10, true, [](std::size_t v) { return 1 + v % 5; });
  LevelCase bare = c;
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

#if !defined(MARROW_WASM_TESTS)  // the WebAssembly build runs no threads
TEST(SkinLevels, RangesSplitAcrossThreadsGiveTheWholeMeshResultOnEveryLevel) {
  const LevelCase c =
      make_level_case(31, 3001, 30, true, [](std::size_t v) { return 1 + (v * 5) % 9; });
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

#endif

// skin() copies a palette that is not 32-byte aligned to an aligned stack buffer (up to 256
// joints) before the SIMD kernels read it; larger ones are read where they are. Every offset
// within a cache line, both sizes, must give the result of the palette at a 64-byte boundary
// bit for bit, and that must match the reference.
TEST(SkinLevels, PalettesAtEveryAlignmentGiveTheSameResultOnEveryLevel) {
  for (std::size_t joints : {40, 300}) {
    SCOPED_TRACE("joints " + std::to_string(joints));
    const LevelCase c =
        make_level_case(77, 131, joints, true, [](std::size_t v) { return 1 + (v * 3) % 5; });
    check_levels(c);
    auto built = SkinningMesh::build(c.mesh, joints);
    ASSERT_TRUE(built.ok());
    const SkinningMesh& mesh = built.value();
    const std::size_t n = mesh.vertex_count();
    // Room for the palette at any float offset within a line; Mat4 needs only float alignment.
    struct alignas(64) Line {
      float f[16];
    };
    std::vector<Line> storage(joints + 1);
    test::for_each_simd_level([&](SimdLevel) {
      for (NormalTransform mode : {NormalTransform::kExact, NormalTransform::kLinearUnnormalized}) {
        Frame at_line(n);
        for (std::size_t offset_floats = 0; offset_floats < 16; ++offset_floats) {
          SCOPED_TRACE("offset " + std::to_string(4 * offset_floats) + " bytes");
          float* base = storage.front().f + offset_floats;
          std::memcpy(base, c.palette.data(), joints * sizeof(Mat4));
          const std::span<const Mat4> palette(reinterpret_cast<const Mat4*>(base), joints);
          Frame f(n);
          ASSERT_TRUE(skin(mesh, palette, SkinningMethod::kLinear, f.out(mode)));
          if (offset_floats == 0) {
            at_line = f;
            continue;
          }
          EXPECT_EQ(f.positions, at_line.positions);
          EXPECT_EQ(f.normals, at_line.normals);
          EXPECT_EQ(f.tangents, at_line.tangents);
        }
      }
    });
  }
}

}  // namespace
}  // namespace marrow
