// Hand-built skeletons, clips and clip sets for the control tests. The clips are chosen so that a
// sampled pose reads back the clip time: the "clock" joint's x translation equals the time.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "marrow/clip/clip_builder.h"
#include "marrow/control/animator.h"
#include "marrow/control/clip_set.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::test {

// root -> clock -> tip, along +Y, 1 unit apart.
inline Skeleton clock_skeleton() {
  std::vector<JointDesc> joints = {{"root", -1, {}}, {"clock", 0, {}}, {"tip", 1, {}}};
  joints[1].rest.translation = {0, 1, 0};
  joints[2].rest.translation = {0, 1, 0};
  Result<Skeleton> s = Skeleton::build(joints, "clock skeleton");
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

// A clip of `duration` seconds whose "clock" joint sits at x = time (a linear track from (0,1,0)
// to (duration,1,0)), so the sampled pose says which time was sampled. Events as given.
inline Clip clock_clip(const std::string& name, float duration,
                       const std::vector<std::pair<float, std::string>>& events = {}) {
  ClipBuilder b(name);
  const float times[] = {0, duration};
  const float values[] = {0, 1, 0, duration, 1, 0};
  if (duration > 0) {
    EXPECT_TRUE(b.add_track(1, "clock", TrackTarget::kTranslation, Interpolation::kLinear, times,
                            values, name)
                    .ok());
  } else {
    EXPECT_TRUE(b.add_track(1, "clock", TrackTarget::kTranslation, Interpolation::kLinear,
                            std::span<const float>(times, 1), std::span<const float>(values, 3),
                            name)
                    .ok());
  }
  for (const auto& [t, n] : events) b.add_event(t, n);
  Result<Clip> clip = b.build(3, name);
  EXPECT_TRUE(clip.ok()) << (clip.ok() ? "" : clip.error().message);
  return std::move(clip).value();
}

// A clip whose root moves along +X at `speed` units per second (linear, root motion) and whose
// clock joint reads the time.
inline Clip walking_clip(const std::string& name, float duration, float speed,
                         float yaw_degrees = 0) {
  ClipBuilder b(name);
  const float times[] = {0, duration};
  const float root_t[] = {0, 0, 0, speed * duration, 0, 0};
  EXPECT_TRUE(
      b.add_track(0, "root", TrackTarget::kTranslation, Interpolation::kLinear, times, root_t, name)
          .ok());
  if (yaw_degrees != 0) {
    const Quat q = from_axis_angle({0, 1, 0}, yaw_degrees * 3.14159265358979f / 180);
    const float root_r[] = {0, 0, 0, 1, q.x, q.y, q.z, q.w};
    EXPECT_TRUE(
        b.add_track(0, "root", TrackTarget::kRotation, Interpolation::kLinear, times, root_r, name)
            .ok());
  }
  const float clock[] = {0, 1, 0, duration, 1, 0};
  EXPECT_TRUE(
      b.add_track(1, "clock", TrackTarget::kTranslation, Interpolation::kLinear, times, clock, name)
          .ok());
  Result<Clip> clip = b.build(3, name);
  EXPECT_TRUE(clip.ok());
  return std::move(clip).value();
}

inline std::shared_ptr<const ClipSet> make_set(const Skeleton& skeleton,
                                               const std::vector<Clip>& clips,
                                               const ClipOptions& options = {}) {
  ClipSetBuilder b(skeleton);
  for (const Clip& c : clips) {
    Status s = b.add_clip(c, options);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  }
  Result<std::shared_ptr<const ClipSet>> set = b.build();
  EXPECT_TRUE(set.ok());
  return set.ok() ? set.value() : nullptr;
}

inline Animator make_animator(std::shared_ptr<const ClipSet> set, AnimatorOptions options = {}) {
  Result<Animator> a = Animator::create(std::move(set), std::move(options));
  EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().message);
  return std::move(a).value();
}

// The local pose of clip 0 of `set` played alone from `time` (empty if playing or evaluating
// failed, which the caller's size check then reports).
inline std::vector<Transform> first_clip_pose_at(std::shared_ptr<const ClipSet> set, float time) {
  Animator animator = make_animator(set);
  AnimatorWorkspace workspace(*set);
  std::vector<Transform> pose(set->skeleton().size());
  if (!animator.play(0, {.start_offset = time}).ok() ||
      !animator.evaluate(workspace, std::span<Transform>(pose))) {
    return {};
  }
  return pose;
}

// The clock joint's x in the evaluated pose: the sampled time, for one player at full weight.
inline float clock_reading(Animator& animator, AnimatorWorkspace& workspace) {
  std::vector<Transform> pose(animator.clip_set().skeleton().size());
  EXPECT_TRUE(animator.evaluate(workspace, std::span<Transform>(pose)));
  return pose[1].translation.x;
}

// An event as the tests write expectations: type, name, time within the update.
struct Fired {
  EventType type;
  std::string name;
  float time;
  std::uint32_t pass = 0;
};

inline std::vector<Fired> fired(std::span<const AnimationEvent> events) {
  std::vector<Fired> out;
  for (const AnimationEvent& e : events) {
    out.push_back({e.type, std::string(e.name), e.time, e.pass});
  }
  return out;
}

// Updates once and returns what fired.
inline std::vector<Fired> step(Animator& animator, float dt) {
  std::vector<AnimationEvent> buffer(1024);
  const UpdateResult r = animator.update(dt, buffer);
  EXPECT_EQ(r.events, r.events_written);
  buffer.resize(r.events_written);
  return fired(buffer);
}

inline std::string describe(const std::vector<Fired>& f) {
  std::string s;
  for (const Fired& e : f) {
    s += std::string(to_string(e.type)) + (e.name.empty() ? "" : ":" + e.name) + "@" +
         std::to_string(e.time) + " ";
  }
  return s;
}

// Checks type, name and time (within 1e-5 s) of every event, in order.
inline void expect_fired(const std::vector<Fired>& actual, const std::vector<Fired>& expected) {
  ASSERT_EQ(actual.size(), expected.size())
      << "fired: " << describe(actual) << "\nexpected: " << describe(expected);
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].type, expected[i].type) << i << ": " << describe(actual);
    EXPECT_EQ(actual[i].name, expected[i].name) << i << ": " << describe(actual);
    EXPECT_NEAR(actual[i].time, expected[i].time, 1e-5f) << i << ": " << describe(actual);
  }
}

inline Fired ev(const std::string& name, float time) {
  return {EventType::kClipEvent, name, time};
}
inline Fired looped(float time) {
  return {EventType::kLooped, "", time};
}
inline Fired finished(float time) {
  return {EventType::kFinished, "", time};
}

}  // namespace marrow::test
