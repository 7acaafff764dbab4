// Aim IK against hand-computed geometry: the axis points at the target within 1e-5 rad, the up
// axis follows the pole, offsets put the target on the ray, limits hold, bad input is a no-op.
#include "marrow/ik/aim_ik.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ik_test_util.h"
#include "job_checks.h"

namespace marrow {
namespace {

using test::near;

float angle_of(Vec3 a, Vec3 b) {
  return std::atan2(length(cross(a, b)), dot(a, b));
}

// body (under a turned, scaled root) -> neck -> head at (0, 1.5, 0) in model space before the
// root's transform; the head looks along its local +z.
struct Head {
  Skeleton skeleton;
  std::vector<Transform> local;
  std::vector<Mat4> model;
  static constexpr JointIndex kHead = 2;

  explicit Head(Transform root = {}) {
    Transform neck;
    neck.translation = {0, 1.4f, 0};
    neck.rotation = from_axis_angle({0, 1, 0}, 0.3f);  // a neck turned a little
    Transform head;
    head.translation = {0, 0.1f, 0};
    const std::vector<JointDesc> joints = {
        {"body", -1, root}, {"neck", 0, neck}, {"head", 1, head}};
    skeleton = Skeleton::build(joints, "head").value();
    local.assign(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
    model = test::model_of(skeleton, local);
  }
  AimIkJob job(Vec3 target) {
    AimIkJob j;
    j.skeleton = &skeleton;
    j.joint = kHead;
    j.target = target;
    j.model = model;
    j.local = local;
    return j;
  }
  bool solve(const AimIkJob& j) {
    const bool ok = j.run();
    model = test::model_of(skeleton, local);
    return ok;
  }
  Vec3 axis(Vec3 local_axis) const {
    return normalize_vec(transform_vector(model[kHead], local_axis));
  }
  Vec3 position() const { return model[kHead].translation(); }
  static Vec3 normalize_vec(Vec3 v) { return v * (1.0f / length(v)); }
};

TEST(AimIk, TheForwardAxisPointsAtTheTargetWithin1e5Radians) {
  for (const Vec3 target : {Vec3{1, 2, 3}, Vec3{-4, 1.5f, 0.2f}, Vec3{0, 1.5f, -2},
                            Vec3{0, 10, 0.001f}, Vec3{0.01f, 1.5f, 0.02f}}) {
    Head h;
    bool reached = false;
    AimIkJob j = h.job(target);
    j.reached = &reached;
    ASSERT_TRUE(h.solve(j));
    EXPECT_TRUE(reached);
    EXPECT_LE(angle_of(h.axis({0, 0, 1}), target - h.position()), 1e-5f)
        << target.x << " " << target.y << " " << target.z;
  }
  // The same under a root turned and scaled like a glTF armature, with another forward axis.
  Transform root;
  root.rotation = from_axis_angle({1, 0, 0}, -test::kPi / 2);
  root.scale = {0.01f, 0.01f, 0.01f};
  Head h(root);
  const Vec3 target{0.3f, 0.1f, -0.05f};
  AimIkJob j = h.job(target);
  j.forward = {0, 2, 0};  // length does not matter
  ASSERT_TRUE(h.solve(j));
  EXPECT_LE(angle_of(h.axis({0, 1, 0}), target - h.position()), 1e-5f);
}

TEST(AimIk, TheUpAxisTurnsTowardsThePoleVector) {
  // Looking along +x from the head, the pole +y: the head's up (+y) must lie in the plane of
  // forward and pole, on the pole's side, so it is +y itself; with the pole +z, it is +z.
  for (const Vec3 pole : {Vec3{0, 1, 0}, Vec3{0, 0, 1}, Vec3{0, -1, 1}}) {
    Head h;
    const Vec3 target = h.position() + Vec3{5, 0, 0};
    AimIkJob j = h.job(target);
    j.up = {0, 1, 0};
    j.pole_vector = pole;
    ASSERT_TRUE(h.solve(j));
    EXPECT_LE(angle_of(h.axis({0, 0, 1}), {1, 0, 0}), 1e-5f);
    const Vec3 expected = Head::normalize_vec(pole);  // pole is already across +x
    EXPECT_TRUE(near(h.axis({0, 1, 0}), expected, 1e-5f));
  }
}

TEST(AimIk, WithAnOffsetTheRayFromTheOffsetPassesThroughTheTarget) {
  Head h;
  const Vec3 offset{0.05f, 0.1f, 0.08f};  // eyes ahead of and above the head joint
  const Vec3 target{2, 3, -1};
  bool reached = false;
  AimIkJob j = h.job(target);
  j.offset = offset;
  j.reached = &reached;
  ASSERT_TRUE(h.solve(j));
  EXPECT_TRUE(reached);
  const Vec3 origin = transform_point(h.model[Head::kHead], offset);
  const Vec3 dir = h.axis({0, 0, 1});
  // Distance of the target from the ray, relative to how far it is.
  const Vec3 to = target - origin;
  const Vec3 miss = to - dir * dot(to, dir);
  EXPECT_GT(dot(to, dir), 0);
  EXPECT_LE(length(miss) / length(to), 1e-5f);
  // A target inside the offset's reach (closer than the eyes): no ray can hit it; no NaN.
  Head close;
  AimIkJob k = close.job(close.position() + Vec3{0.01f, 0, 0});
  k.offset = {0, 0, 0.5f};
  k.reached = &reached;
  ASSERT_TRUE(close.solve(k));
  EXPECT_FALSE(reached);
  for (const Transform& t : close.local) EXPECT_TRUE(is_finite(t));
}

TEST(AimIk, TheConeLimitHoldsAroundTheRestDirection) {
  // The head's rest forward under its (turned) neck is the neck's +z; a target behind the head
  // can be faced only up to 30 degrees from it.
  Head h;
  const Vec3 rest_forward = h.axis({0, 0, 1});
  bool reached = true;
  AimIkJob j = h.job(h.position() - rest_forward * 3 + Vec3{0.5f, 0, 0});
  j.max_angle = test::deg(30);
  j.reached = &reached;
  ASSERT_TRUE(h.solve(j));
  EXPECT_FALSE(reached);
  EXPECT_NEAR(angle_of(h.axis({0, 0, 1}), rest_forward), test::deg(30), 1e-5f);
  // Within the cone the target is reached exactly.
  Head g;
  const Vec3 target = g.position() + g.axis({0, 0, 1}) * 2 + Vec3{0, 0.5f, 0};
  j = g.job(target);
  j.max_angle = test::deg(30);
  j.reached = &reached;
  ASSERT_TRUE(g.solve(j));
  EXPECT_TRUE(reached);
  EXPECT_LE(angle_of(g.axis({0, 0, 1}), target - g.position()), 1e-5f);
}

TEST(AimIk, WeightTurnsPartOfTheWay) {
  Head h;
  const Vec3 before = h.axis({0, 0, 1});
  const Vec3 target = h.position() + Vec3{0, 0, 0} + cross(before, {0, 1, 0}) * 4;  // 90 degrees
  AimIkJob j = h.job(target);
  j.weight = 0.5f;
  ASSERT_TRUE(h.solve(j));
  EXPECT_NEAR(angle_of(h.axis({0, 0, 1}), before), test::deg(45), 1e-4f);
}

TEST(AimIk, BadInputIsANoOpThatLeavesThePoseUnchanged) {
  Head h;
  const std::vector<Transform> before = h.local;
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(test::run_refused(h.job({nan, 0, 0}), "AimIkJob: target"));
  EXPECT_TRUE(test::run_refused(h.job({0, inf, 0}), "AimIkJob: target"));
  AimIkJob j = h.job({1, 1, 1});
  j.forward = {0, 0, 0};
  EXPECT_TRUE(test::run_refused(j, "AimIkJob: forward"));
  j = h.job({1, 1, 1});
  j.max_angle = -1;
  EXPECT_TRUE(test::run_refused(j, "AimIkJob: max_angle"));
  j = h.job({1, 1, 1});
  j.pole_vector = {nan, 0, 0};
  EXPECT_TRUE(test::run_refused(j, "AimIkJob: pole_vector"));
  j = h.job({1, 1, 1});
  j.joint = 7;
  EXPECT_TRUE(test::run_refused(j, "AimIkJob: joint"));
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(before[i], h.local[i]);
  // A target on the joint itself: valid, nothing to aim at, nothing changes.
  bool reached = true;
  j = h.job(h.position());
  j.reached = &reached;
  EXPECT_TRUE(j.run());
  EXPECT_FALSE(reached);
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(before[i], h.local[i]);
}

}  // namespace
}  // namespace marrow
