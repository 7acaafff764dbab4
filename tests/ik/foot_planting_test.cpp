// Foot planting on hand-made legs: ground heights per foot, a slope, the pelvis lowered so a
// leg can reach, contact weights, foot locks, and bad input.
#include "marrow/ik/foot_planting.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ik_test_util.h"
#include "job_checks.h"

namespace marrow {
namespace {

using test::at;
using test::near;

// Hips at (0, 1, 0); each leg: thigh 0.1 to the side, knee 0.45 down and 0.06 forward, ankle
// 0.45 down and 0.06 back, so the ankles stand at y = 0.1 (clearance above the ground at 0) and
// the knees bend forward a little. Leg length 2 * sqrt(0.45^2 + 0.06^2).
struct Legs {
  static constexpr JointIndex kHips = 0, kThighL = 1, kKneeL = 2, kAnkleL = 3, kThighR = 4,
                              kKneeR = 5, kAnkleR = 6;
  Skeleton skeleton;
  std::vector<Transform> local;
  std::vector<Mat4> model;
  FootPlantLeg legs[2];
  float leg_length = 2 * std::sqrt(0.45f * 0.45f + 0.06f * 0.06f);

  Legs() {
    const std::vector<JointDesc> joints = {{"hips", -1, at(0, 1, 0)},
                                           {"thigh_l", 0, at(0.1f, 0, 0)},
                                           {"knee_l", 1, at(0, -0.45f, 0.06f)},
                                           {"ankle_l", 2, at(0, -0.45f, -0.06f)},
                                           {"thigh_r", 0, at(-0.1f, 0, 0)},
                                           {"knee_r", 4, at(0, -0.45f, 0.06f)},
                                           {"ankle_r", 5, at(0, -0.45f, -0.06f)}};
    skeleton = Skeleton::build(joints, "legs").value();
    local.assign(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
    model = test::model_of(skeleton, local);
    legs[0] = {kThighL, kKneeL, kAnkleL, 1, 0, {0, 0, 1}, false, {}};
    legs[1] = {kThighR, kKneeR, kAnkleR, 1, 0, {0, 0, 1}, false, {}};
  }
  FootPlantingJob job(FootPlantingResult* result = nullptr) {
    FootPlantingJob j;
    j.skeleton = &skeleton;
    j.pelvis = kHips;
    j.legs = legs;
    j.local = local;
    j.model = model;
    j.result = result;
    return j;
  }
  Vec3 pos(JointIndex j) const { return model[j].translation(); }
  // The job keeps `model` current itself; this checks it against a full recomputation.
  void expect_model_current() const {
    const std::vector<Mat4> fresh = test::model_of(skeleton, local);
    for (std::size_t j = 0; j < fresh.size(); ++j) {
      EXPECT_TRUE(near(model[j].translation(), fresh[j].translation(), 1e-6f)) << "joint " << j;
    }
  }
};

TEST(FootPlanting, FeetAlreadyOnTheClipsGroundStayWhereTheyAre) {
  Legs l;
  const std::vector<Mat4> before = l.model;
  FootPlantingResult r;
  ASSERT_TRUE(l.job(&r).run());
  EXPECT_EQ(r.pelvis_offset, 0);
  EXPECT_TRUE(r.reached[0] && r.reached[1]);
  for (std::size_t j = 0; j < before.size(); ++j) {
    EXPECT_TRUE(near(l.pos(static_cast<JointIndex>(j)), before[j].translation(), 1e-5f));
  }
}

TEST(FootPlanting, AFootOnHigherGroundBendsItsKneeAndTheOtherStays) {
  Legs l;
  l.legs[0].ground_height = 0.05f;  // a step under the left foot
  FootPlantingResult r;
  ASSERT_TRUE(l.job(&r).run());
  l.expect_model_current();
  EXPECT_EQ(r.pelvis_offset, 0);  // the right foot did not move: the pelvis stays
  EXPECT_TRUE(near(l.pos(Legs::kAnkleL), {0.1f, 0.15f, 0}, 1e-4f * l.leg_length));
  EXPECT_TRUE(near(l.pos(Legs::kAnkleR), {-0.1f, 0.1f, 0}, 1e-4f * l.leg_length));
  EXPECT_GT(l.pos(Legs::kKneeL).z, 0.06f);  // bent more, forward (the pole)
}

TEST(FootPlanting, AFootOnLowerGroundLowersThePelvisBySoMuch) {
  Legs l;
  l.legs[0].ground_height = -0.1f;
  FootPlantingResult r;
  ASSERT_TRUE(l.job(&r).run());
  l.expect_model_current();
  EXPECT_NEAR(r.pelvis_offset, -0.1f, 1e-6f);
  EXPECT_TRUE(near(l.pos(Legs::kHips), {0, 0.9f, 0}, 1e-6f));
  EXPECT_TRUE(near(l.pos(Legs::kAnkleL), {0.1f, 0.0f, 0}, 1e-4f * l.leg_length));
  EXPECT_TRUE(near(l.pos(Legs::kAnkleR), {-0.1f, 0.1f, 0}, 1e-4f * l.leg_length));
}

TEST(FootPlanting, OnASlopeFeetKeepTheirClearanceAndLieOnThePlane) {
  // A plane through the origin rising 10 degrees towards +x: the ground under x is x tan 10.
  Legs l;
  const float slope = test::deg(10);
  const GroundPlane plane{{0, 0, 0}, {-std::sin(slope), std::cos(slope), 0}};
  FootPlantingResult r;
  FootPlantingJob j = l.job(&r);
  j.plane = &plane;
  ASSERT_TRUE(j.run());
  l.expect_model_current();
  const float rise = 0.1f * std::tan(slope);
  EXPECT_NEAR(r.pelvis_offset, -rise, 1e-6f);
  EXPECT_TRUE(near(l.pos(Legs::kAnkleL), {0.1f, 0.1f + rise, 0}, 1e-4f * l.leg_length));
  EXPECT_TRUE(near(l.pos(Legs::kAnkleR), {-0.1f, 0.1f - rise, 0}, 1e-4f * l.leg_length));
  // The feet (animated upright) now stand on the plane: their up axis is its normal.
  for (JointIndex a : {Legs::kAnkleL, Legs::kAnkleR}) {
    const Vec3 foot_up = transform_vector(l.model[a], {0, 1, 0});
    EXPECT_TRUE(near(foot_up, plane.normal, 1e-5f)) << "ankle " << a;
  }
}

TEST(FootPlanting, APelvisTooHighForAFarFootIsLoweredUntilTheLegReaches) {
  // The left foot locked 0.3 ahead: from the hip (0.1, 1, 0) the target (0.1, 0.1, 0.3) is
  // sqrt(0.81 + 0.09) = 0.949 away, beyond 0.999 of the leg. The pelvis goes down by d with
  // |(0, -0.9 - d, 0.3)| = 0.999 L: d = 0.9 - sqrt((0.999 L)^2 - 0.09).
  Legs l;
  l.legs[0].locked = true;
  l.legs[0].lock_position = {0.1f, 0.1f, 0.3f};
  FootPlantingResult r;
  ASSERT_TRUE(l.job(&r).run());
  l.expect_model_current();
  const float limit = 0.999f * l.leg_length;
  const float drop = 0.9f - std::sqrt(limit * limit - 0.09f);
  EXPECT_NEAR(r.pelvis_offset, -drop, 1e-5f);
  EXPECT_TRUE(r.reached[0]);
  EXPECT_TRUE(near(l.pos(Legs::kAnkleL), {0.1f, 0.1f, 0.3f}, 1e-4f * l.leg_length));
  // The other foot stayed on its ground (its knee bent more for the lower pelvis).
  EXPECT_TRUE(near(l.pos(Legs::kAnkleR), {-0.1f, 0.1f, 0}, 1e-4f * l.leg_length));
}

TEST(FootPlanting, ContactWeightsBlendAndALegOutOfContactOnlyFollowsThePelvis) {
  Legs l;
  l.legs[0].ground_height = -0.1f;
  l.legs[0].contact = 0.5f;  // halfway: target 0.05 lower, pelvis 0.05 lower
  l.legs[1].contact = 0;     // swinging: rides down with the pelvis
  FootPlantingResult r;
  ASSERT_TRUE(l.job(&r).run());
  EXPECT_NEAR(r.pelvis_offset, -0.05f, 1e-6f);
  EXPECT_TRUE(near(l.pos(Legs::kAnkleL), {0.1f, 0.05f, 0}, 1e-4f * l.leg_length));
  EXPECT_TRUE(near(l.pos(Legs::kAnkleR), {-0.1f, 0.05f, 0}, 1e-6f));
  EXPECT_FALSE(r.reached[1]);
}

TEST(FootPlanting, FootLockHoldsWhereTheFootLandedAndFollowsTheGround) {
  FootLock lock;
  lock.update(0.5f, {1, 0, 0});  // ramping in: not yet planted
  EXPECT_FALSE(lock.locked);
  lock.update(1, {2, 0, 0});  // planted: remembers where
  EXPECT_TRUE(lock.locked);
  EXPECT_TRUE(near(lock.position, {2, 0, 0}, 0));
  lock.update(1, {3, 0, 0});  // the animation slides; the lock holds
  EXPECT_TRUE(near(lock.position, {2, 0, 0}, 0));
  lock.update(0.3f, {4, 0, 0}, {0, 0, 0.5f});  // fading out, the ground moving under it
  EXPECT_TRUE(lock.locked);
  EXPECT_TRUE(near(lock.position, {2, 0, 0.5f}, 0));
  lock.update(0, {5, 0, 0});
  EXPECT_FALSE(lock.locked);
}

TEST(FootPlanting, BadInputIsANoOpThatLeavesThePoseUnchanged) {
  Legs l;
  const std::vector<Transform> before = l.local;
  l.legs[0].ground_height = std::nanf("");
  EXPECT_TRUE(test::run_refused(l.job(), "FootPlantingJob: legs[0].ground_height"));
  l.legs[0].ground_height = 0;
  l.legs[0].contact = 2;
  EXPECT_TRUE(test::run_refused(l.job(), "FootPlantingJob: legs[0].contact"));
  l.legs[0].contact = 1;
  l.legs[0].lock_position = {0, std::numeric_limits<float>::infinity(), 0};
  EXPECT_TRUE(test::run_refused(l.job(), "FootPlantingJob: legs[0].lock_position"));
  l.legs[0].lock_position = {};
  const GroundPlane vertical{{0, 0, 0}, {1, 0, 0}};
  FootPlantingJob j = l.job();
  j.plane = &vertical;
  EXPECT_TRUE(test::run_refused(j, "FootPlantingJob: plane"));
  const GroundPlane nowhere{{0, std::nanf(""), 0}, {0, 1, 0}};
  j.plane = &nowhere;
  EXPECT_TRUE(test::run_refused(j, "FootPlantingJob: plane"));
  j = l.job();
  j.up = {0, 0, 0};
  EXPECT_TRUE(test::run_refused(j, "FootPlantingJob: up"));
  j = l.job();
  j.pelvis = Legs::kKneeL;  // a leg's hip is not below it
  EXPECT_TRUE(test::run_refused(j, "FootPlantingJob: legs[0].hip"));
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(before[i], l.local[i]);
}

}  // namespace
}  // namespace marrow
