// Root motion: deltas per update that compose to the clip's displacement however the updates are
// cut, across loop seams, backwards, through cross-fades, with yaw; the pose keeps the character
// at the clip's start. Expected values come from the clips' keys (hand-made) and, for Soldier.glb,
// from the exact sampler and local-to-model, independent of the control module.
#include <gtest/gtest.h>

#include <filesystem>

#include "control_test_util.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "shared_asset.h"

namespace marrow::test {
namespace {

Transform compose(const Transform& a, const Transform& b) {
  return {a.translation + rotate(a.rotation, b.translation),
          normalize(a.rotation * b.rotation),
          {1, 1, 1}};
}

std::shared_ptr<const ClipSet> walking_set(const Skeleton& skeleton, std::vector<Clip> clips,
                                           bool yaw = false) {
  ClipSetBuilder b(skeleton);
  for (const Clip& c : clips) EXPECT_TRUE(b.add_clip(c).ok());
  EXPECT_TRUE(b.set_root_motion({.joint = "root", .yaw = yaw}).ok());
  return b.build().value();
}

TEST(ControlRootMotion, TenLoopsMoveTenTimesTheClipsDisplacementHoweverTheUpdatesFall) {
  Skeleton skeleton = clock_skeleton();
  auto set = walking_set(skeleton, {walking_clip("walk", 1.0f, 2.0f)});
  for (float dt : {1.0f / 60, 0.37f, 10.0f}) {
    Animator animator = make_animator(set);
    ASSERT_TRUE(animator.play(0).ok());
    Transform world{};
    float left = 10.0f;
    while (left > 1e-6f) {
      const float step = std::min(dt, left);
      left -= step;
      world = compose(world, animator.update(step).root_motion);
    }
    EXPECT_NEAR(world.translation.x, 20.0f, 2e-4f) << "dt " << dt;
    EXPECT_NEAR(world.translation.y, 0, 1e-6f);
    EXPECT_NEAR(world.translation.z, 0, 1e-6f);
  }
}

TEST(ControlRootMotion, ThePoseStaysAtTheClipsStartAndBackwardsMovesBack) {
  Skeleton skeleton = clock_skeleton();
  auto set = walking_set(skeleton, {walking_clip("walk", 1.0f, 2.0f)});
  Animator animator = make_animator(set);
  AnimatorWorkspace workspace(*set);
  ASSERT_TRUE(animator.play(0, {.time_scale = -1}).ok());
  const UpdateResult r = animator.update(0.25f);
  EXPECT_NEAR(r.root_motion.translation.x, -0.5f, 1e-6f);
  std::vector<Transform> pose(3);
  ASSERT_TRUE(animator.evaluate(workspace, std::span<Transform>(pose)));
  EXPECT_NEAR(pose[0].translation.x, 0, 1e-6f);      // taken out of the pose
  EXPECT_NEAR(pose[1].translation.x, 0.75f, 1e-6f);  // the rest plays on
}

TEST(ControlRootMotion, ACrossFadeBlendsTheDeltasByTheWeightsAtTheEndOfEachUpdate) {
  Skeleton skeleton = clock_skeleton();
  auto set =
      walking_set(skeleton, {walking_clip("slow", 1.0f, 2.0f), walking_clip("fast", 1.0f, 4.0f)});
  Animator animator = make_animator(set);
  const PlayerId slow = animator.play(0).value();
  const PlayerId fast = animator.play(1).value();
  ASSERT_TRUE(animator.cross_fade(slow, fast, 1.0f).ok());
  float x = 0;
  for (int k = 1; k <= 4; ++k) x += animator.update(0.25f).root_motion.translation.x;
  // Per update 0.25 s: slow moves 0.5, fast 1.0, weighted (1 - w, w) with w = 0.25 k.
  EXPECT_NEAR(x, 0.5f * (0.75f + 0.5f + 0.25f + 0) + 1.0f * (0.25f + 0.5f + 0.75f + 1), 1e-5f);
}

TEST(ControlRootMotion, YawComposesIntoASquareThatCloses) {
  // The clip walks 2 units along +X while turning 90 degrees left: four loops trace a square.
  Skeleton skeleton = clock_skeleton();
  auto set = walking_set(skeleton, {walking_clip("corner", 1.0f, 2.0f, 90)}, true);
  Animator animator = make_animator(set);
  AnimatorWorkspace workspace(*set);
  ASSERT_TRUE(animator.play(0).ok());
  Transform world{};
  Vec3 corner{};
  for (int frame = 1; frame <= 240; ++frame) {
    world = compose(world, animator.update(1.0f / 60).root_motion);
    if (frame == 60) corner = world.translation;
    if (frame % 20 == 0) {
      std::vector<Transform> pose(3);
      ASSERT_TRUE(animator.evaluate(workspace, std::span<Transform>(pose)));
      EXPECT_NEAR(angle_between(pose[0].rotation, Quat::identity()), 0, 1e-3f);
      EXPECT_NEAR(length(pose[0].translation), 0, 1e-5f);
    }
  }
  EXPECT_NEAR(corner.x, 2, 1e-4f);
  EXPECT_NEAR(corner.z, 0, 1e-4f);
  EXPECT_NEAR(length(world.translation), 0, 1e-3f);
  EXPECT_NEAR(angle_between(world.rotation, Quat::identity()), 0, 1e-3f);
}

TEST(ControlRootMotion, BadSetupIsAnErrorNamingTheJoint) {
  Skeleton skeleton = clock_skeleton();
  ClipSetBuilder b(skeleton);
  Status s = b.set_root_motion({.joint = "pelvis"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("'pelvis'"), std::string::npos);
  EXPECT_FALSE(b.set_root_motion({.joint = "root", .up = {0, 0, 0}}).ok());
  // A clip that animates a joint above the root-motion joint cannot have root motion.
  ASSERT_TRUE(b.add_clip(walking_clip("walk", 1, 2)).ok());
  ASSERT_TRUE(b.set_root_motion({.joint = "clock"}).ok());
  Result<std::shared_ptr<const ClipSet>> set = b.build();
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.error().message.find("above the root-motion joint"), std::string::npos);
}

TEST(ControlRootMotion, SoldierWalkLoopedTenTimesMovesTenTimesItsHipsDisplacement) {
  const std::string path = shared_asset_path("gltf/Soldier.glb");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  Result<Asset> asset = load_asset(path);
  ASSERT_TRUE(asset.ok());
  const Skeleton& skeleton = asset->skeleton;
  const Clip& walk = asset->clips[*asset->find_clip("Walk")];
  ClipSetBuilder b(skeleton);
  ASSERT_TRUE(b.add_clip(walk, {.compile = true}).ok());
  ASSERT_TRUE(b.set_root_motion({.joint = "mixamorig:Hips"}).ok());
  auto set = b.build().value();
  // By definition: the hips' model-space position at the clip's end minus at its start, across
  // the up axis (Y), from the exact sampler.
  std::vector<Transform> local(skeleton.size());
  std::vector<Mat4> model(skeleton.size());
  const JointIndex hips = *skeleton.find("mixamorig:Hips");
  const auto hips_at = [&](float t) {
    SamplingCursor cursor(walk);
    EXPECT_TRUE(sample(walk, skeleton.rest_pose(), t, cursor, local));
    EXPECT_TRUE(local_to_model(skeleton, local, model));
    return model[hips].translation();
  };
  const Vec3 d = hips_at(walk.duration()) - hips_at(0);
  Animator animator = make_animator(set);
  ASSERT_TRUE(animator.play(0).ok());
  Transform world{};
  for (int frame = 0; frame < 600; ++frame) {
    world = compose(world, animator.update(walk.duration() / 60).root_motion);
  }
  std::cout << "Soldier Walk: hips displacement per loop (" << d.x << ", " << d.z
            << "), after 10 loops (" << world.translation.x << ", " << world.translation.z << ")\n";
  EXPECT_NEAR(world.translation.x, 10 * d.x, 1e-5f);
  EXPECT_NEAR(world.translation.z, 10 * d.z, 1e-5f);
  EXPECT_NEAR(world.translation.y, 0, 1e-6f);
}

}  // namespace
}  // namespace marrow::test
