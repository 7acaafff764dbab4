// Inertialization: the quintic against its definition (end conditions, no overshoot), and the
// Animator's switch: pose and velocity continuous, the offset decayed by the quintic to the new
// clip exactly at the end, compared with a linear and a smooth cross-fade.
#include <gtest/gtest.h>

#include <cmath>

#include "control_test_util.h"
#include "marrow/control/inertialization.h"

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

TEST(ControlInertialization, TheSwitchIsContinuousAndDecaysToTheNewClipByTheQuintic) {
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

}  // namespace
}  // namespace marrow::test
