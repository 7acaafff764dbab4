// check_binding and rebind_clip: a clip against a skeleton other than the one it was read with.
#include "marrow/clip/binding.h"
#include "x_test_util.h"

namespace marrow::xtest {
namespace {

Skeleton skeleton_of(const std::vector<std::pair<std::string, std::int64_t>>& joints) {
  std::vector<JointDesc> descs;
  for (const auto& [name, parent] : joints) descs.push_back({name, parent, Transform::identity()});
  Result<Skeleton> s = Skeleton::build(descs, "test");
  EXPECT_TRUE(s.ok());
  return s.ok() ? std::move(s).value() : Skeleton{};
}

Asset mini() {
  Result<Asset> r = read_text(kMiniText);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(r).value() : Asset{};
}

TEST(XBinding, TheOwnSkeletonBindsCompletely) {
  const Asset a = mini();
  const ClipBindingReport report = check_binding(a.clips[0], a.skeleton);
  EXPECT_TRUE(report.complete());
  EXPECT_TRUE(report.missing_joints.empty());
  EXPECT_TRUE(report.unanimated_joints.empty());
  EXPECT_EQ(report.bound_tracks, 5u);
  EXPECT_EQ(report.total_tracks, 5u);
}

TEST(XBinding, ReportsMissingAndUnanimatedJoints) {
  const Asset a = mini();
  // Another rig: Knee is missing, Hip sits elsewhere, two joints the clip never touches.
  const Skeleton other = skeleton_of({{"Root", -1}, {"Spine", 0}, {"Hip", 0}});
  const ClipBindingReport report = check_binding(a.clips[0], other);
  EXPECT_FALSE(report.complete());
  EXPECT_EQ(report.missing_joints, (std::vector<std::string>{"Knee"}));
  EXPECT_EQ(report.unanimated_joints, (std::vector<std::string>{"Root", "Spine"}));
  EXPECT_EQ(report.bound_tracks, 3u);  // Hip's T, R, S
  EXPECT_EQ(report.total_tracks, 5u);
}

TEST(XBinding, RebindMovesTracksByNameAndDropsTheRest) {
  const Asset a = mini();
  const Clip& clip = a.clips[0];
  const Skeleton other = skeleton_of({{"Root", -1}, {"Spine", 0}, {"Hip", 0}});
  std::vector<std::string> dropped;
  Result<Clip> r = rebind_clip(clip, other, &dropped);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Clip& moved = *r;
  EXPECT_EQ(dropped, (std::vector<std::string>{"Knee"}));
  EXPECT_EQ(moved.name(), "Walk");
  EXPECT_EQ(moved.joint_count(), 3u);
  EXPECT_EQ(moved.ticks_per_second(), 30.0);
  EXPECT_EQ(moved.duration(), clip.duration());  // kept although Knee's last key went
  ASSERT_EQ(moved.tracks().size(), 3u);
  for (std::size_t t = 0; t < moved.tracks().size(); ++t) {
    EXPECT_EQ(moved.tracks()[t].joint, 2);
    EXPECT_EQ(moved.track_joint_names()[t], "Hip");
  }
  // Hip's matrix key at 0.5 s samples the same on the new skeleton.
  std::vector<Transform> pose(other.size());
  ASSERT_TRUE(sample_tracks(moved, 0.5f, pose));
  EXPECT_NEAR(pose[2].translation.x, 5, 1e-6);
  EXPECT_NEAR(pose[2].scale.y, 2, 1e-6);
  // The report agrees with what was dropped.
  EXPECT_TRUE(check_binding(moved, other).complete());
}

TEST(XBinding, RebindToTheWusonSkeleton) {
  const std::string path = x_asset("Testwuson.X");
  MARROW_REQUIRE_X_ASSET(path);
  Result<Asset> r = read_x(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& wuson = *r;
  // Wuson's clips on a reordered skeleton with the same names: every track binds, and the
  // sampled local pose is the same joint by joint name.
  std::vector<JointDesc> descs;
  for (std::size_t j = wuson.skeleton.size(); j-- > 0;) {
    descs.push_back({wuson.skeleton.name(j), -1, wuson.skeleton.rest_pose()[j]});
  }
  Result<Skeleton> flat = Skeleton::build(descs, "flat");
  ASSERT_TRUE(flat.ok());
  const Clip& walk = wuson.clips[1];
  EXPECT_TRUE(check_binding(walk, *flat).complete());
  Result<Clip> moved = rebind_clip(walk, *flat);
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  const std::vector<Transform> original = local_pose(wuson, walk, 1.3f);
  std::vector<Transform> pose(flat->rest_pose().begin(), flat->rest_pose().end());
  ASSERT_TRUE(sample_tracks(*moved, 1.3f, pose));
  for (std::size_t j = 0; j < flat->size(); ++j) {
    const JointIndex o = *wuson.skeleton.find(flat->name(j));
    // Equal up to the builder normalizing the rotations once more.
    const Transform& x = pose[j];
    const Transform& y = original[o];
    EXPECT_EQ(x.translation, y.translation) << flat->name(j);
    EXPECT_EQ(x.scale, y.scale) << flat->name(j);
    EXPECT_LT(angle_between(x.rotation, y.rotation), 1e-3f) << flat->name(j);
  }
  // And nothing of the Wuson clip binds to the mini rig.
  const ClipBindingReport none = check_binding(walk, mini().skeleton);
  EXPECT_EQ(none.bound_tracks, 0u);
  EXPECT_EQ(none.missing_joints.size(), 39u);
}

}  // namespace
}  // namespace marrow::xtest
