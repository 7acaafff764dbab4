// marrow's Collada reader: curves against values computed by hand from their control points,
// a Maya-style chain (per-axis rotate channels, a matrix channel, centimetres, Z up) against
// hand-composed matrices, skin and morph controllers, names, and the baked clips against the
// exact evaluation between keys.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <random>

#include "collada_test_util.h"
#include "marrow/clip/sampling.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/morph.h"

namespace marrow {
namespace {

using collada_test::bytes;

ColladaReference read(const std::string& text, const std::string& name,
                      const ColladaBakeTolerance& tolerance = {}) {
  Result<ColladaReference> r = ColladaReference::read(bytes(text), name, tolerance);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok()) std::abort();
  return std::move(r).value();
}

// The baked local transform of `joint` in clip 0 at `t`.
Transform baked(const Asset& a, JointIndex joint, float t, std::size_t clip = 0) {
  std::vector<Transform> pose(a.skeleton.rest_pose().begin(), a.skeleton.rest_pose().end());
  EXPECT_TRUE(sample_tracks(a.clips.at(clip), t, pose));
  return pose[joint];
}

JointIndex joint(const Asset& a, const char* name) {
  const auto j = a.skeleton.find(name);
  EXPECT_TRUE(j) << name;
  return j ? *j : JointIndex{0};
}

// ----------------------------------------------------------------------------------- curves

TEST(ColladaCurves, BezierAndHermiteAreSolvedInTimeThenEvaluated) {
  // The default translation tolerance here would be 1e-5 x 30 (the Z channel's reach); ask for
  // 2e-6 so that the baked curve, too, is within 1e-5 of the hand values.
  ColladaBakeTolerance tight;
  tight.translation = 2e-6;
  const ColladaReference ref = read(collada_test::curves_document(), "curves.dae", tight);
  const Asset& a = ref.asset();
  const JointIndex n = joint(a, "n");
  // x(s) = t solved for s, then the value polynomial at s (collada_test_util.h), to 20 digits:
  //   BEZIER  t = 0.5: s = 0.1227046455, X = 1.1765931485;  t = 1: s = 0.2793051032,
  //           X = 1.9531017053;  t = 1.5: s = 0.5073064759, X = 2.1192842030
  //   HERMITE t = 0.5: s = 0.1822683261, Y = 1.9878894571;  t = 1: s = 0.4039283620,
  //           Y = 2.8681916144;  t = 1.7: s = 0.8025653627, Y = 3.3661173841
  const struct {
    double t, x, y;
  } expected[] = {{0.5, 1.17659314852280830, 1.98788945713352239},
                  {1.0, 1.95310170529711692, 2.86819161435128054},
                  {1.5, 2.11928420302206108, std::nan("")},
                  {1.7, std::nan(""), 3.36611738407521463}};
  for (const auto& e : expected) {
    const Vec3 exact = ref.local_matrix(0, n, e.t).translation();
    const Vec3 b = baked(a, n, static_cast<float>(e.t)).translation;
    if (!std::isnan(e.x)) {
      EXPECT_NEAR(exact.x, e.x, 1e-5) << e.t;
      EXPECT_NEAR(b.x, e.x, 1e-5) << e.t;
    }
    if (!std::isnan(e.y)) {
      EXPECT_NEAR(exact.y, e.y, 1e-5) << e.t;
      EXPECT_NEAR(b.y, e.y, 1e-5) << e.t;
    }
  }
  // The same s found here by Newton's method on the cubic, independently of the reader.
  auto solve = [](double t, double a1, double a2, double a3) {
    double s = 0.5;
    for (int i = 0; i < 50; ++i) {
      const double f = a1 * s + a2 * s * s + a3 * s * s * s - t;
      s -= f / (a1 + 2 * a2 * s + 3 * a3 * s * s);
    }
    return s;
  };
  for (double t : {0.25, 0.8, 1.25, 1.9}) {
    const double s = solve(t, 4.5, -3.6, 1.1);
    const double x = 12 * s - 21 * s * s + 11 * s * s * s;
    EXPECT_NEAR(ref.local_matrix(0, n, t).translation().x, x, 1e-5) << t;
    const double sh = solve(t, 3, -1.5, 0.5);
    const double y = 1 + 6 * sh - 3 * sh * sh - sh * sh * sh;
    EXPECT_NEAR(ref.local_matrix(0, n, t).translation().y, y, 1e-5) << t;
    EXPECT_NEAR(baked(a, n, static_cast<float>(t)).translation.y, y, 1e-5) << t;
  }
}

TEST(ColladaCurves, RepeatedTimesJumpAndTheBakeKeepsTheJump) {
  const ColladaReference ref = read(collada_test::curves_document(), "curves.dae");
  const JointIndex n = joint(ref.asset(), "n");
  // Z: 0 -> 10 over [0, 1), then 20 -> 30 over [1, 2].
  EXPECT_NEAR(ref.local_matrix(0, n, 0.5).translation().z, 5, 1e-6);
  EXPECT_NEAR(ref.local_matrix(0, n, 1.0).translation().z, 20, 1e-6);
  EXPECT_NEAR(ref.local_matrix(0, n, 1.5).translation().z, 25, 1e-6);
  EXPECT_NEAR(baked(ref.asset(), n, 0.999f).translation.z, 9.99f, 1e-4);
  EXPECT_NEAR(baked(ref.asset(), n, 1.0f).translation.z, 20, 1e-4);
  EXPECT_NEAR(baked(ref.asset(), n, 1.25f).translation.z, 22.5f, 1e-4);
}

// ------------------------------------------------------------------------- Maya-style chain

using M3 = std::array<std::array<double, 3>, 3>;
M3 mul(const M3& a, const M3& b) {
  M3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[i][j] += a[i][k] * b[k][j];
  return r;
}
M3 rot_x(double deg) {
  const double a = deg * std::numbers::pi / 180, c = std::cos(a), s = std::sin(a);
  return {{{1, 0, 0}, {0, c, -s}, {0, s, c}}};
}
M3 rot_y(double deg) {
  const double a = deg * std::numbers::pi / 180, c = std::cos(a), s = std::sin(a);
  return {{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}};
}
M3 rot_z(double deg) {
  const double a = deg * std::numbers::pi / 180, c = std::cos(a), s = std::sin(a);
  return {{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}};
}

TEST(ColladaMaya, PerAxisRotateChannelsComposeInDocumentOrder) {
  const ColladaReference ref = read(collada_test::maya_document(), "maya.dae");
  const Asset& a = ref.asset();
  const JointIndex j1 = joint(a, "joint1");
  for (double t : {0.0, 0.25, 0.5, 0.8, 1.0}) {
    // translate (1,2,3) + t (3,3,3); Rz(90 t) Ry(60 t) Rx(-30 t), in that order.
    const M3 r = mul(mul(rot_z(90 * t), rot_y(60 * t)), rot_x(-30 * t));
    const double tr[3] = {1 + 3 * t, 2 + 3 * t, 3 + 3 * t};
    for (const bool exact : {true, false}) {
      const Mat4 m =
          exact ? ref.local_matrix(0, j1, t) : to_matrix(baked(a, j1, static_cast<float>(t)));
      for (int row = 0; row < 3; ++row) {
        EXPECT_NEAR(m(row, 3), tr[row], 1e-5) << t;
        for (int col = 0; col < 3; ++col)
          EXPECT_NEAR(m(row, col), r[row][col], 2e-5)
              << "t " << t << " (" << row << "," << col << ") exact " << exact;
      }
    }
  }
}

TEST(ColladaMaya, MatrixChannelKeysAreInterpolatedAsRotation) {
  const ColladaReference ref = read(collada_test::maya_document(), "maya.dae");
  const JointIndex j2 = joint(ref.asset(), "joint2");  // no name: its id
  // Half way between the identity and 90 degrees about x: 45 degrees, translation (0, 5, 0).
  const M3 r = rot_x(45);
  for (const bool exact : {true, false}) {
    const Mat4 m = exact ? ref.local_matrix(0, j2, 0.5) : to_matrix(baked(ref.asset(), j2, 0.5f));
    EXPECT_NEAR(m(1, 3), 5, 1e-5);
    for (int row = 0; row < 3; ++row)
      for (int col = 0; col < 3; ++col) EXPECT_NEAR(m(row, col), r[row][col], 1e-5);
  }
  // At the keys, the file's matrices.
  const Mat4 k1 = ref.local_matrix(0, j2, 1.0);
  EXPECT_NEAR(k1(1, 2), -1, 1e-6);
  EXPECT_NEAR(k1(2, 1), 1, 1e-6);
}

TEST(ColladaMaya, CentimetresAndZUpSitOnTheSceneRoot) {
  const ColladaReference ref = read(collada_test::maya_document(), "maya.dae");
  const Asset& a = ref.asset();
  EXPECT_EQ(a.skeleton.name(0), "scene");
  std::vector<Mat4> model(a.skeleton.size());
  ASSERT_TRUE(local_to_model(a.skeleton, a.skeleton.rest_pose(), model));
  // joint1 at (1, 2, 3) cm, Z up -> metres, Y up: 0.01 (x, z, -y) = (0.01, 0.03, -0.02).
  const Vec3 p = model[joint(a, "joint1")].translation();
  EXPECT_NEAR(p.x, 0.01f, 1e-7f);
  EXPECT_NEAR(p.y, 0.03f, 1e-7f);
  EXPECT_NEAR(p.z, -0.02f, 1e-7f);
}

// ------------------------------------------------------------------------- skin and morph

// ------------------------------------------------------------------ matrix-element channels

// "box" of matrix_element_document at t, by hand: 90 degrees about z, translation
// (1 + 2t, 2 + 4t, 3) from the x and y channels' linear keys.
void expect_box(const Mat4& m, double t, const char* what) {
  const double expected[4][4] = {
      {0, -1, 0, 1 + 2 * t}, {1, 0, 0, 2 + 4 * t}, {0, 0, 1, 3}, {0, 0, 0, 1}};
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 4; ++col)
      EXPECT_NEAR(m(row, col), expected[row][col], 2e-5)
          << what << " t " << t << " (" << row << "," << col << ")";
}

bool says(const Asset& a, const std::string& words) {
  for (const std::string& w : a.warnings)
    if (w.find(words) != std::string::npos) return true;
  return false;
}

TEST(ColladaMatrixChannels, ColumnThenRowAsColladaMaxWritesThemKeepsKeyZeroOnTheFilesMatrix) {
  const ColladaReference ref = read(collada_test::matrix_element_document(true), "max.dae");
  const JointIndex box = joint(ref.asset(), "box");
  for (double t : {0.0, 0.25, 0.5, 1.0}) {
    expect_box(ref.local_matrix(0, box, t), t, "exact");
    expect_box(to_matrix(baked(ref.asset(), box, static_cast<float>(t))), t, "baked");
  }
  // Every checked key agreed with the usual reading: nothing to report.
  EXPECT_FALSE(says(ref.asset(), "matrix channels"));
}

TEST(ColladaMatrixChannels, AFileWrittenRowThenColumnIsReadSoAndSaysWhy) {
  const ColladaReference ref = read(collada_test::matrix_element_document(false), "dom.dae");
  const JointIndex box = joint(ref.asset(), "box");
  for (double t : {0.0, 0.5, 1.0}) {
    expect_box(ref.local_matrix(0, box, t), t, "exact");
    expect_box(to_matrix(baked(ref.asset(), box, static_cast<float>(t))), t, "baked");
  }
  EXPECT_TRUE(says(ref.asset(), "read as row i, column j, not as column i, row j"));
  EXPECT_TRUE(says(ref.asset(), "0 of 4 channels"));
}

TEST(ColladaMatrixChannels, MembersVectorIndicesAndMatrixIndicesMixInOneNode) {
  const ColladaReference ref = read(collada_test::mixed_address_document(), "mixed.dae");
  const JointIndex arm = joint(ref.asset(), "arm");
  for (double t : {0.0, 0.25, 0.5, 1.0}) {
    // translate (2t, 0, 4t), then rotate 90t degrees about z, then the matrix's (0, 1 + 2t, 0).
    const double a = 90 * t * std::numbers::pi / 180, y = 1 + 2 * t;
    const double tr[3] = {2 * t - y * std::sin(a), y * std::cos(a), 4 * t};
    const M3 r = rot_z(90 * t);
    for (const bool exact : {true, false}) {
      const Mat4 m = exact ? ref.local_matrix(0, arm, t)
                           : to_matrix(baked(ref.asset(), arm, static_cast<float>(t)));
      for (int row = 0; row < 3; ++row) {
        EXPECT_NEAR(m(row, 3), tr[row], 2e-5) << "t " << t << " exact " << exact;
        for (int col = 0; col < 3; ++col)
          EXPECT_NEAR(m(row, col), r[row][col], 2e-5)
              << "t " << t << " (" << row << "," << col << ") exact " << exact;
      }
    }
  }
  EXPECT_FALSE(says(ref.asset(), "matrix channels"));
}

TEST(ColladaControllers, SkinOfAMorphGivesTargetsInfluencesAndBindShape) {
  const ColladaReference ref = read(collada_test::skin_morph_document(), "rig.dae");
  const Asset& a = ref.asset();
  ASSERT_EQ(a.meshes.size(), 1u);
  ASSERT_EQ(a.skins.size(), 1u);
  const SkinnedMesh& m = a.meshes[0];
  EXPECT_EQ(m.vertex_count(), 4u);
  EXPECT_EQ(m.indices.size(), 6u);  // the quad as a fan of two triangles
  // Joints found by sid ("b0", "b1"), shown by name, else id.
  EXPECT_EQ(a.skeleton.name(a.skins[0].joints[0]), "root");
  EXPECT_EQ(a.skeleton.name(a.skins[0].joints[1]), "rig-tip");
  // Inverse bind matrices with the bind shape folded in: IBM_1 * translate(0, 0, 1).
  const Mat4& ibm1 = a.skins[0].inverse_bind_matrices[1];
  EXPECT_NEAR(ibm1(1, 3), -1, 1e-6);
  EXPECT_NEAR(ibm1(2, 3), 1, 1e-6);
  // Influences: position 2 half on each joint.
  ASSERT_EQ(m.influence_offsets.size(), 5u);
  for (std::size_t v = 0; v < 4; ++v) {
    const std::uint32_t n = m.influence_offsets[v + 1] - m.influence_offsets[v];
    EXPECT_EQ(n, m.positions[v].y == 1.0f ? 2u : 1u) << v;
  }
  // One target: the two top vertices one higher, named after its geometry; default 0.25.
  ASSERT_EQ(m.morph_targets.size(), 1u);
  EXPECT_EQ(m.morph_targets[0].name, "quad-up");
  ASSERT_EQ(m.morph_targets[0].vertices.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(m.positions[m.morph_targets[0].vertices[i]].y, 1.0f);
    EXPECT_EQ(m.morph_targets[0].position_deltas[i], (Vec3{0, 1, 0}));
  }
  EXPECT_EQ(m.default_morph_weights, (std::vector<float>{0.25f}));
  // The weight channel: 0.25 -> 1 over a second; 0.625 at 0.5 s, exactly and baked.
  ASSERT_EQ(a.clips.size(), 1u);
  ASSERT_EQ(a.clips[0].weight_tracks().size(), 1u);
  std::vector<float> w = {0};
  ASSERT_TRUE(sample_weight_tracks(a.clips[0], 0.5f, w));
  EXPECT_NEAR(w[0], 0.625f, 1e-6f);
  EXPECT_NEAR(ref.morph_weight(0, 0, 0.5), 0.625f, 1e-6f);
}

// ------------------------------------------------------------------------------ the bake

// The largest error of the baked clips against the exact evaluation at `samples` random times
// per clip, in units of the tolerance (translation, rotation, scale; morph weights).
double worst_bake_error(const ColladaReference& ref, int samples) {
  const Asset& a = ref.asset();
  const ColladaBakeTolerance& tol = ref.tolerance();
  std::mt19937 rng(42);
  double worst = 0;
  for (std::size_t c = 0; c < a.clips.size(); ++c) {
    const Clip& clip = a.clips[c];
    std::vector<bool> animated(a.skeleton.size(), false);
    for (const Track& t : clip.tracks()) animated[t.joint] = true;
    std::uniform_real_distribution<double> when(0, clip.duration());
    std::vector<Transform> pose(a.skeleton.rest_pose().begin(), a.skeleton.rest_pose().end());
    for (int s = 0; s < samples; ++s) {
      const double t = when(rng);
      sample_tracks(clip, static_cast<float>(t), pose);
      for (std::size_t j = 0; j < a.skeleton.size(); ++j) {
        if (!animated[j]) continue;
        const Transform e = decompose(ref.local_matrix(c, static_cast<JointIndex>(j), t)).transform;
        const Transform& b = pose[j];
        const Quat d = conjugate(e.rotation) * b.rotation;
        const double angle =
            2 * std::atan2(std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z), std::fabs(d.w));
        worst = std::max(
            {worst, length(e.translation - b.translation) / tol.translation, angle / tol.rotation});
      }
      const MorphLayout layout = MorphLayout::build(a.meshes);
      std::vector<float> w(layout.default_weights().begin(), layout.default_weights().end());
      sample_weight_tracks(clip, static_cast<float>(t), w);
      for (std::size_t k = 0; k < w.size(); ++k)
        worst = std::max(worst, std::fabs(w[k] - ref.morph_weight(c, k, t)) / tol.weight);
    }
  }
  return worst;
}

TEST(ColladaBake, HandFilesStayWithinTheToleranceBetweenKeys) {
  for (const auto& [text, name] : {std::pair{collada_test::curves_document(), "curves.dae"},
                                   std::pair{collada_test::maya_document(), "maya.dae"},
                                   std::pair{collada_test::skin_morph_document(), "rig.dae"}}) {
    const ColladaReference ref = read(text, name);
    EXPECT_LE(worst_bake_error(ref, 2000), 1.5) << name;
  }
}

TEST(ColladaBake, SharedFilesStayWithinTheToleranceBetweenKeys) {
  for (const char* f :
       {"collada/pab/walk.dae", "collada/pab/skeleton.dae",
        "collada/assimp/anims_with_full_rotations_between_keys.DAE",
        "collada/assimp/library_animation_clips.dae", "collada/assimp/box_nested_animation.dae"}) {
    const std::string path = collada_test::shared(f);
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const ColladaReference ref = read(text, path);
    EXPECT_LE(worst_bake_error(ref, 200), 1.5) << f;
  }
}

}  // namespace
}  // namespace marrow
