// Sync markers detected from the feet (ClipSetBuilder::add_detected_foot_markers): on a hand-made
// pair of legs whose feet come down at times set by their keys, and the errors.
#include <gtest/gtest.h>

#include "control_test_util.h"

namespace marrow::test {
namespace {

// root (1 unit up) with two legs: hip 0.1 to the side, knee and ankle 0.5 below each, so a leg is
// 1 unit long and an ankle's height equals its hip's y offset.
Skeleton legs_skeleton() {
  std::vector<JointDesc> joints = {{"root", -1, {}},  {"l_hip", 0, {}}, {"l_knee", 1, {}},
                                   {"l_foot", 2, {}}, {"r_hip", 0, {}}, {"r_knee", 4, {}},
                                   {"r_foot", 5, {}}, {"head", 0, {}}};
  joints[0].rest.translation = {0, 1, 0};
  joints[1].rest.translation = {0.1f, 0, 0};
  joints[4].rest.translation = {-0.1f, 0, 0};
  for (const int j : {2, 3, 5, 6}) joints[j].rest.translation = {0, -0.5f, 0};
  joints[7].rest.translation = {0, 0.6f, 0};
  Result<Skeleton> s = Skeleton::build(joints, "legs");
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

// A 1 s loop whose ankles' heights follow linear keys (time, height) and never move sideways.
using HeightKeys = std::vector<std::pair<float, float>>;
Clip legs_clip(const std::string& name, const HeightKeys& left, const HeightKeys& right) {
  ClipBuilder b(name);
  const auto track = [&](JointIndex joint, const char* joint_name, float x,
                         const HeightKeys& keys) {
    std::vector<float> times, values;
    for (const auto& [t, h] : keys) {
      times.push_back(t);
      values.insert(values.end(), {x, h, 0});
    }
    EXPECT_TRUE(b.add_track(joint, joint_name, TrackTarget::kTranslation, Interpolation::kLinear,
                            times, values, name)
                    .ok());
  };
  track(1, "l_hip", 0.1f, left);
  track(4, "r_hip", -0.1f, right);
  Result<Clip> clip = b.build(8, name);
  EXPECT_TRUE(clip.ok()) << (clip.ok() ? "" : clip.error().message);
  return std::move(clip).value();
}

// The left ankle drops from 0.3 to the ground between 0.19 and 0.2 s, stays there until 0.6 s and
// is up again by 0.8 s; the right one is down from 0.7 s through the loop point to 0.1 s and up
// by 0.3 s. A foot is "low" within 0.05 leg lengths of the ground, which the falling ankles reach
// 1/6 of their last 0.01 s before the key, so each contact starts on the first 60 Hz sample at or
// after the key: 0.2 s (left) and 0.7 s (right).
Clip stepping_clip(const std::string& name) {
  return legs_clip(name, {{0, 0.3f}, {0.19f, 0.3f}, {0.2f, 0}, {0.6f, 0}, {0.8f, 0.3f}, {1, 0.3f}},
                   {{0, 0}, {0.1f, 0}, {0.3f, 0.3f}, {0.69f, 0.3f}, {0.7f, 0}, {1, 0}});
}

TEST(ControlFootMarkers, AMarkerGoesWhereEachFootComesDownAndSyncsLikeAnAuthoredOne) {
  const Skeleton skeleton = legs_skeleton();
  ClipSetBuilder b(skeleton);
  ASSERT_TRUE(b.add_clip(stepping_clip("step")).ok());
  const Status s = b.add_detected_foot_markers("step", "l_foot", "r_foot");
  ASSERT_TRUE(s.ok()) << s.error().message;
  // "b" comes down left at 0.1 s and right at 0.5 s, neither through the loop point.
  ASSERT_TRUE(
      b.add_clip(
           legs_clip("b", {{0, 0.3f}, {0.09f, 0.3f}, {0.1f, 0}, {0.3f, 0}, {0.4f, 0.3f}, {1, 0.3f}},
                     {{0, 0.3f}, {0.49f, 0.3f}, {0.5f, 0}, {0.7f, 0}, {0.8f, 0.3f}, {1, 0.3f}}))
          .ok());
  ASSERT_TRUE(b.add_detected_foot_markers("b", "l_foot", "r_foot").ok());
  const auto set = b.build().value();
  // Marker times are sample times (k / 60 in float): a few ulps from the keys.
  const std::span<const SyncMarker> markers = set->markers(0);
  ASSERT_EQ(markers.size(), 2u);
  EXPECT_EQ(markers[0].name, "foot_left_down");
  EXPECT_NEAR(markers[0].time, 0.2f, 1e-5f);
  EXPECT_EQ(markers[1].name, "foot_right_down");
  EXPECT_NEAR(markers[1].time, 0.7f, 1e-5f);
  ASSERT_EQ(set->markers(1).size(), 2u);
  EXPECT_NEAR(set->markers(1)[0].time, 0.1f, 1e-5f);
  EXPECT_NEAR(set->markers(1)[1].time, 0.5f, 1e-5f);
  // "step" at 0.45 s is halfway from its left strike to its right, so "b" follows halfway from
  // 0.1 to 0.5: 0.3 s (normalized-time sync would say 0.45).
  Animator animator = make_animator(set, {.sync_groups = {SyncMode::kMarkers}});
  ASSERT_TRUE(animator.play(0, {.sync_group = 0}).ok());
  const PlayerId follower = animator.play(1, {.weight = 0.5f, .sync_group = 0}).value();
  animator.update(0.45f);
  EXPECT_NEAR(animator.info(follower).time, 0.3f, 1e-4f);
}

TEST(ControlFootMarkers, UnknownNamesAndFeetThatNeverComeDownAreErrors) {
  const Skeleton skeleton = legs_skeleton();
  ClipSetBuilder b(skeleton);
  ASSERT_TRUE(b.add_clip(stepping_clip("step")).ok());
  // Feet held still at their rest height.
  ASSERT_TRUE(b.add_clip(legs_clip("stand", {{0, 0}, {0.5f, 0}, {1, 0}}, {{0, 0}, {1, 0}})).ok());
  Status s = b.add_detected_foot_markers("jog", "l_foot", "r_foot");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("'jog'"), std::string::npos) << s.error().message;
  s = b.add_detected_foot_markers("step", "l_foot", "RightFoot");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("no joint 'RightFoot'"), std::string::npos) << s.error().message;
  s = b.add_detected_foot_markers("step", "l_foot", "r_foot", {.left_toe = "l_toe"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("no joint 'l_toe'"), std::string::npos) << s.error().message;
  // A "foot" without a leg above it is the detector's error, passed on with the clip's name.
  s = b.add_detected_foot_markers("step", "l_foot", "root");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("clip 'step'"), std::string::npos) << s.error().message;
  // Feet held still are planted through the whole loop: they never come down.
  s = b.add_detected_foot_markers("stand", "l_foot", "r_foot");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("'l_foot' never comes down"), std::string::npos)
      << s.error().message;
  // Nothing was added by the failed calls.
  const auto set = b.build().value();
  EXPECT_TRUE(set->markers(0).empty());
  EXPECT_TRUE(set->markers(1).empty());
}

}  // namespace
}  // namespace marrow::test
