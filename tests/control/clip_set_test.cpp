// Clip sets: binding by joint name (errors that list the missing joints, remapping a clip made for
// another skeleton), many animators over one set (bytes per extra animator counted by a replaced
// operator new), and frames that allocate nothing.
#include <gtest/gtest.h>

#include <filesystem>

#include "allocation_meter.h"
#include "control_test_util.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "reference_poses.h"
#include "shared_asset.h"

namespace marrow::test {
namespace {

TEST(ControlClipSet, AClipWhoseJointsTheSkeletonLacksIsAnErrorListingThem) {
  Skeleton skeleton = clock_skeleton();
  std::vector<JointDesc> other = {{"root", -1, {}}, {"pelvis", 0, {}}, {"hand", 1, {}}};
  Skeleton foreign = Skeleton::build(other).value();
  ClipBuilder b("wave");
  const float times[] = {0}, t[] = {1, 2, 3};
  ASSERT_TRUE(
      b.add_track(1, "pelvis", TrackTarget::kTranslation, Interpolation::kLinear, times, t, "w")
          .ok());
  ASSERT_TRUE(
      b.add_track(2, "hand", TrackTarget::kTranslation, Interpolation::kLinear, times, t, "w")
          .ok());
  ClipSetBuilder builder(skeleton);
  Status s = builder.add_clip(b.build(foreign.size(), "wave").value());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("clip 'wave'"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("'pelvis', 'hand'"), std::string::npos) << s.error().message;
  ASSERT_TRUE(builder.add_clip(clock_clip("A", 1)).ok());
  EXPECT_FALSE(builder.add_clip(clock_clip("A", 1)).ok());  // names are unique
  Result<ClipId> missing = builder.build().value()->clip_id("B");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("'A'"), std::string::npos);  // lists what there is
}

TEST(ControlClipSet, AClipMadeForAnotherSkeletonWithTheSameNamesIsRemapped) {
  // The same joint names in another order, with one more joint: the clock clip's track (joint 1,
  // "clock") lands on joint 2 here.
  std::vector<JointDesc> joints = {
      {"root", -1, {}}, {"extra", 0, {}}, {"clock", 0, {}}, {"tip", 2, {}}};
  Skeleton skeleton = Skeleton::build(joints).value();
  auto set = make_set(skeleton, {clock_clip("A", 2)}, {.compile = true});
  EXPECT_EQ(set->clip(0).tracks()[0].joint, 2);
  const std::vector<Transform> pose = first_clip_pose_at(set, 1.5f);
  ASSERT_EQ(pose.size(), 4u);
  EXPECT_NEAR(pose[2].translation.x, 1.5f, 1e-5f);
  EXPECT_EQ(pose[1].translation.x, 0);
}

// Unnamed joints can only be matched by place: a track without a name binds to the joint of its
// index when that joint is unnamed too and the clip was made for a skeleton of that size.
TEST(ControlClipSet, UnnamedJointsBindByPlaceOnlyOnASkeletonOfTheClipsSize) {
  ClipBuilder b("nod");
  const float times[] = {0, 1}, t[] = {0, 0, 0, 2, 0, 0};
  ASSERT_TRUE(
      b.add_track(2, "", TrackTarget::kTranslation, Interpolation::kLinear, times, t, "n").ok());
  const Clip clip = b.build(3, "nod").value();

  std::vector<JointDesc> joints = {{"", -1, {}}, {"", 0, {}}, {"", 1, {}}};
  ClipSetBuilder bound(Skeleton::build(joints).value());
  ASSERT_TRUE(bound.add_clip(clip, {.compile = true}).ok());
  auto set = bound.build().value();
  EXPECT_EQ(set->clip(0).tracks()[0].joint, 2);
  const std::vector<Transform> pose = first_clip_pose_at(set, 0.25f);
  ASSERT_EQ(pose.size(), 3u);
  EXPECT_NEAR(pose[2].translation.x, 0.5f, 1e-6f);

  // Joint 2 is named on this skeleton: the track has nothing to match, and says which it is.
  std::vector<JointDesc> named = {{"", -1, {}}, {"", 0, {}}, {"tip", 1, {}}};
  Status refused = ClipSetBuilder(Skeleton::build(named).value()).add_clip(clip);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("'#2'"), std::string::npos) << refused.error().message;
  // A skeleton of another size is another rig, whatever its joints are called.
  std::vector<JointDesc> larger = {{"", -1, {}}, {"", 0, {}}, {"", 1, {}}, {"", 2, {}}};
  EXPECT_FALSE(ClipSetBuilder(Skeleton::build(larger).value()).add_clip(clip).ok());
}

// cesium_man.gltf names none of its nodes. Played through a clip set and an Animator (exact and
// compiled), its model-space pose matches ../shared/reference's three.js poses by the reference's
// own criterion (the compiled clip's bound is far inside it).
TEST(ControlClipSet, AFileWithoutJointNamesPlaysAsTheReferenceSays) {
  std::string why;
  const std::optional<ReferenceClip> ref =
      read_reference(reference_file("cesium_man.gltf", 0), why);
  const Asset* asset = ref ? shared_asset("gltf/cesium_man.gltf", why) : nullptr;
  if (!asset) GTEST_SKIP() << why;
  for (bool compile : {false, true}) {
    ClipSetBuilder builder(asset->skeleton);
    const Status added = builder.add_clip(asset->clips[0], {.compile = compile});
    ASSERT_TRUE(added.ok()) << added.error().message;
    auto set = builder.build().value();
    Animator animator = make_animator(set);
    AnimatorWorkspace workspace(*set);
    std::vector<Transform> local(asset->skeleton.size());
    std::vector<Mat4> model(asset->skeleton.size());
    for (std::size_t s = 0; s < ref->samples.size(); ++s) {
      animator.stop_all();
      ASSERT_TRUE(animator.play(0, {.start_offset = ref->samples[s].t}).ok());
      ASSERT_TRUE(animator.evaluate(workspace, std::span<Transform>(local)));
      const LocalToModelJob to_model{.skeleton = &asset->skeleton, .local = local, .model = model};
      ASSERT_TRUE(to_model.run());
      for (std::size_t n = 0; n < ref->nodes.size(); ++n) {
        const std::optional<JointIndex> joint = asset->joint_of_source(ref->nodes[n].index);
        ASSERT_TRUE(joint.has_value());
        const std::string miss = reference_mismatch(*ref, s, n, model[*joint]);
        EXPECT_TRUE(miss.empty()) << miss << (compile ? " (compiled)" : " (exact)");
      }
    }
  }
}

TEST(ControlClipSet, MasksAndBlendSpacesAreCheckedByName) {
  Skeleton skeleton = clock_skeleton();
  ClipSetBuilder b(skeleton);
  EXPECT_FALSE(b.add_mask("short", {1, 1}).ok());
  EXPECT_FALSE(b.add_mask("nan", {1, NAN, 1}).ok());
  ASSERT_TRUE(b.add_mask("ok", {1, 0.5f, 0}).ok());
  auto set = b.build().value();
  EXPECT_TRUE(set->mask_id("ok").ok());
  EXPECT_FALSE(set->mask_id("nope").ok());
  EXPECT_FALSE(set->blend_space_id("nope").ok());
  EXPECT_FALSE(b.add_clip(clock_clip("late", 1)).ok());  // built: the builder is spent
}

std::shared_ptr<const ClipSet> soldier_set() {
  const std::string path = shared_asset_path("gltf/Soldier.glb");
  if (!std::filesystem::exists(path)) return nullptr;
  Result<Asset> asset = load_asset(path);
  EXPECT_TRUE(asset.ok());
  ClipSetBuilder b(asset->skeleton);
  for (const Clip& clip : asset->clips) EXPECT_TRUE(b.add_clip(clip, {.compile = true}).ok());
  return b.build().value();
}

TEST(ControlClipSet, AThousandAnimatorsShareOneCopyOfTheKeys) {
  std::shared_ptr<const ClipSet> set = soldier_set();
  if (!set) GTEST_SKIP() << "Soldier.glb is absent from ../shared/assets/gltf";
  const ClipId walk = set->clip_id("Walk").value();
  std::vector<Animator> crowd;
  crowd.reserve(1001);
  crowd.push_back(make_animator(set));
  std::size_t bytes = 0, allocations = 0;
  {
    AllocationMeter meter;
    for (int i = 0; i < 1000; ++i) {
      Result<Animator> a = Animator::create(set);
      ASSERT_TRUE(a.ok());
      crowd.push_back(std::move(a).value());
      ASSERT_TRUE(crowd.back().play(walk, {.start_offset = 0.001f * i}).ok());
    }
    bytes = meter.bytes();
    allocations = meter.count();
  }
  const double per_animator = bytes / 1000.0;
  std::cout << "clip set (Soldier.glb, 4 clips compiled): " << set->size_bytes()
            << " bytes shared; each extra animator: " << per_animator << " bytes in "
            << allocations / 1000.0 << " allocations (size_bytes() says "
            << crowd.back().size_bytes() << ")\n";
  EXPECT_EQ(set.use_count(), 1002);  // the set is shared, never copied
  EXPECT_LT(per_animator, 3072);     // eight player slots; docs/performance.md has the figure
  EXPECT_LT(per_animator * 20, set->size_bytes());
  EXPECT_NEAR(static_cast<double>(crowd.back().size_bytes()), per_animator, per_animator * 0.25);
  // Inertialization's state is per joint: still far below the keys.
  AllocationMeter meter;
  Result<Animator> with = Animator::create(set, {.inertialization = true});
  ASSERT_TRUE(with.ok());
  std::cout << "with inertialization: " << meter.bytes() << " bytes per animator\n";
  EXPECT_LT(meter.bytes(), 16384u);
}

TEST(ControlClipSet, FramesAllocateNothing) {
  std::shared_ptr<const ClipSet> set = soldier_set();
  if (!set) GTEST_SKIP() << "Soldier.glb is absent from ../shared/assets/gltf";
  for (bool compiled : {true, false}) {
    Animator animator = make_animator(
        set,
        {.sync_groups = {SyncMode::kPhase}, .prefer_compiled = compiled, .inertialization = true});
    AnimatorWorkspace workspace(*set);
    std::vector<SoaTransform> local(soa_group_count(set->skeleton().size()));
    std::vector<AnimationEvent> events(64);
    const ClipId walk = set->clip_id("Walk").value(), run = set->clip_id("Run").value();
    const ClipId idle = set->clip_id("Idle").value();
    PlayerId a = animator.play(walk, {.sync_group = 0}).value();
    animator.update(0.1f);
    AllocationMeter meter;
    for (int frame = 0; frame < 120; ++frame) {
      if (frame % 40 == 10) {
        const PlayerId b = animator.play(frame % 80 == 10 ? run : walk, {.sync_group = 0}).value();
        EXPECT_TRUE(animator.cross_fade(a, b, 0.3f, FadeCurve::kSmooth).ok());
        a = b;
      }
      if (frame == 100) {
        const PlayerId b = animator.play(idle).value();
        EXPECT_TRUE(animator.inertialize(a, b, 0.2f).ok());
      }
      animator.update(1.0f / 60, events);
      ASSERT_TRUE(animator.evaluate(workspace, local));
    }
    EXPECT_EQ(meter.count(), 0u) << (compiled ? "compiled" : "exact");
  }
}

}  // namespace
}  // namespace marrow::test
