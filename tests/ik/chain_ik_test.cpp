// FABRIK chain IK: reaches reachable targets within the tolerance keeping bone lengths and the
// root, straightens towards unreachable ones, survives zero-length bones, refuses bad input.
#include "marrow/ik/chain_ik.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ik_test_util.h"
#include "job_checks.h"

namespace marrow {
namespace {

using test::near;

// A tail: `bones` bones of length 1 along +y from a root at (0, 1, 0).
struct Tail {
  Skeleton skeleton;
  std::vector<Transform> local;
  std::vector<Mat4> model;

  explicit Tail(int bones, float zero_length_at = -1) {
    std::vector<JointDesc> joints;
    Transform base;
    base.translation = {0, 1, 0};
    joints.push_back({"j0", -1, base});
    for (int i = 1; i <= bones; ++i) {
      Transform t;
      t.translation = {0, i == zero_length_at ? 0.0f : 1.0f, 0};
      t.rotation = from_axis_angle({0, 0, 1}, 0.1f);  // gently curled
      joints.push_back({"j" + std::to_string(i), i - 1, t});
    }
    skeleton = Skeleton::build(joints, "tail").value();
    local.assign(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
    model = test::model_of(skeleton, local);
  }
  JointIndex tip() const { return static_cast<JointIndex>(skeleton.size() - 1); }
  ChainIkJob job(Vec3 target) {
    ChainIkJob j;
    j.skeleton = &skeleton;
    j.root = 0;
    j.tip = tip();
    j.target = target;
    j.model = model;
    j.local = local;
    return j;
  }
  bool solve(const ChainIkJob& j) {
    const bool ok = j.run();
    model = test::model_of(skeleton, local);
    return ok;
  }
  Vec3 pos(std::size_t j) const { return model[j].translation(); }
};

TEST(ChainIk, ReachesReachableTargetsKeepingBoneLengthsAndTheRoot) {
  for (const Vec3 target : {Vec3{2, 2, 0}, Vec3{-3, 4, 1}, Vec3{0, -2, 2}, Vec3{4, 1, -2}}) {
    Tail t(6);
    const Vec3 root = t.pos(0);
    int passes = 0;
    bool reached = false;
    ChainIkJob j = t.job(target);
    j.tolerance = 1e-4f;
    j.max_iterations = 64;
    j.iterations = &passes;
    j.reached = &reached;
    ASSERT_TRUE(t.solve(j));
    EXPECT_TRUE(reached) << "after " << passes << " passes";
    EXPECT_TRUE(near(t.pos(t.tip()), target, 2e-4f));
    EXPECT_TRUE(near(t.pos(0), root, 1e-6f));
    for (std::size_t i = 0; i + 1 < t.skeleton.size(); ++i) {
      EXPECT_NEAR(length(t.pos(i + 1) - t.pos(i)), 1, 1e-4f) << "bone " << i;
    }
    EXPECT_LE(passes, 64);
  }
}

TEST(ChainIk, UnreachableTargetsGiveTheStraightChainPointingAtThem) {
  Tail t(4);
  const Vec3 target{10, 1, 0};
  bool reached = true;
  ChainIkJob j = t.job(target);
  j.reached = &reached;
  ASSERT_TRUE(t.solve(j));
  EXPECT_FALSE(reached);
  for (std::size_t i = 0; i < t.skeleton.size(); ++i) {
    EXPECT_TRUE(near(t.pos(i), {static_cast<float>(i), 1, 0}, 1e-4f)) << "joint " << i;
  }
}

TEST(ChainIk, ZeroIterationsLeaveAReachableChainAsItWas) {
  Tail t(4);
  const std::vector<Mat4> before = t.model;
  ChainIkJob j = t.job({1, 2, 0});
  j.max_iterations = 0;
  ASSERT_TRUE(t.solve(j));
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_TRUE(near(t.pos(i), before[i].translation(), 1e-6f));
  }
}

TEST(ChainIk, ZeroLengthBonesNeverProduceNaN) {
  Tail t(5, 3);  // bone 3 has no length
  ASSERT_TRUE(t.solve(t.job({2, 3, 1})));
  for (const Transform& x : t.local) EXPECT_TRUE(is_finite(x));
  EXPECT_TRUE(near(t.pos(t.tip()), {2, 3, 1}, 1e-3f));
  Tail u(3);
  ASSERT_TRUE(u.solve(u.job(u.pos(0))));  // the target on the root
  for (const Transform& x : u.local) EXPECT_TRUE(is_finite(x));
}

TEST(ChainIk, WeightBlendsTheSolvedPositions) {
  Tail t(4);
  const Vec3 before = t.pos(t.tip());
  ChainIkJob j = t.job({10, 1, 0});
  j.weight = 0.5f;
  ASSERT_TRUE(t.solve(j));
  const Vec3 after = t.pos(t.tip());
  EXPECT_GT(after.x, before.x);
  EXPECT_LT(after.x, 4.0f);
}

TEST(ChainIk, BadInputIsANoOpThatLeavesThePoseUnchanged) {
  Tail t(4);
  const std::vector<Transform> before = t.local;
  EXPECT_TRUE(test::run_refused(t.job({std::nanf(""), 0, 0}), "ChainIkJob: target"));
  EXPECT_TRUE(test::run_refused(t.job({std::numeric_limits<float>::infinity(), 0, 0}),
                                "ChainIkJob: target"));
  ChainIkJob j = t.job({1, 1, 1});
  j.root = t.tip();  // the root below the tip
  j.tip = 0;
  EXPECT_TRUE(test::run_refused(j, "ChainIkJob: tip"));
  j = t.job({1, 1, 1});
  j.tolerance = -1;
  EXPECT_TRUE(test::run_refused(j, "ChainIkJob: tolerance"));
  j = t.job({1, 1, 1});
  j.max_iterations = -1;
  EXPECT_TRUE(test::run_refused(j, "ChainIkJob: max_iterations"));
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(before[i], t.local[i]);
  // Longer than kMaxChainJoints.
  Tail long_tail(static_cast<int>(kMaxChainJoints));  // kMaxChainJoints + 1 joints
  EXPECT_TRUE(test::refused_naming(long_tail.job({1, 1, 1}).validate(), "ChainIkJob: tip"));
  ChainIkJob ok = long_tail.job({1, 1, 1});
  ok.root = 1;  // exactly kMaxChainJoints joints
  EXPECT_TRUE(ok.validate());
}

}  // namespace
}  // namespace marrow
