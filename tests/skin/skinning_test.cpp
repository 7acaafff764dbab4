// Skinning kernels against an independent double-precision reference (skin_test_util.h), on
// random meshes and palettes with every influence count from 1 to 8 and beyond.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>

#include "job_checks.h"
#include "marrow/skin/skinning.h"
#include "skin_test_util.h"
#include "thread_pool.h"

namespace marrow {
namespace {

using test::JointParts;
using test::RefVertex;

using test::Frame;

double dist_to_reference(Vec3 a, const test::D3& b) {
  return std::sqrt((a.x - b[0]) * (a.x - b[0]) + (a.y - b[1]) * (a.y - b[1]) +
                   (a.z - b[2]) * (a.z - b[2]));
}

void expect_matches(const Frame& f, const std::vector<RefVertex>& ref, double tol_p, double tol_n,
                    const char* what) {
  for (std::size_t v = 0; v < ref.size(); ++v) {
    ASSERT_LT(dist_to_reference(f.positions[v], ref[v].position), tol_p)
        << what << " position of vertex " << v;
    ASSERT_LT(dist_to_reference(f.normals[v], ref[v].normal), tol_n)
        << what << " normal of vertex " << v;
    const auto& t = f.tangents[v];
    ASSERT_LT(dist_to_reference({t[0], t[1], t[2]},
                                {ref[v].tangent[0], ref[v].tangent[1], ref[v].tangent[2]}),
              tol_n)
        << what << " tangent of vertex " << v;
    ASSERT_EQ(t[3], ref[v].tangent[3]) << what << " tangent handedness of vertex " << v;
  }
}

struct Case {
  SkinnedMesh mesh;
  std::vector<JointParts> parts;
  std::vector<Mat4> palette;
};

Case make_case(std::uint32_t seed, std::size_t vertices, std::size_t joints, bool stretch,
               std::function<std::size_t(std::size_t)> count) {
  std::mt19937 rng(seed);
  Case c;
  c.mesh = test::random_mesh(rng, vertices, joints, count);
  for (std::size_t j = 0; j < joints; ++j) {
    c.parts.push_back(test::random_joint(rng, stretch));
    c.palette.push_back(test::to_mat4(c.parts.back()));
  }
  return c;
}

void check_all_paths(const Case& c, const char* label) {
  auto built = SkinningMesh::build(c.mesh, c.palette.size());
  ASSERT_TRUE(built.ok()) << built.error().message;
  const SkinningMesh& mesh = built.value();
  const std::size_t n = c.mesh.vertex_count();
  std::vector<RefVertex> lbs, dqs;
  for (std::size_t v = 0; v < n; ++v) {
    lbs.push_back(test::reference_lbs(c.mesh, c.palette, v));
    dqs.push_back(test::reference_dqs(c.mesh, c.parts, v));
  }
  std::vector<DqsJoint> dq(c.palette.size());
  ASSERT_TRUE(compute_dual_quat_palette(c.palette, dq));
  for (int fast = 0; fast < 2; ++fast) {
    Frame f(n);
    if (fast)
      ASSERT_TRUE(skin(mesh, c.palette, SkinningMethod::kLinear, f.out()));
    else
      ASSERT_TRUE(skin_reference(mesh, c.palette, SkinningMethod::kLinear, f.out(), 0, n));
    expect_matches(f, lbs, 2e-5, 2e-4, fast ? "fast LBS" : "scalar LBS");
    Frame g(n);
    if (fast)
      ASSERT_TRUE(skin(mesh, c.palette, SkinningMethod::kDualQuaternion, g.out()));
    else
      ASSERT_TRUE(skin_reference(mesh, c.palette, SkinningMethod::kDualQuaternion, g.out(), 0, n));
    expect_matches(g, dqs, 5e-5, 2e-4, fast ? "fast DQS (matrices)" : "scalar DQS (matrices)");
    Frame h(n);
    if (fast)
      ASSERT_TRUE(skin(mesh, std::span<const DqsJoint>(dq), h.out(), 0, n));
    else
      ASSERT_TRUE(skin_reference(mesh, std::span<const DqsJoint>(dq), h.out(), 0, n));
    expect_matches(h, dqs, 5e-5, 2e-4, fast ? "fast DQS (dq palette)" : "scalar DQS (dq palette)");
  }
  SCOPED_TRACE(label);
}

TEST(SkinKernels, EveryInfluenceCountMatchesDoubleReference) {
  for (std::size_t k = 1; k <= 8; ++k) {
    SCOPED_TRACE("influences " + std::to_string(k));
    check_all_paths(make_case(100 + k, 67, 24, false, [k](std::size_t) { return k; }), "rigid");
    check_all_paths(make_case(200 + k, 67, 24, true, [k](std::size_t) { return k; }), "stretch");
  }
}

TEST(SkinKernels, MixedCountsUpToTwelveMatchDoubleReference) {
  // Vertices of every count 1..12 interleaved, so groups and original order differ.
  check_all_paths(make_case(7, 301, 40, true, [](std::size_t v) { return 1 + (v * 7) % 12; }),
                  "mixed");
}

TEST(SkinKernels, DualQuatHemisphereAlignment) {
  // The same rotations with negated quaternions (q and -q) must skin identically.
  Case c = make_case(11, 50, 10, true, [](std::size_t v) { return 1 + v % 4; });
  auto built = SkinningMesh::build(c.mesh, c.palette.size());
  ASSERT_TRUE(built.ok());
  std::vector<DqsJoint> dq(c.palette.size());
  ASSERT_TRUE(compute_dual_quat_palette(c.palette, dq));
  std::vector<DqsJoint> flipped = dq;
  for (std::size_t j = 0; j < flipped.size(); j += 2) {
    flipped[j].dq.real = negate(flipped[j].dq.real);
    flipped[j].dq.dual = negate(flipped[j].dq.dual);
  }
  Frame a(50), b(50);
  ASSERT_TRUE(skin(built.value(), std::span<const DqsJoint>(dq), a.out(), 0, 50));
  ASSERT_TRUE(skin(built.value(), std::span<const DqsJoint>(flipped), b.out(), 0, 50));
  for (std::size_t v = 0; v < 50; ++v) {
    EXPECT_LT(length(a.positions[v] - b.positions[v]), 1e-5f) << v;
    EXPECT_LT(length(a.normals[v] - b.normals[v]), 1e-5f) << v;
  }
}

TEST(SkinKernels, DqsEqualsLbsOnRigidSingleInfluence) {
  Case c = make_case(5, 200, 16, false, [](std::size_t) { return 1; });
  auto built = SkinningMesh::build(c.mesh, c.palette.size());
  ASSERT_TRUE(built.ok());
  Frame a(200), b(200);
  ASSERT_TRUE(skin(built.value(), c.palette, SkinningMethod::kLinear, a.out()));
  ASSERT_TRUE(skin(built.value(), c.palette, SkinningMethod::kDualQuaternion, b.out()));
  for (std::size_t v = 0; v < 200; ++v) {
    EXPECT_LT(length(a.positions[v] - b.positions[v]), 1e-5f) << v;
    EXPECT_LT(length(a.normals[v] - b.normals[v]), 1e-5f) << v;
    EXPECT_LT(length(Vec3{a.tangents[v][0] - b.tangents[v][0], a.tangents[v][1] - b.tangents[v][1],
                          a.tangents[v][2] - b.tangents[v][2]}),
              1e-5f)
        << v;
  }
}

TEST(SkinKernels, RangesAndThreadsGiveTheSameResult) {
  Case c = make_case(9, 5000, 30, true, [](std::size_t v) { return 1 + (v * 5) % 8; });
  auto built = SkinningMesh::build(c.mesh, c.palette.size());
  ASSERT_TRUE(built.ok());
  const SkinningMesh& mesh = built.value();
  for (SkinningMethod method : {SkinningMethod::kLinear, SkinningMethod::kDualQuaternion}) {
    Frame whole(5000), pieces(5000), threaded(5000);
    ASSERT_TRUE(skin(mesh, c.palette, method, whole.out()));
    for (std::size_t b = 0; b < 5000; b += 777)
      ASSERT_TRUE(
          skin(mesh, c.palette, method, pieces.out(), b, std::min<std::size_t>(5000, b + 777)));
    ThreadPool pool(3);
    ASSERT_TRUE(
        skin_parallel(pool, mesh, std::span<const Mat4>(c.palette), method, threaded.out(), 300));
    EXPECT_EQ(whole.positions, pieces.positions);
    EXPECT_EQ(whole.normals, pieces.normals);
    EXPECT_EQ(whole.positions, threaded.positions);
    EXPECT_EQ(whole.tangents, threaded.tangents);
  }
  // The dual-quaternion palette overload, converted once and shared by every range.
  std::vector<DqsJoint> dq(c.palette.size());
  ASSERT_TRUE(compute_dual_quat_palette(c.palette, dq));
  Frame whole(5000), threaded(5000);
  ASSERT_TRUE(skin(mesh, std::span<const DqsJoint>(dq), whole.out(), 0, 5000));
  ThreadPool pool(2);
  ASSERT_TRUE(skin_parallel(pool, mesh, std::span<const DqsJoint>(dq),
                            SkinningMethod::kDualQuaternion, threaded.out(), 1000));
  EXPECT_EQ(whole.positions, threaded.positions);
  EXPECT_EQ(whole.normals, threaded.normals);
  // A grain of 0 or a short output is refused.
  EXPECT_FALSE(skin_parallel(pool, mesh, std::span<const DqsJoint>(dq),
                             SkinningMethod::kDualQuaternion, threaded.out(), 0));
  std::vector<Vec3> short_positions(10);
  EXPECT_FALSE(skin_parallel(pool, mesh, std::span<const Mat4>(c.palette), SkinningMethod::kLinear,
                             {short_positions, {}, {}}));
}

TEST(SkinKernels, NormalsUseInverseTransposeUnderNonUniformScale) {
  // One vertex, one joint scaling x by 2: the normal (1, 1, 0)/sqrt2 of the plane x + y = c
  // becomes (0.5, 1, 0) normalized (the plane 0.5 x + y = c); the tangent (1, -1, 0)/sqrt2
  // lying in that plane becomes (2, -1, 0) normalized.
  SkinnedMesh m;
  m.name = "scaled";
  m.positions = {{1, 2, 3}};
  const float r = 1.0f / std::sqrt(2.0f);
  m.normals = {{r, r, 0}};
  m.tangents = {{r, -r, 0, -1}};
  m.influence_offsets = {0, 1};
  m.influence_joints = {0};
  m.influence_weights = {1};
  auto built = SkinningMesh::build(m, 1);
  ASSERT_TRUE(built.ok());
  Mat4 scale2 = mat4_from_trs({0, 0, 0}, Quat::identity(), {2, 1, 1});
  const std::vector<Mat4> palette{scale2};
  for (SkinningMethod method : {SkinningMethod::kLinear, SkinningMethod::kDualQuaternion}) {
    Frame f(1);
    ASSERT_TRUE(skin(built.value(), palette, method, f.out()));
    EXPECT_LT(length(f.positions[0] - Vec3{2, 2, 3}), 1e-6f);
    const float nn = std::sqrt(1.25f), tn = std::sqrt(5.0f);
    EXPECT_LT(length(f.normals[0] - Vec3{0.5f / nn, 1 / nn, 0}), 1e-6f);
    EXPECT_LT(length(Vec3{f.tangents[0][0], f.tangents[0][1], f.tangents[0][2]} -
                     Vec3{2 / tn, -1 / tn, 0}),
              1e-6f);
    EXPECT_EQ(f.tangents[0][3], -1.0f);
  }
}

TEST(SkinKernels, RejectsShortSpansAndBadRanges) {
  Case c = make_case(3, 10, 4, false, [](std::size_t) { return 2; });
  auto built = SkinningMesh::build(c.mesh, 4);
  ASSERT_TRUE(built.ok());
  const SkinningMesh& mesh = built.value();
  Frame f(10);
  std::vector<Vec3> short_positions(9);
  const std::vector<Mat4> short_palette(3);
  std::vector<Vec3> short_normals(3);
  std::vector<DqsJoint> dq(4), short_dq(3);
  const auto refused = [&](SkinningJob job, const char* input) {
    if (job.mesh == nullptr && input != std::string_view("mesh")) job.mesh = &mesh;
    if (job.palette.empty() && job.dq_palette.empty()) job.palette = c.palette;
    if (job.output.positions.empty()) job.output = f.out();
    return test::run_refused(job, std::string("SkinningJob: ") + input);
  };
  EXPECT_TRUE(refused({}, "mesh"));
  EXPECT_TRUE(refused({.palette = short_palette}, "palette"));
  EXPECT_TRUE(refused({.dq_palette = dq}, "method"));
  EXPECT_TRUE(refused({.method = static_cast<SkinningMethod>(2)}, "method"));
  EXPECT_TRUE(
      refused({.method = SkinningMethod::kDualQuaternion, .dq_palette = short_dq}, "dq_palette"));
  EXPECT_TRUE(refused({.output = {short_positions, {}, {}}}, "output.positions"));
  EXPECT_TRUE(refused({.output = {f.positions, short_normals, {}}}, "output.normals"));
  EXPECT_TRUE(refused({.begin = 5, .end = 11}, "end"));
  EXPECT_TRUE(refused({.begin = 6, .end = 5}, "begin"));
  EXPECT_TRUE(refused({.begin = 11}, "begin"));
  // The calls take the same checks.
  EXPECT_FALSE(skin(mesh, short_palette, SkinningMethod::kLinear, f.out()));
  EXPECT_FALSE(skin(mesh, c.palette, SkinningMethod::kLinear, {short_positions, {}, {}}));
  EXPECT_FALSE(skin(mesh, c.palette, SkinningMethod::kLinear, f.out(), 5, 11));
  EXPECT_FALSE(skin(mesh, c.palette, SkinningMethod::kLinear, f.out(), 6, 5));
  EXPECT_FALSE(skin(mesh, c.palette, SkinningMethod::kLinear, {f.positions, short_normals, {}}));
  // Nothing was written by the failed calls.
  for (const Vec3& p : f.positions) EXPECT_EQ(p, (Vec3{0, 0, 0}));
  // Normals and tangents may be skipped; an empty range is fine.
  EXPECT_TRUE(skin(mesh, c.palette, SkinningMethod::kDualQuaternion, {f.positions, {}, {}}));
  for (const Vec3& n : f.normals) EXPECT_EQ(n, (Vec3{0, 0, 0}));
  EXPECT_TRUE((SkinningJob{.mesh = &mesh, .palette = c.palette, .output = f.out(), .begin = 10}
                   .validate()
                   .ok()));
}

TEST(SkinKernels, LargePaletteDualQuatPathMatchesReference) {
  // More joints than the stack conversion buffer holds: per-influence conversion.
  check_all_paths(make_case(21, 120, 300, true, [](std::size_t v) { return 1 + v % 5; }),
                  "300 joints");
}

SkinnedMesh one_vertex(Vec3 p, Vec3 n, std::vector<std::uint16_t> joints,
                       std::vector<float> weights) {
  SkinnedMesh m;
  m.name = "one";
  m.positions = {p};
  m.normals = {n};
  m.influence_offsets = {0, static_cast<std::uint32_t>(joints.size())};
  m.influence_joints = std::move(joints);
  m.influence_weights = std::move(weights);
  return m;
}

TEST(SkinKernels, DqsKeepsTheRadiusOfATwistWhereLbsShrinksIt) {
  // (0, 1, 0) half on the identity, half on a 90 degree twist about x. LBS averages the two
  // images, (0, 1, 0) and (0, 0, 1): (0, 0.5, 0.5). DQS blends the rotations: 45 degrees,
  // (0, cos 45, sin 45), still at distance 1 from the axis.
  const SkinnedMesh m = one_vertex({0, 1, 0}, {0, 1, 0}, {0, 1}, {0.5f, 0.5f});
  auto built = SkinningMesh::build(m, 2);
  ASSERT_TRUE(built.ok());
  const std::vector<Mat4> palette{
      Mat4::identity(), mat4_from_trs({}, from_axis_angle({1, 0, 0}, 1.5707964f), {1, 1, 1})};
  const float h = std::sqrt(0.5f);
  for (int fast = 0; fast < 2; ++fast) {
    Frame lbs(1), dqs(1);
    auto run = [&](SkinningMethod method, Frame& f) {
      return fast ? skin(built.value(), palette, method, {f.positions, f.normals, {}})
                  : skin_reference(built.value(), palette, method, {f.positions, f.normals, {}}, 0,
                                   1);
    };
    ASSERT_TRUE(run(SkinningMethod::kLinear, lbs));
    ASSERT_TRUE(run(SkinningMethod::kDualQuaternion, dqs));
    EXPECT_LT(length(lbs.positions[0] - Vec3{0, 0.5f, 0.5f}), 1e-6f);
    EXPECT_LT(length(dqs.positions[0] - Vec3{0, h, h}), 1e-6f);
    EXPECT_LT(length(lbs.normals[0] - Vec3{0, h, h}), 1e-6f);
    EXPECT_LT(length(dqs.normals[0] - Vec3{0, h, h}), 1e-6f);
  }
}

TEST(SkinKernels, MirroredJointFlipsNormalsLikeTheInverseTranspose) {
  // A mirror in x: the inverse transpose of diag(-1, 1, 1) is itself, so the normal (1, 0, 0)
  // becomes (-1, 0, 0) (the cofactor matrix alone would give (1, 0, 0)).
  const SkinnedMesh m = one_vertex({1, 2, 3}, {1, 0, 0}, {0}, {1});
  auto built = SkinningMesh::build(m, 1);
  ASSERT_TRUE(built.ok());
  const std::vector<Mat4> palette{mat4_from_trs({0, 0, 1}, Quat::identity(), {-1, 1, 1})};
  for (SkinningMethod method : {SkinningMethod::kLinear, SkinningMethod::kDualQuaternion}) {
    Frame f(1);
    ASSERT_TRUE(skin(built.value(), palette, method, {f.positions, f.normals, {}}));
    EXPECT_LT(length(f.positions[0] - Vec3{-1, 2, 4}), 1e-6f);
    EXPECT_LT(length(f.normals[0] - Vec3{-1, 0, 0}), 1e-6f);
  }
}

TEST(SkinKernels, ZeroScaleJointCollapsesWithoutNaN) {
  // Animators hide parts by scaling a joint to zero: its vertices collapse onto the joint's
  // origin, and normals that no longer exist come out as zero, never NaN.
  const SkinnedMesh m = one_vertex({1, 2, 3}, {0, 0, 1}, {0}, {1});
  auto built = SkinningMesh::build(m, 1);
  ASSERT_TRUE(built.ok());
  const std::vector<Mat4> palette{mat4_from_trs({4, 5, 6}, Quat::identity(), {0, 0, 0})};
  std::vector<DqsJoint> dq(1);
  ASSERT_TRUE(compute_dual_quat_palette(palette, dq));
  for (int fast = 0; fast < 2; ++fast) {
    for (SkinningMethod method : {SkinningMethod::kLinear, SkinningMethod::kDualQuaternion}) {
      Frame f(1);
      ASSERT_TRUE(fast ? skin(built.value(), palette, method, {f.positions, f.normals, {}})
                       : skin_reference(built.value(), palette, method,
                                        {f.positions, f.normals, {}}, 0, 1));
      EXPECT_EQ(f.positions[0], (Vec3{4, 5, 6}));
      EXPECT_EQ(f.normals[0], (Vec3{0, 0, 0}));
    }
  }
}

}  // namespace
}  // namespace marrow
