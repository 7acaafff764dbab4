// Forced joints in local and model space.
#include "marrow/pose/force.h"

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <string>
#include <vector>

#include "job_checks.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "pose_test_util.h"

namespace marrow {
namespace {

using test::axis_angle;
using test::bit_equal;
using test::near;

using test::kX;
using test::kY;
using test::kZ;

::testing::AssertionResult near(const Mat4& a, const Mat4& b, float tol) {
  for (int i = 0; i < 16; ++i) {
    if (!(std::fabs(a.m[i] - b.m[i]) <= tol)) {
      return ::testing::AssertionFailure() << "element " << i << ": " << a.m[i] << " vs " << b.m[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// The character bent at the waist and chest, hips moved: parents that matter.
std::vector<Transform> bent_pose(const Skeleton& s) {
  std::vector<Transform> pose(s.rest_pose().begin(), s.rest_pose().end());
  pose[test::kHips].translation = {0.3f, 0.9f, -0.2f};
  pose[test::kWaist].rotation = axis_angle(kY, 90);
  pose[test::kChest].rotation = axis_angle(kX, 30);
  pose[test::kShoulderR].rotation = axis_angle(kZ, -40);
  pose[test::kElbowR].rotation = axis_angle(kZ, 25);
  return pose;
}

std::vector<Mat4> model_of(const Skeleton& s, std::span<const Transform> pose,
                           const Mat4& root = Mat4::identity()) {
  std::vector<Mat4> model(s.size());
  LocalToModelJob job{.skeleton = &s, .local = pose, .model = model, .root = root};
  EXPECT_TRUE(job.run());
  return model;
}

TEST(Force, LocalForceReplacesTheJointExactly) {
  const Skeleton s = test::character();
  const std::vector<Transform> before = bent_pose(s);
  std::vector<Transform> pose = before;
  const Transform target{{0.1f, 0.2f, 0.3f}, axis_angle(kY, 77), {1, 2, 1}};
  const std::array forces{ForcedJoint{.joint = test::kElbowR, .transform = target}};
  ForceJob job{.skeleton = &s, .forces = forces, .pose = pose};
  ASSERT_TRUE(job.run());
  for (std::size_t j = 0; j < s.size(); ++j) {
    EXPECT_TRUE(bit_equal(pose[j], j == test::kElbowR ? target : before[j])) << s.name(j);
  }
}

TEST(Force, ModelForcePlacesTheJointAndItsDescendantsFollow) {
  const Skeleton s = test::character();
  const Transform target{{0.5f, 1.8f, 0.3f}, axis_angle(test::unit(Vec3{1, 1, 0}), 70), {1, 1, 1}};
  const Mat4 translate_turn = mat4_from_trs({1, 0, -2}, axis_angle(kY, -35), {1, 1, 1});
  for (const Mat4& root : {Mat4::identity(), translate_turn}) {
    std::vector<Transform> pose = bent_pose(s);
    const std::vector<Mat4> before = model_of(s, pose, root);
    const std::array forces{
        ForcedJoint{.joint = test::kElbowR, .space = ForceSpace::kModel, .transform = target}};
    ForceJob job{.skeleton = &s, .forces = forces, .root = root, .pose = pose};
    ASSERT_TRUE(job.run());
    const std::vector<Mat4> model = model_of(s, pose, root);
    EXPECT_TRUE(near(model[test::kElbowR], to_matrix(target), 2e-6f));
    // The hand hangs 0.25 along the elbow's x: target position + rotation · (0.25, 0, 0).
    EXPECT_TRUE(near(model[test::kHandR].translation(),
                     target.translation + rotate(target.rotation, {0.25f, 0, 0}), 2e-6f));
    // Every joint not under the elbow stays where it was.
    for (std::size_t j = 0; j < s.size(); ++j) {
      if (!s.is_descendant(static_cast<JointIndex>(j), test::kElbowR)) {
        EXPECT_EQ(model[j], before[j]) << s.name(j);
      }
    }
  }
}

TEST(Force, ModelForceOnARootUsesTheRootMatrix) {
  const Skeleton s = test::character();
  const Mat4 root = mat4_from_trs({0, 0, 5}, axis_angle(kZ, 90), {2, 2, 2});
  std::vector<Transform> pose = bent_pose(s);
  const Transform target{{1, 2, 3}, axis_angle(kX, 45), {2, 2, 2}};
  const std::array forces{
      ForcedJoint{.joint = test::kHips, .space = ForceSpace::kModel, .transform = target}};
  ForceJob job{.skeleton = &s, .forces = forces, .root = root, .pose = pose};
  ASSERT_TRUE(job.run());
  // root⁻¹ · target by hand: undo the 90° turn about z (x' = y, y' = -x), the lift of 5 and the
  // scale of 2: position ((2 - 0) / 2, -(1 - 0) / 2, (3 - 5) / 2) = (1, -0.5, -1), unit scale.
  EXPECT_TRUE(near(pose[test::kHips],
                   Transform{{1, -0.5f, -1}, axis_angle(kZ, -90) * axis_angle(kX, 45), {1, 1, 1}},
                   2e-6f));
  EXPECT_TRUE(near(model_of(s, pose, root)[test::kHips], to_matrix(target), 2e-6f));
}

TEST(Force, ChainedModelForcesBothLand) {
  const Skeleton s = test::character();
  std::vector<Transform> pose = bent_pose(s);
  const Transform shoulder{{0.2f, 1.6f, 0}, axis_angle(kZ, 90), {1, 1, 1}};
  const Transform hand{{0.4f, 2.0f, 0.1f}, axis_angle(kY, 30), {1, 1, 1}};
  const std::array forces{
      ForcedJoint{.joint = test::kShoulderR, .space = ForceSpace::kModel, .transform = shoulder},
      ForcedJoint{.joint = test::kHandR, .space = ForceSpace::kModel, .transform = hand}};
  ForceJob job{.skeleton = &s, .forces = forces, .pose = pose};
  ASSERT_TRUE(job.run());
  const std::vector<Mat4> model = model_of(s, pose);
  EXPECT_TRUE(near(model[test::kShoulderR], to_matrix(shoulder), 2e-6f));
  EXPECT_TRUE(near(model[test::kHandR], to_matrix(hand), 2e-6f));
  // The elbow, between them, follows the forced shoulder.
  EXPECT_TRUE(near(model[test::kElbowR].translation(),
                   shoulder.translation + rotate(shoulder.rotation, {0.3f, 0, 0}), 2e-6f));
}

TEST(Force, ModelForceUnderNonUniformScaleKeepsThePosition) {
  const Skeleton s = test::character();
  std::vector<Transform> pose = bent_pose(s);
  pose[test::kShoulderR].scale = {2, 1, 0.5f};  // shear below it cannot be held by TRS
  const Transform target{{0.4f, 1.7f, 0.2f}, axis_angle(test::unit(Vec3{1, 2, 3}), 50), {1, 1, 1}};
  const std::array forces{
      ForcedJoint{.joint = test::kElbowR, .space = ForceSpace::kModel, .transform = target}};
  ForceJob job{.skeleton = &s, .forces = forces, .pose = pose};
  ASSERT_TRUE(job.run());
  ASSERT_TRUE(test::all_finite(pose));
  // Documented: the position is exact, the orientation the closest TRS can give.
  EXPECT_TRUE(near(model_of(s, pose)[test::kElbowR].translation(), target.translation, 2e-6f));
}

TEST(Force, WeightFadesTheForceInLocalSpace) {
  const Skeleton s = test::character();
  const std::vector<Transform> before = bent_pose(s);
  const Transform target{{0.3f, 0, 0.4f}, axis_angle(kZ, 85), {3, 1, 1}};
  for (const float w : {0.0f, 0.5f, 1.0f}) {
    std::vector<Transform> pose = before;
    const std::array forces{ForcedJoint{.joint = test::kElbowR, .transform = target, .weight = w}};
    ForceJob job{.skeleton = &s, .forces = forces, .pose = pose};
    ASSERT_TRUE(job.run());
    EXPECT_TRUE(bit_equal(pose[test::kElbowR], lerp(before[test::kElbowR], target, w)));
  }
  // Halfway by hand: elbow at (0.3, 0, 0) rotated 25° → (0.3, 0, 0.2), 55°, scale (2, 1, 1).
  std::vector<Transform> pose = before;
  const std::array forces{ForcedJoint{.joint = test::kElbowR, .transform = target, .weight = 0.5f}};
  ForceJob job{.skeleton = &s, .forces = forces, .pose = pose};
  ASSERT_TRUE(job.run());
  EXPECT_TRUE(
      near(pose[test::kElbowR], Transform{{0.3f, 0, 0.2f}, axis_angle(kZ, 55), {2, 1, 1}}, 1e-6f));
}

TEST(Force, SingularParentSkipsTheForce) {
  const Skeleton s = test::character();
  std::vector<Transform> pose = bent_pose(s);
  pose[test::kShoulderR].scale = {0, 1, 1};
  const std::vector<Transform> before = pose;
  const std::array forces{
      ForcedJoint{.joint = test::kElbowR, .space = ForceSpace::kModel, .transform = Transform{}}};
  ForceJob job{.skeleton = &s, .forces = forces, .pose = pose};
  ASSERT_TRUE(job.run());
  for (std::size_t j = 0; j < s.size(); ++j) EXPECT_TRUE(bit_equal(pose[j], before[j]));
}

TEST(Force, InvalidJobsChangeNothing) {
  const Skeleton s = test::character();
  const std::vector<Transform> before = bent_pose(s);
  std::vector<Transform> pose = before;
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  const auto check = [&](const char* refused, std::vector<ForcedJoint> forces, ForceJob job = {}) {
    if (!job.skeleton) job.skeleton = &s;
    if (job.pose.empty()) job.pose = pose;
    job.forces = forces;
    EXPECT_TRUE(test::refused_naming(job.validate(), std::string("ForceJob: ") + refused));
    EXPECT_FALSE(job.run());
    for (std::size_t j = 0; j < s.size(); ++j) EXPECT_TRUE(bit_equal(pose[j], before[j]));
  };
  const Transform t{{1, 1, 1}, {}, {1, 1, 1}};
  check("forces[1].joint", {{.joint = 5, .transform = t}, {.joint = 3, .transform = t}});
  check("forces[1].joint", {{.joint = 3, .transform = t}, {.joint = 3, .transform = t}});
  check("forces[0].joint", {{.joint = test::kJointCount, .transform = t}});
  check("forces[0].transform", {{.joint = 3, .transform = Transform{{kNaN, 0, 0}, {}, {}}}});
  check("forces[0].weight", {{.joint = 3, .transform = t, .weight = 1.5f}});
  check("forces[1].weight",
        {{.joint = 1, .transform = t}, {.joint = 3, .transform = t, .weight = kNaN}});
  check("forces[0].space", {{.joint = 3, .space = static_cast<ForceSpace>(7), .transform = t}});
  check("pose", {{.joint = 3, .transform = t}}, {.pose = std::span(pose).first(4)});
  Mat4 nan_root;
  nan_root.m[13] = kNaN;
  check("root", {{.joint = 3, .transform = t}}, {.skeleton = &s, .root = nan_root});
  ForceJob no_skeleton{.forces = {}, .pose = pose};
  EXPECT_TRUE(test::refused_naming(no_skeleton.validate(), "ForceJob: skeleton"));
  EXPECT_FALSE(no_skeleton.run());
  ForceJob nothing{.skeleton = &s, .pose = pose};
  EXPECT_TRUE(nothing.run());
}

TEST(Force, ModelMatrixOfMatchesLocalToModel) {
  const Skeleton s = test::character();
  const std::vector<Transform> pose = bent_pose(s);
  const Mat4 root = mat4_from_trs({1, 2, 3}, axis_angle(kX, 20), {1, 1, 1});
  const std::vector<Mat4> model = model_of(s, pose, root);
  for (std::size_t j = 0; j < s.size(); ++j) {
    EXPECT_TRUE(near(model_matrix_of(s, pose, static_cast<JointIndex>(j), root), model[j], 1e-6f))
        << s.name(j);
  }
}

}  // namespace
}  // namespace marrow
