// Additive deltas, their weights (inside and outside [0, 1]), and prebuilt additive clips.
#include "marrow/pose/additive.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "marrow/pose/blend.h"
#include "pose_test_util.h"

namespace marrow {
namespace {

using test::axis_angle;
using test::bit_equal;
using test::near;

using test::kX;
using test::kY;
using test::kZ;

TEST(Additive, QuatPowScalesTheAngle) {
  EXPECT_TRUE(near(Transform{{0, 0, 0}, quat_pow(axis_angle(kX, 170), 0.5f), {1, 1, 1}},
                   Transform{{0, 0, 0}, axis_angle(kX, 85), {1, 1, 1}}, 1e-6f));
  // Exactly half a turn has no shortest arc: either way, a quarter turn about x.
  const Quat quarter = quat_pow(axis_angle(kX, 180), 0.5f);
  EXPECT_NEAR(std::fabs(quarter.x), std::sqrt(0.5f), 1e-6f);
  EXPECT_NEAR(quarter.w, std::sqrt(0.5f), 1e-6f);
  const Quat q = axis_angle(test::unit(Vec3{1, 2, 3}), 50);
  EXPECT_TRUE(near(Transform{{0, 0, 0}, quat_pow(q, 1), {1, 1, 1}},
                   Transform{{0, 0, 0}, q, {1, 1, 1}}, 1e-6f));
  EXPECT_TRUE(near(Transform{{0, 0, 0}, quat_pow(q, 0), {1, 1, 1}}, Transform{}, 1e-7f));
  EXPECT_TRUE(near(Transform{{0, 0, 0}, quat_pow(q, -1), {1, 1, 1}},
                   Transform{{0, 0, 0}, conjugate(q), {1, 1, 1}}, 1e-6f));
  // The shortest arc: -q (a 310° turn written the long way) still halves to 25°.
  EXPECT_TRUE(near(Transform{{0, 0, 0}, quat_pow(negate(q), 0.5f), {1, 1, 1}},
                   Transform{{0, 0, 0}, axis_angle(test::unit(Vec3{1, 2, 3}), 25), {1, 1, 1}},
                   1e-6f));
  // Near half a turn the sign of w is noise; the result must not flip with it.
  for (const float noise : {0.0f, 1e-8f, -1e-8f, 2e-7f, -2e-7f}) {
    for (const float sign : {1.0f, -1.0f}) {
      const Quat half_turn = scale(Quat{1, noise, 0, noise}, sign);
      EXPECT_LT(rotation_angle(quat_pow(half_turn, 0.5f), axis_angle(kX, 90)), 1e-5f);
    }
  }
  // Extrapolation: 90° about z cubed is 270°, which takes x to -y.
  EXPECT_TRUE(near(rotate(quat_pow(axis_angle(kZ, 90), 3), kX), {0, -1, 0}, 1e-6f));
  // Tiny angles keep their precision.
  const Quat tiny = from_axis_angle(kY, 1e-6f);
  EXPECT_NEAR(rotation_angle(Quat::identity(), quat_pow(tiny, 3)), 3e-6f, 1e-9f);
  EXPECT_EQ(quat_pow(Quat::identity(), 7), Quat::identity());
  EXPECT_TRUE(is_finite(quat_pow(Quat{0, 0, 0, 0}, 0.5f)));
}

TEST(Additive, DeltaByHand) {
  const Transform ref{{1, 2, 3}, axis_angle(kZ, 30), {2, 2, 2}};
  const Transform pose{{2, 2, 5}, axis_angle(kZ, 90), {4, 1, 2}};
  // Translation difference, rotation delta 60° about z, scale ratio.
  EXPECT_TRUE(near(additive_delta(ref, pose),
                   Transform{{1, 0, 2}, axis_angle(kZ, 60), {2, 0.5f, 1}}, 1e-6f));
  // At weight 1 onto the reference: the pose again.
  EXPECT_TRUE(near(apply_additive(ref, additive_delta(ref, pose), 1), pose, 1e-6f));
  // The rotation delta is reference⁻¹ · pose: applied on the right, in the joint's own frame.
  const Transform tilted{{}, axis_angle(kX, 90), {1, 1, 1}};
  const Transform turned{{}, axis_angle(kX, 90) * axis_angle(kY, 20), {1, 1, 1}};
  EXPECT_TRUE(near(additive_delta(tilted, turned),
                   Transform{{0, 0, 0}, axis_angle(kY, 20), {1, 1, 1}}, 1e-6f));
}

TEST(Additive, WeightsInsideAndOutsideZeroToOne) {
  const Transform delta{{1, 0, 2}, axis_angle(kZ, 60), {2, 0.5f, 1}};
  const Transform base{{0, 0, 0}, axis_angle(kZ, 10), {1, 1, 1}};
  struct Case {
    float w;
    Transform expected;
  };
  const float r2 = std::sqrt(2.0f);
  for (const Case& c : {
           Case{0.5f, {{0.5f, 0, 1}, axis_angle(kZ, 40), {r2, 1 / r2, 1}}},
           Case{1.0f, {{1, 0, 2}, axis_angle(kZ, 70), {2, 0.5f, 1}}},
           Case{2.0f, {{2, 0, 4}, axis_angle(kZ, 130), {4, 0.25f, 1}}},
           Case{-1.0f, {{-1, 0, -2}, axis_angle(kZ, -50), {0.5f, 2, 1}}},
           Case{-0.5f, {{-0.5f, 0, -1}, axis_angle(kZ, -20), {1 / r2, r2, 1}}},
       }) {
    EXPECT_TRUE(near(apply_additive(base, delta, c.w), c.expected, 1e-6f)) << "w = " << c.w;
  }
  EXPECT_TRUE(bit_equal(apply_additive(base, delta, 0), base));
}

TEST(Additive, ScaleRatiosThatCannotTakeAPower) {
  const Transform base{};
  // A mirror (ratio -1) blends linearly: 1 + w (r - 1).
  const Transform mirror{{}, {}, {-1, 1, 1}};
  EXPECT_NEAR(apply_additive(base, mirror, 0.5f).scale.x, 0.0f, 1e-7f);
  EXPECT_NEAR(apply_additive(base, mirror, 0.25f).scale.x, 0.5f, 1e-7f);
  EXPECT_EQ(apply_additive(base, mirror, 1).scale.x, -1.0f);
  // A collapse (ratio 0) extrapolated backwards: 1 + 1 = 2, not infinity.
  const Transform collapse{{}, {}, {0, 1, 1}};
  EXPECT_NEAR(apply_additive(base, collapse, -1).scale.x, 2.0f, 1e-7f);
  // A tiny ratio raised to a negative power is clamped, never infinite.
  const Transform tiny{{}, {}, {1e-30f, 1, 1}};
  EXPECT_EQ(apply_additive(base, tiny, -2).scale.x, 1e6f);
  // A collapsed reference gives a ratio of 1 on that axis.
  const Transform flat{{}, {}, {0, 1, 1}};
  EXPECT_EQ(additive_delta(flat, Transform{{0, 0, 0}, {}, {3, 1, 1}}).scale.x, 1.0f);
}

TEST(Additive, SpansWithMasks) {
  std::array pose{Transform{{1, 0, 0}, {}, {1, 1, 1}}, Transform{{2, 0, 0}, {}, {1, 1, 1}},
                  Transform{{3, 0, 0}, {}, {1, 1, 1}}};
  const std::array delta{Transform{{0, 1, 0}, {}, {1, 1, 1}}, Transform{{0, 1, 0}, {}, {1, 1, 1}},
                         Transform{{0, 1, 0}, {}, {1, 1, 1}}};
  const std::array mask{1.0f, 0.5f, 0.0f};
  ASSERT_TRUE(apply_additive(pose, delta, 2, mask));
  EXPECT_EQ(pose[0].translation, (Vec3{1, 2, 0}));
  EXPECT_EQ(pose[1].translation, (Vec3{2, 1, 0}));
  EXPECT_EQ(pose[2].translation, (Vec3{3, 0, 0}));

  const std::array before = pose;
  EXPECT_FALSE(apply_additive(pose, std::span(delta).first(2), 1));
  EXPECT_FALSE(apply_additive(pose, delta, 1, std::span(mask).first(1)));
  EXPECT_FALSE(apply_additive(pose, delta, std::numeric_limits<float>::quiet_NaN()));
  for (int j = 0; j < 3; ++j) EXPECT_TRUE(bit_equal(pose[j], before[j]));

  std::array<Transform, 3> d;
  EXPECT_FALSE(make_additive_pose(std::span(before).first(2), delta, d));
  ASSERT_TRUE(make_additive_pose(before, before, d));
  for (const Transform& t : d) EXPECT_TRUE(near(t, Transform{}, 1e-7f));
}

// A clip with every kind of track: step, linear and cubic-spline keys on all three channels.
Clip mixed_clip(const Skeleton& s) {
  ClipBuilder b("mixed");
  b.set_ticks_per_second(4800);
  b.add_event(0.25f, "step");
  EXPECT_TRUE(
      test::add_rotation_track(b, s, test::kWaist, kY, std::array{0.f, 40.f, -30.f}, 1).ok());
  EXPECT_TRUE(test::add_rotation_track(b, s, test::kChest, kX, std::array{5.f, 15.f, 0.f}, 1,
                                       Interpolation::kStep)
                  .ok());
  const std::array times{0.0f, 0.5f, 1.0f};
  const std::array bob{0.f, 1.f, 0.f, 0.f, 1.1f, 0.2f, 0.f, 1.f, 0.f};
  EXPECT_TRUE(b.add_track(test::kHips, "hips", TrackTarget::kTranslation, Interpolation::kStep,
                          times, bob, "test")
                  .ok());
  const std::array grow{1.f, 1.f, 1.f, 1.2f, 0.9f, 1.f, 1.f, 1.f, 1.f};
  EXPECT_TRUE(b.add_track(test::kHead, "head", TrackTarget::kScale, Interpolation::kLinear, times,
                          grow, "test")
                  .ok());
  // Cubic splines: in-tangent, value, out-tangent per key.
  const std::array cubic_times{0.0f, 1.0f};
  const Quat q0 = axis_angle(kZ, 10), q1 = axis_angle(kZ, 80);
  const std::array rot{0.f, 0.f,  0.f,  0.f, q0.x, q0.y, q0.z, q0.w, 0.1f, 0.f, 0.6f, -0.1f,
                       0.f, 0.2f, 0.5f, 0.f, q1.x, q1.y, q1.z, q1.w, 0.f,  0.f, 0.f,  0.f};
  EXPECT_TRUE(b.add_track(test::kShoulderR, "shoulder_r", TrackTarget::kRotation,
                          Interpolation::kCubicSpline, cubic_times, rot, "test")
                  .ok());
  const std::array move{0.f, 0.f,  0.f, 0.3f, 0.f,  0.f, 0.5f, 0.5f, 0.f,
                        0.f, -1.f, 0.f, 0.4f, 0.1f, 0.f, 0.f,  0.f,  0.f};
  EXPECT_TRUE(b.add_track(test::kElbowR, "elbow_r", TrackTarget::kTranslation,
                          Interpolation::kCubicSpline, cubic_times, move, "test")
                  .ok());
  const std::array squash{0.f, 0.f, 0.f, 1.f, 1.f,  1.f, 1.f, -1.f, 0.f,
                          0.f, 0.f, 0.f, 1.f, 0.8f, 1.f, 0.f, 0.f,  0.f};
  EXPECT_TRUE(b.add_track(test::kHandR, "hand_r", TrackTarget::kScale, Interpolation::kCubicSpline,
                          cubic_times, squash, "test")
                  .ok());
  return test::build(b, s);
}

std::vector<Transform> sample_delta(const Skeleton& s, const Clip& additive, float t) {
  const std::vector<Transform> identity(s.size());
  std::vector<Transform> delta(s.size());
  SamplingCursor cursor(additive);
  EXPECT_TRUE(sample(additive, identity, t, cursor, delta));
  return delta;
}

TEST(AdditiveClip, AgainstItsOwnFrameZeroRebuildsTheClip) {
  const Skeleton s = test::character();
  const Clip clip = mixed_clip(s);
  const std::vector<Transform> frame0 = sample_reference_pose(s, clip, 0).value();
  const Result<Clip> additive = make_additive_clip(clip, s, frame0);
  ASSERT_TRUE(additive.ok()) << additive.error().message;
  // Frame 0 is the rest pose on every channel the clip leaves alone: no constant tracks.
  EXPECT_EQ(additive->tracks().size(), clip.tracks().size());

  for (int i = 0; i <= 40; ++i) {
    const float t = static_cast<float>(i) / 40 * clip.duration();
    const std::vector<Transform> expected = test::pose_at(s, clip, t);
    // Prebuilt: sample the delta clip, one compose per joint onto frame 0.
    std::vector<Transform> pose = frame0;
    ASSERT_TRUE(apply_additive(pose, sample_delta(s, additive.value(), t), 1));
    // At run time: the delta of the sample against frame 0.
    std::vector<Transform> delta(s.size()), runtime = frame0;
    ASSERT_TRUE(make_additive_pose(frame0, expected, delta));
    ASSERT_TRUE(apply_additive(runtime, delta, 1));
    for (std::size_t j = 0; j < s.size(); ++j) {
      EXPECT_TRUE(near(pose[j], expected[j], 2e-6f)) << s.name(j) << " at " << t;
      EXPECT_TRUE(near(runtime[j], expected[j], 2e-6f)) << s.name(j) << " at " << t;
    }
  }
}

TEST(AdditiveClip, DeltaTracksSampleToTheDeltasOfTheSamples) {
  const Skeleton s = test::character();
  const Clip clip = mixed_clip(s);
  // A reference away from the rest pose everywhere: rotated, moved and scaled.
  std::vector<Transform> reference(s.rest_pose().begin(), s.rest_pose().end());
  for (std::size_t j = 0; j < s.size(); ++j) {
    reference[j].rotation = axis_angle(test::unit(Vec3{1, 0.5f, static_cast<float>(j)}), 25);
    reference[j].translation += Vec3{0.1f, -0.2f, 0.05f * static_cast<float>(j)};
    reference[j].scale = {1.5f, 0.5f, 2};
  }
  const Clip additive = make_additive_clip(clip, s, reference).value();
  // Every channel of every joint now has a delta track: the animated ones, plus constants.
  EXPECT_EQ(additive.tracks().size(), 3 * s.size());
  for (int i = 0; i <= 40; ++i) {
    const float t = static_cast<float>(i) / 40;
    const std::vector<Transform> pose = test::pose_at(s, clip, t);
    const std::vector<Transform> sampled = sample_delta(s, additive, t);
    for (std::size_t j = 0; j < s.size(); ++j) {
      EXPECT_TRUE(near(sampled[j], additive_delta(reference[j], pose[j]), 2e-6f))
          << s.name(j) << " at " << t;
      // Applied onto the reference at weight 1: the clip's pose, untouched joints included.
      EXPECT_TRUE(near(apply_additive(reference[j], sampled[j], 1), pose[j], 2e-6f));
    }
  }
}

TEST(AdditiveClip, AgainstTheRestPoseKeepsTheClipsShape) {
  const Skeleton s = test::character();
  const Clip clip = mixed_clip(s);
  const Clip additive = make_additive_clip(clip, s, s.rest_pose()).value();
  EXPECT_EQ(additive.name(), clip.name());
  EXPECT_EQ(additive.duration(), clip.duration());
  EXPECT_EQ(additive.ticks_per_second(), clip.ticks_per_second());
  ASSERT_EQ(additive.events().size(), 1u);
  EXPECT_EQ(additive.events()[0].name, "step");
  ASSERT_EQ(additive.tracks().size(), clip.tracks().size());
  for (std::size_t i = 0; i < clip.tracks().size(); ++i) {
    EXPECT_EQ(additive.tracks()[i].joint, clip.tracks()[i].joint);
    EXPECT_EQ(additive.tracks()[i].interpolation, clip.tracks()[i].interpolation);
    EXPECT_EQ(additive.track_joint_names()[i], clip.track_joint_names()[i]);
  }
  // The waist's delta against its identity rest rotation is the clip's own rotation: 40° at 0.5 s.
  EXPECT_TRUE(near(sample_delta(s, additive, 0.5f)[test::kWaist],
                   Transform{{0, 0, 0}, axis_angle(kY, 40), {1, 1, 1}}, 1e-6f));
}

TEST(AdditiveClip, BadArguments) {
  const Skeleton s = test::character();
  const Clip clip = mixed_clip(s);
  EXPECT_FALSE(make_additive_clip(clip, s, s.rest_pose().first(4)).ok());
  std::vector<Transform> nan_ref(s.rest_pose().begin(), s.rest_pose().end());
  nan_ref[3].translation.x = std::numeric_limits<float>::quiet_NaN();
  const Result<Clip> bad = make_additive_clip(clip, s, nan_ref);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("shoulder_r"), std::string::npos);
  ClipBuilder big("big");
  const Clip too_big = big.build(s.size() + 1, "test").value();
  EXPECT_FALSE(make_additive_clip(too_big, s, s.rest_pose()).ok());
  EXPECT_FALSE(sample_reference_pose(s, too_big, 0).ok());
  EXPECT_FALSE(sample_reference_pose(s, clip, std::numeric_limits<float>::infinity()).ok());
}

TEST(AdditiveClip, InABlendJobOnTopOfALayer) {
  const Skeleton s = test::character();
  const Clip clip = mixed_clip(s);
  const std::vector<Transform> frame0 = sample_reference_pose(s, clip, 0).value();
  const Clip additive = make_additive_clip(clip, s, frame0).value();
  const std::vector<float> upper = mask_from_subtree(s, "chest").value();
  const float t = 0.37f;
  const std::vector<Transform> delta = sample_delta(s, additive, t);
  const std::vector<Transform> base = test::pose_at(s, clip, 0.8f);

  const std::array<BlendLayer, 1> normal{{{base, 1, {}}}};
  const std::array<BlendLayer, 1> adds{{{delta, 0.7f, upper}}};
  std::vector<Transform> out(s.size());
  BlendJob job{.rest_pose = s.rest_pose(), .layers = normal, .additives = adds, .output = out};
  ASSERT_TRUE(job.run());
  std::vector<Transform> expected = base;
  ASSERT_TRUE(apply_additive(expected, delta, 0.7f, upper));
  for (std::size_t j = 0; j < s.size(); ++j) {
    EXPECT_TRUE(bit_equal(out[j], expected[j])) << s.name(j);
    if (upper[j] == 0) {
      EXPECT_TRUE(bit_equal(out[j], base[j])) << s.name(j);
    }
  }
}

}  // namespace
}  // namespace marrow
