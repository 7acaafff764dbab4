// Inertialization: the quintic against its definition (end conditions, no overshoot), and the
// Animator's switch: pose and velocity continuous, the offset decayed by the quintic to the new
// clip exactly at the end (on every SIMD level the machine has), compared with a linear and a
// smooth cross-fade; every level's offsets on rotations, translations and scales against the
// scalar level's.
#include <gtest/gtest.h>

#include <cmath>

#include <random>

#include "control_test_util.h"
#include "marrow/control/inertialization.h"
#include "simd_test_util.h"

namespace marrow::test {
namespace {

TEST(ControlInertialization, TheQuinticStartsAtX0WithV0AndRestsAtTheEnd) {
  const float T = 0.5f, h = 1e-4f;
  for (float x0 : {1.0f, -0.3f}) {
    for (float v0 : {-40.0f, -2.0f, 0.0f, 3.0f, 25.0f}) {
      EXPECT_FLOAT_EQ(inertial_offset(x0, v0, T, 0), x0);
      const float slope = (inertial_offset(x0, v0, T, h) - x0) / h;
      EXPECT_NEAR(slope, v0, 0.02f * (1 + std::fabs(v0)) + std::fabs(x0) * 0.05f)
          << x0 << " " << v0;
      EXPECT_EQ(inertial_offset(x0, v0, T, T), 0);
      EXPECT_NEAR(inertial_offset(x0, v0, T, T - h), 0, 1e-5f);  // arrives flat
    }
  }
}

TEST(ControlInertialization, TheOffsetNeverPassesZero) {
  // Over a grid of start velocities toward and away from zero, the largest excursion past zero,
  // as a fraction of x0: the bound docs/control.md states.
  double worst = 0;
  for (int k = -400; k <= 400; ++k) {
    const float v0 = k * 0.25f;
    for (int i = 0; i <= 1000; ++i) {
      const float x = inertial_offset(1.0f, v0, 0.3f, 0.3f * i / 1000);
      worst = std::max(worst, -static_cast<double>(x));
    }
  }
  std::cout << "inertialization: largest overshoot past the target, x0 = 1, |v0| <= 100: " << worst
            << "\n";
  EXPECT_LT(worst, 1e-6);
  EXPECT_EQ(inertial_offset(NAN, 1, 1, 0.1f), 0);
  EXPECT_EQ(inertial_offset(1, 1, INFINITY, 0.1f), 0);
}

// "up" moves the clock joint from x = 0 at 1 unit/s; "down" from x = 4 at -2 units/s.
std::shared_ptr<const ClipSet> ramps(const Skeleton& skeleton) {
  ClipBuilder down("down");
  const float times[] = {0, 2}, values[] = {4, 1, 0, 0, 1, 0};
  EXPECT_TRUE(down.add_track(1, "clock", TrackTarget::kTranslation, Interpolation::kLinear, times,
                             values, "down")
                  .ok());
  return make_set(skeleton, {clock_clip("up", 4), down.build(3, "down").value()});
}

// The clock joint's x per frame through a switch after 1 s at 1 / fps: inertialized (kind 0), or
// cross-faded linearly (1) or smoothly (2).
std::vector<float> through_switch(int kind, float duration, int fps = 30) {
  Skeleton skeleton = clock_skeleton();
  auto set = ramps(skeleton);
  Animator animator = make_animator(set, {.inertialization = true});
  AnimatorWorkspace workspace(*set);
  const PlayerId up = animator.play(0).value();
  std::vector<float> x;
  const float dt = 1.0f / fps;
  for (int frame = 0; frame < 2 * fps; ++frame) {
    if (frame == fps) {
      const PlayerId down = animator.play(1).value();
      const Status s =
          kind == 0 ? animator.inertialize(up, down, duration)
                    : animator.cross_fade(up, down, duration,
                                          kind == 1 ? FadeCurve::kLinear : FadeCurve::kSmooth);
      EXPECT_TRUE(s.ok());
    }
    animator.update(dt);
    x.push_back(clock_reading(animator, workspace));
  }
  return x;
}

void expect_the_quintic_after_a_switch() {
  const float dt = 1.0f / 30, duration = 0.5f;
  const std::vector<float> x = through_switch(0, duration);
  // Frame 30 is the first after the switch (t = 31 dt): "up" would read 31 dt, "down" 4 - 2 dt
  // (it started at the switch). The source's velocity is 1, the target's -2: x0 = S - T and
  // v0 = 1 - (-2) = 3 per unit time, and every later frame is T + the quintic.
  for (int frame = 30; frame < 60; ++frame) {
    const float since = (frame - 30) * dt;
    const float target = 4 - 2 * (since + dt);
    const float x0 = 31 * dt - (4 - 2 * dt);
    EXPECT_NEAR(x[frame], target + inertial_offset(x0, 3, duration, since), 1e-4f) << frame;
  }
  EXPECT_NEAR(x[30], 31 * dt, 1e-5f);          // at the switch: the old clip's pose, no jump
  EXPECT_NEAR(x[59], 4 - 2 * 30 * dt, 1e-5f);  // after it: the new clip alone
}

TEST(ControlInertialization, TheSwitchIsContinuousAndDecaysToTheNewClipByTheQuintic) {
  for_each_simd_level([](SimdLevel) { expect_the_quintic_after_a_switch(); });
}
TEST(ControlInertialization, ComparedWithCrossFadesOnlyTheLinearFadeBreaksTheVelocity) {
  // The change of the per-frame velocity across the switch. Where the velocity is continuous it
  // is one frame's acceleration, so it shrinks with the frame time; a linear fade's weight starts
  // at 2 per second over a gap of ~2.9 units, a jump that does not.
  const char* names[] = {"inertialization", "linear cross-fade", "smooth cross-fade"};
  for (int kind = 0; kind < 3; ++kind) {
    float jump[2];
    for (int r = 0; r < 2; ++r) {
      const int fps = r == 0 ? 30 : 240;
      const std::vector<float> x = through_switch(kind, 0.5f, fps);
      const float before = (x[fps - 1] - x[fps - 2]) * fps, at = (x[fps] - x[fps - 1]) * fps;
      const float after = (x[fps + 1] - x[fps]) * fps;
      jump[r] = std::max(std::fabs(at - before), std::fabs(after - at));
      std::cout << names[kind] << " at " << fps << " fps: velocity " << before << " -> " << at
                << " -> " << after << " across the switch\n";
    }
    if (kind == 1) {
      EXPECT_GT(jump[1], 4.0f);
    } else {
      EXPECT_LT(jump[1], jump[0] / 4) << names[kind];
    }
  }
}

TEST(ControlInertialization, ASecondSwitchDuringTheFirstStartsFromWhatIsShown) {
  Skeleton skeleton = clock_skeleton();
  auto set = ramps(skeleton);
  Animator animator = make_animator(set, {.inertialization = true});
  AnimatorWorkspace workspace(*set);
  const float dt = 1.0f / 30;
  PlayerId up = animator.play(0).value();
  std::vector<float> x;
  for (int frame = 0; frame < 40; ++frame) {
    if (frame == 5) {
      const PlayerId down = animator.play(1).value();
      ASSERT_TRUE(animator.inertialize(up, down, 0.5f).ok());
      up = down;
    }
    if (frame == 10) {
      const PlayerId again = animator.play(0).value();
      ASSERT_TRUE(animator.inertialize(up, again, 0.5f).ok());
    }
    animator.update(dt);
    x.push_back(clock_reading(animator, workspace));
    ASSERT_TRUE(std::isfinite(x.back()));
  }
  // Frame 10 shows what the first switch would have shown then: "down" after six updates plus
  // the first offset (x0 = 6 dt - (4 - 2 dt), v0 = 3) five frames into its decay.
  const float first = 4 - 12 * dt + inertial_offset(6 * dt - (4 - 2 * dt), 3, 0.5f, 5 * dt);
  EXPECT_NEAR(x[10], first, 1e-4f);
  EXPECT_NEAR(x[39], 30 * dt, 1e-5f);  // then the second target alone: "up" from 0, 30 updates
}

// Two clips of random keys on every channel of a random 20-joint tree, so that all nine offset
// channels of three SoA groups move.
std::shared_ptr<const ClipSet> random_clips(const Skeleton& skeleton, std::mt19937& rng) {
  std::vector<Clip> clips;
  for (const char* name : {"a", "b"}) {
    ClipBuilder b(name);
    const float times[] = {0, 0.4f, 1};
    for (JointIndex j = 0; j < skeleton.size(); ++j) {
      std::vector<float> t, r, sc;
      for (int k = 0; k < 3; ++k) {
        const Transform x = random_transform(rng);
        t.insert(t.end(), {x.translation.x, x.translation.y, x.translation.z});
        r.insert(r.end(), {x.rotation.x, x.rotation.y, x.rotation.z, x.rotation.w});
        sc.insert(sc.end(), {x.scale.x, x.scale.y, x.scale.z});
      }
      const std::string joint(skeleton.name(j));
      EXPECT_TRUE(
          b.add_track(j, joint, TrackTarget::kTranslation, Interpolation::kLinear, times, t, name)
              .ok());
      EXPECT_TRUE(
          b.add_track(j, joint, TrackTarget::kRotation, Interpolation::kLinear, times, r, name)
              .ok());
      EXPECT_TRUE(
          b.add_track(j, joint, TrackTarget::kScale, Interpolation::kLinear, times, sc, name).ok());
    }
    clips.push_back(b.build(skeleton.size(), name).value());
  }
  return make_set(skeleton, clips);
}

// Every frame of a switch from "a" to "b" and back, at the active SIMD level.
std::vector<Transform> frames_through_switches(std::shared_ptr<const ClipSet> set) {
  Animator animator = make_animator(set, {.inertialization = true});
  AnimatorWorkspace workspace(*set);
  std::vector<Transform> frames, pose(set->skeleton().size());
  PlayerId from = animator.play(0).value();
  for (int frame = 0; frame < 24; ++frame) {
    if (frame == 3 || frame == 9) {
      const PlayerId to = animator.play(frame == 3 ? 1 : 0).value();
      EXPECT_TRUE(animator.inertialize(from, to, 0.4f).ok());
      from = to;
    }
    animator.update(1.0f / 30);
    EXPECT_TRUE(animator.evaluate(workspace, std::span<Transform>(pose)));
    frames.insert(frames.end(), pose.begin(), pose.end());
  }
  return frames;
}

TEST(ControlInertialization, EveryLevelAddsTheScalarLevelsOffsetsOnEveryChannel) {
  std::mt19937 rng(11);
  const Skeleton skeleton = random_skeleton(rng, 20);
  const auto set = random_clips(skeleton, rng);
  const SimdLevel saved = active_simd_level();
  ASSERT_TRUE(set_simd_level(SimdLevel::kScalar));
  const std::vector<Transform> reference = frames_through_switches(set);
  ASSERT_TRUE(set_simd_level(saved));
  for_each_simd_level([&](SimdLevel level) {
    const std::vector<Transform> frames = frames_through_switches(set);
    ASSERT_EQ(frames.size(), reference.size());
    float worst = 0;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const Transform &a = frames[i], &b = reference[i];
      for (const auto& [u, v] : {std::pair{a.translation, b.translation}, {a.scale, b.scale}})
        worst = std::max({worst, std::fabs(u.x - v.x), std::fabs(u.y - v.y), std::fabs(u.z - v.z)});
      const Quat r = dot(a.rotation, b.rotation) < 0 ? negate(b.rotation) : b.rotation;
      worst = std::max({worst, std::fabs(a.rotation.x - r.x), std::fabs(a.rotation.y - r.y),
                        std::fabs(a.rotation.z - r.z), std::fabs(a.rotation.w - r.w)});
    }
    std::cout << to_string(level) << ": largest difference from the scalar level " << worst << "\n";
    EXPECT_LT(worst, 2e-5f);
  });
}

}  // namespace
}  // namespace marrow::test
