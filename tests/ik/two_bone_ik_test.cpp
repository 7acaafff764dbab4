// Two-bone IK against geometry computed by hand: a 3-4-5 triangle, straightened and folded
// chains, pole vectors, hinges, the soft limit, degenerate chains and bad input.
#include "marrow/ik/two_bone_ik.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "ik_test_util.h"
#include "job_checks.h"
#include "marrow/pose/local_to_model.h"

namespace marrow {
namespace {

using test::at;
using test::near;

// root -> start (origin) -> mid (3 along x) -> end (4 further along x) -> toe (1 further along y
// of end): a straight chain of 3 + 4 = 7 along +x, with a child below the end.
struct Chain {
  Skeleton skeleton;
  std::vector<Transform> local;
  std::vector<Mat4> model;
  static constexpr JointIndex kRoot = 0, kStart = 1, kMid = 2, kEnd = 3, kToe = 4;

  explicit Chain(Transform root = {}, Vec3 mid = {3, 0, 0}, Vec3 end = {4, 0, 0}) {
    const std::vector<JointDesc> joints = {{"root", -1, root},
                                           {"start", 0, {}},
                                           {"mid", 1, at(mid.x, mid.y, mid.z)},
                                           {"end", 2, at(end.x, end.y, end.z)},
                                           {"toe", 3, at(0, 1, 0)}};
    skeleton = Skeleton::build(joints, "chain").value();
    local.assign(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
    update();
  }
  void update() { model = test::model_of(skeleton, local); }
  Vec3 pos(JointIndex j) const { return model[j].translation(); }

  TwoBoneIkJob job(Vec3 target, Vec3 pole = {0, 0, 0}) {
    TwoBoneIkJob j;
    j.skeleton = &skeleton;
    j.start = kStart;
    j.mid = kMid;
    j.end = kEnd;
    j.target = target;
    j.pole_vector = pole;
    j.model = model;
    j.local = local;
    return j;
  }
  // Runs the job and recomputes the model pose.
  bool solve(TwoBoneIkJob j) {
    const bool ok = j.run();
    update();
    return ok;
  }
};

TEST(TwoBoneIk, ThreeFourFiveTriangleBendsTheMiddleJointTowardsThePole) {
  // Target at 5: the angle at the middle joint is 90 degrees; the middle joint sits at
  // 3 (cos a, sin a) with cos a = (9 + 25 - 16) / 30 = 0.6, towards the pole.
  Chain c;
  bool reached = false;
  TwoBoneIkJob j = c.job({5, 0, 0}, {0, 1, 0});
  j.reached = &reached;
  ASSERT_TRUE(c.solve(j));
  EXPECT_TRUE(reached);
  EXPECT_TRUE(near(c.pos(Chain::kEnd), {5, 0, 0}, 1e-4f * 7));
  EXPECT_TRUE(near(c.pos(Chain::kMid), {1.8f, 2.4f, 0}, 1e-4f * 7));
  // The pole -z puts it at (1.8, 0, -2.4) instead.
  Chain d;
  ASSERT_TRUE(d.solve(d.job({5, 0, 0}, {0, 0, -1})));
  EXPECT_TRUE(near(d.pos(Chain::kEnd), {5, 0, 0}, 1e-4f * 7));
  EXPECT_TRUE(near(d.pos(Chain::kMid), {1.8f, 0, -2.4f}, 1e-4f * 7));
  // The joint below the end moved with it, one unit along the end's rotated y axis: the
  // hierarchy is still a rigid chain.
  EXPECT_NEAR(length(d.pos(Chain::kToe) - d.pos(Chain::kEnd)), 1.0f, 1e-5f);
}

TEST(TwoBoneIk, ReachesEveryReachableTargetWithThePoleDecidingThePlane) {
  // Deterministic pseudo-random targets in the reachable shell [|3 - 4|, 3 + 4], poles and
  // starting poses (the chain bent at random first).
  std::uint32_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / static_cast<float>(1u << 24);  // [0, 1)
  };
  const auto unit = [&] {
    const float z = 2 * next() - 1, a = 2 * test::kPi * next(), r = std::sqrt(1 - z * z);
    return Vec3{r * std::cos(a), r * std::sin(a), z};
  };
  for (int i = 0; i < 500; ++i) {
    Chain c;
    c.local[Chain::kStart].rotation = from_axis_angle(unit(), 3 * next());
    c.local[Chain::kMid].rotation = from_axis_angle(unit(), 3 * next());
    c.update();
    const float distance = 1.001f + 5.998f * next();
    const Vec3 target = unit() * distance;
    const Vec3 pole = unit();
    bool reached = false;
    TwoBoneIkJob j = c.job(target, pole);
    j.reached = &reached;
    ASSERT_TRUE(c.solve(j));
    EXPECT_TRUE(reached) << "target " << i;
    EXPECT_TRUE(near(c.pos(Chain::kEnd), target, 1e-4f * 7)) << "target " << i;
    // Bone lengths are kept.
    EXPECT_NEAR(length(c.pos(Chain::kMid) - c.pos(Chain::kStart)), 3, 1e-4f);
    EXPECT_NEAR(length(c.pos(Chain::kEnd) - c.pos(Chain::kMid)), 4, 1e-4f);
    // The middle joint lies in the plane of the target line and the pole, on the pole's side.
    const Vec3 axis = target * (1.0f / distance);
    const Vec3 pole_across = pole - axis * dot(pole, axis);
    if (length(pole_across) < 0.05f) continue;  // a pole along the line decides nothing
    const Vec3 mid = c.pos(Chain::kMid) - c.pos(Chain::kStart);
    const Vec3 mid_across = mid - axis * dot(mid, axis);
    if (length(mid_across) < 1e-3f) continue;  // (nearly) straight: no plane
    const Vec3 normal = cross(axis, pole_across) * (1.0f / length(pole_across));
    EXPECT_NEAR(dot(mid_across, normal), 0, 2e-3f) << "target " << i;
    EXPECT_GT(dot(mid_across, pole_across), 0) << "target " << i;
  }
}

TEST(TwoBoneIk, UnreachableTargetsStraightenTheChainTowardsThem) {
  Chain c;
  c.local[Chain::kMid].rotation = from_axis_angle({0, 0, 1}, test::deg(70));
  c.update();
  bool reached = true;
  const Vec3 target{10, 10, 5};
  const Vec3 dir = target * (1.0f / length(target));
  TwoBoneIkJob j = c.job(target, {0, 1, 0});
  j.reached = &reached;
  ASSERT_TRUE(c.solve(j));
  EXPECT_FALSE(reached);
  EXPECT_TRUE(near(c.pos(Chain::kMid), dir * 3, 1e-4f * 7));
  EXPECT_TRUE(near(c.pos(Chain::kEnd), dir * 7, 1e-4f * 7));
}

TEST(TwoBoneIk, TargetsTooCloseFoldTheChainToItsShortestReach) {
  Chain c;
  const Vec3 target{0, 0.5f, 0};  // closer than |3 - 4| = 1
  ASSERT_TRUE(c.solve(c.job(target, {1, 0, 0})));
  EXPECT_TRUE(near(c.pos(Chain::kEnd), {0, 1, 0}, 1e-4f * 7));
  EXPECT_NEAR(length(c.pos(Chain::kMid)), 3, 1e-4f);
}

TEST(TwoBoneIk, SoftLimitEasesTheReachNearFullExtension) {
  // soft_limit 0.9: past 6.3 the reach is 6.3 + 0.7 (1 - exp(-(d - 6.3) / 0.7)).
  const auto reach_for = [](float d) {
    Chain c;
    c.local[Chain::kMid].rotation = from_axis_angle({0, 0, 1}, test::deg(40));
    c.update();
    TwoBoneIkJob j = c.job({d, 0, 0}, {0, 1, 0});
    j.soft_limit = 0.9f;
    EXPECT_TRUE(c.solve(j));
    return length(c.pos(Chain::kEnd));
  };
  EXPECT_NEAR(reach_for(7), 6.3f + 0.7f * (1 - std::exp(-1.0f)), 1e-4f * 7);
  EXPECT_NEAR(reach_for(6), 6, 1e-4f * 7);  // below the soft start: exact
  float previous = reach_for(5.95f);
  for (float d = 6.0f; d < 9.0f; d += 0.05f) {  // continuous and increasing, never snapping
    const float r = reach_for(d);
    EXPECT_GT(r, previous);
    EXPECT_LT(r, 7.0f);
    EXPECT_LT(r - previous, 0.06f);
    previous = r;
  }
}

TEST(TwoBoneIk, AHingeAxisDecidesWhichWayAStraightChainBends) {
  // Hinge +z in the middle joint's frame: turning the end about +z from +x goes towards +y,
  // so once the start joint has brought the end back onto the target line, the middle joint
  // sits on the -y side.
  Chain c;
  TwoBoneIkJob j = c.job({5, 0, 0});
  j.mid_axis = {0, 0, 1};
  ASSERT_TRUE(c.solve(j));
  EXPECT_TRUE(near(c.pos(Chain::kMid), {1.8f, -2.4f, 0}, 1e-4f * 7));
  Chain d;
  j = d.job({5, 0, 0});
  j.mid_axis = {0, 0, -1};
  ASSERT_TRUE(d.solve(j));
  EXPECT_TRUE(near(d.pos(Chain::kMid), {1.8f, 2.4f, 0}, 1e-4f * 7));
}

TEST(TwoBoneIk, WorksUnderARotatedScaledParentAndWithJointsBetween) {
  // The chain under a root turned 90 degrees about z and scaled by 0.01 (as a glTF armature).
  Transform root;
  root.rotation = from_axis_angle({0, 0, 1}, test::kPi / 2);
  root.scale = {0.01f, 0.01f, 0.01f};
  Chain c(root);
  // Model lengths are 0.03 and 0.04; the 3-4-5 triangle at 1/100 scale, in the rotated frame.
  const Vec3 target{0, 0.05f, 0};
  ASSERT_TRUE(c.solve(c.job(target, {-1, 0, 0})));
  EXPECT_TRUE(near(c.pos(Chain::kEnd), target, 1e-4f * 0.07f));
  EXPECT_TRUE(near(c.pos(Chain::kMid), {-0.024f, 0.018f, 0}, 1e-4f * 0.07f));

  // A twist joint between start and mid turns with the start joint.
  const std::vector<JointDesc> joints = {{"start", -1, {}},
                                         {"twist", 0, at(1.5f, 0, 0)},
                                         {"mid", 1, at(1.5f, 0, 0)},
                                         {"end", 2, at(4, 0, 0)}};
  const Skeleton s = Skeleton::build(joints, "twist").value();
  std::vector<Transform> local(s.rest_pose().begin(), s.rest_pose().end());
  local[1].rotation = from_axis_angle({1, 0, 0}, 0.7f);  // a twisted forearm: no effect on reach
  std::vector<Mat4> model = test::model_of(s, local);
  TwoBoneIkJob j;
  j.skeleton = &s;
  j.start = 0;
  j.mid = 2;
  j.end = 3;
  j.target = {5, 0, 0};
  j.pole_vector = {0, 1, 0};
  j.model = model;
  j.local = local;
  ASSERT_TRUE(j.run());
  model = test::model_of(s, local);
  EXPECT_TRUE(near(model[3].translation(), {5, 0, 0}, 1e-4f * 7));
  EXPECT_TRUE(near(model[2].translation(), {1.8f, 2.4f, 0}, 1e-4f * 7));
}

TEST(TwoBoneIk, DegenerateChainsNeverProduceNaN) {
  const auto all_finite = [](const std::vector<Transform>& pose) {
    for (const Transform& t : pose) {
      if (!is_finite(t)) return false;
    }
    return true;
  };
  {  // Straight chain, target on its line, no pole: the hinge is any perpendicular.
    Chain c;
    ASSERT_TRUE(c.solve(c.job({5, 0, 0})));
    EXPECT_TRUE(all_finite(c.local));
    EXPECT_TRUE(near(c.pos(Chain::kEnd), {5, 0, 0}, 1e-4f * 7));
  }
  {  // Target exactly on the start joint: the chain folds along its current direction.
    Chain c;
    ASSERT_TRUE(c.solve(c.job({0, 0, 0}, {0, 1, 0})));
    EXPECT_TRUE(all_finite(c.local));
    EXPECT_NEAR(length(c.pos(Chain::kEnd)), 1, 1e-4f * 7);
  }
  {  // A zero-length upper bone: only the start joint aims; the end keeps its distance 4.
    Chain c({}, {0, 0, 0}, {4, 0, 0});
    ASSERT_TRUE(c.solve(c.job({0, 3, 0}, {1, 0, 0})));
    EXPECT_TRUE(all_finite(c.local));
    EXPECT_TRUE(near(c.pos(Chain::kEnd), {0, 4, 0}, 1e-4f * 4));
  }
  {  // A zero-length lower bone.
    Chain c({}, {3, 0, 0}, {0, 0, 0});
    ASSERT_TRUE(c.solve(c.job({0, 0, 2}, {0, 1, 0})));
    EXPECT_TRUE(all_finite(c.local));
    EXPECT_TRUE(near(c.pos(Chain::kEnd), {0, 0, 3}, 1e-4f * 3));
  }
  {  // Everything on one point.
    Chain c({}, {0, 0, 0}, {0, 0, 0});
    ASSERT_TRUE(c.solve(c.job({1, 1, 1}, {0, 1, 0})));
    EXPECT_TRUE(all_finite(c.local));
  }
  {  // Folded flat: the middle joint turned half a turn, the end back on the start side.
    Chain c;
    c.local[Chain::kMid].rotation = from_axis_angle({0, 0, 1}, test::kPi);
    c.update();
    ASSERT_TRUE(c.solve(c.job({0, 4, 0})));
    EXPECT_TRUE(all_finite(c.local));
    EXPECT_TRUE(near(c.pos(Chain::kEnd), {0, 4, 0}, 1e-4f * 7));
  }
}

TEST(TwoBoneIk, BadInputIsANoOpThatLeavesThePoseUnchanged) {
  Chain c;
  const std::vector<Transform> before = c.local;
  const auto unchanged = [&] {
    for (std::size_t j = 0; j < before.size(); ++j) {
      if (!(before[j] == c.local[j])) return false;
    }
    return true;
  };
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(test::run_refused(c.job({nan, 0, 0}), "TwoBoneIkJob: target"));
  EXPECT_TRUE(test::run_refused(c.job({inf, 0, 0}), "TwoBoneIkJob: target"));
  EXPECT_TRUE(test::run_refused(c.job({5, 0, 0}, {0, inf, 0}), "TwoBoneIkJob: pole_vector"));
  TwoBoneIkJob j = c.job({5, 0, 0});
  j.weight = 1.5f;
  EXPECT_TRUE(test::run_refused(j, "TwoBoneIkJob: weight"));
  j = c.job({5, 0, 0});
  j.soft_limit = 0;
  EXPECT_TRUE(test::run_refused(j, "TwoBoneIkJob: soft_limit"));
  j = c.job({5, 0, 0});
  j.mid = Chain::kEnd;  // not in ancestor order
  j.end = Chain::kMid;  // mid is below start, but end is above mid
  EXPECT_TRUE(test::run_refused(j, "TwoBoneIkJob: end"));
  j = c.job({5, 0, 0});
  j.start = Chain::kMid;  // mid is start itself
  EXPECT_TRUE(test::run_refused(j, "TwoBoneIkJob: mid"));
  j = c.job({5, 0, 0});
  j.end = 99;
  EXPECT_TRUE(test::run_refused(j, "TwoBoneIkJob: end"));
  j = c.job({5, 0, 0});
  j.local = std::span<Transform>(c.local).first(2);
  EXPECT_TRUE(test::run_refused(j, "TwoBoneIkJob: local"));
  std::vector<Mat4> broken = c.model;
  broken[Chain::kMid].m[12] = nan;
  j = c.job({5, 0, 0});
  j.model = broken;
  EXPECT_TRUE(test::run_refused(j, "TwoBoneIkJob: model"));
  EXPECT_TRUE(unchanged());
}

TEST(TwoBoneIk, WeightBlendsFromTheInputPose) {
  Chain c;
  TwoBoneIkJob j = c.job({5, 0, 0}, {0, 1, 0});
  j.weight = 0;
  bool reached = true;
  j.reached = &reached;
  ASSERT_TRUE(c.solve(j));
  EXPECT_FALSE(reached);
  EXPECT_TRUE(near(c.pos(Chain::kEnd), {7, 0, 0}, 1e-6f));
  j = c.job({5, 0, 0}, {0, 1, 0});
  j.weight = 0.5f;
  ASSERT_TRUE(c.solve(j));
  // Half of each rotation: the middle joint turned 45 degrees of its 90 towards the pole.
  const float d = length(c.pos(Chain::kEnd));
  EXPECT_GT(d, 5.0f);
  EXPECT_LT(d, 7.0f);
  EXPECT_GT(c.pos(Chain::kMid).y, 0);
}

TEST(LocalToModel, FromAJointRecomputesItsSubtreeAndNothingElse) {
  // A forest where the subtree of joint 1 is not contiguous: 0 -> 1 -> 3, 0 -> 2, 1 -> 4.
  const std::vector<JointDesc> joints = {{"a", -1, at(0, 1, 0)}, {"b", 0, at(1, 0, 0)},
                                         {"c", 0, at(0, 0, 1)},  {"d", 1, at(0, 2, 0)},
                                         {"e", 1, at(0, 0, 3)},  {"f", -1, at(5, 0, 0)}};
  const Skeleton s = Skeleton::build(joints, "forest").value();
  std::vector<Transform> local(s.rest_pose().begin(), s.rest_pose().end());
  std::vector<Mat4> model = test::model_of(s, local);
  local[1].rotation = from_axis_angle({0, 1, 0}, 0.5f);
  local[2].rotation = from_axis_angle({1, 0, 0}, 0.5f);  // outside the subtree: must stay stale
  const std::vector<Mat4> stale = model;
  ASSERT_TRUE(local_to_model(s, local, model, 1));
  const std::vector<Mat4> fresh = test::model_of(s, local);
  for (JointIndex j : {1, 3, 4}) EXPECT_EQ(model[j], fresh[j]) << "joint " << j;
  for (JointIndex j : {0, 2, 5}) EXPECT_EQ(model[j], stale[j]) << "joint " << j;
  // `to` stops after that index.
  model = stale;
  LocalToModelJob job;
  job.skeleton = &s;
  job.local = local;
  job.model = model;
  job.from = 1;
  job.to = 3;
  ASSERT_TRUE(job.run());
  EXPECT_EQ(model[3], fresh[3]);
  EXPECT_EQ(model[4], stale[4]);
  job.to = 0;  // before `from`
  EXPECT_TRUE(test::refused_naming(job.validate(), "LocalToModelJob: to"));
  job.to = kNoParent;
  job.from = 6;
  EXPECT_TRUE(test::refused_naming(job.validate(), "LocalToModelJob: from"));
  // from_excluded: joint 1's matrix stays (stale), its children follow it.
  model = stale;
  job.from = 1;
  job.from_excluded = true;
  ASSERT_TRUE(job.run());
  EXPECT_EQ(model[1], stale[1]);
  const Mat4 d = mul_affine(stale[1], to_matrix(local[3]));
  EXPECT_EQ(model[3], d);
}

}  // namespace
}  // namespace marrow
