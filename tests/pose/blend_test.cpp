// BlendJob: normal layers, override layers and additive layers, against values worked out by
// hand.
#include "marrow/pose/blend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "job_checks.h"
#include "marrow/pose/additive.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "pose_test_util.h"

namespace marrow {
namespace {

using test::axis_angle;
using test::bit_equal;
using test::near;

using test::kX;
using test::kY;
using test::kZ;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Transform trs(Vec3 t, Quat r, Vec3 s = {1, 1, 1}) {
  return {t, r, s};
}

// Blends one-joint poses: normal layers only.
Transform blend1(std::span<const Transform> poses, std::span<const float> weights,
                 Transform rest = {}, float threshold = kDefaultBlendThreshold) {
  std::vector<BlendLayer> layers;
  for (std::size_t i = 0; i < poses.size(); ++i) {
    layers.push_back({std::span<const Transform>(&poses[i], 1), weights[i], {}});
  }
  Transform out;
  BlendJob job;
  job.rest_pose = std::span<const Transform>(&rest, 1);
  job.layers = layers;
  job.threshold = threshold;
  job.output = std::span<Transform>(&out, 1);
  EXPECT_TRUE(job.run());
  return out;
}

TEST(Blend, HalfwayBetweenTwoRotationsIsTheHalfAngle) {
  const Transform a = trs({}, axis_angle(kZ, 20)), b = trs({}, axis_angle(kZ, 80));
  const std::array poses{a, b};
  // 50/50 of 20° and 80° about one axis: 50° about that axis. Weights are normalized, so 1/1
  // and 0.5/0.5 agree.
  for (const auto& w : {std::array{0.5f, 0.5f}, std::array{1.0f, 1.0f}, std::array{7.f, 7.f}}) {
    const Transform out = blend1(poses, w);
    EXPECT_TRUE(near(out, trs({}, axis_angle(kZ, 50)), 1e-6f));
  }
}

TEST(Blend, UnequalWeightsNormalizeTheWeightedSum) {
  const std::array poses{trs({}, Quat::identity()), trs({}, axis_angle(kZ, 90))};
  const Transform out = blend1(poses, std::array{0.25f, 0.75f});
  // 0.25 (0,0,0,1) + 0.75 (0,0,sin 45°,cos 45°), normalized: the half angle is
  // atan2(0.75 sin 45°, 0.25 + 0.75 cos 45°) = atan(0.53033 / 0.78033) = 34.20°, so the rotation
  // is 68.40° about z (a slerp would give 67.5°).
  const float s45 = std::sqrt(0.5f);
  const float angle = 2 * std::atan2(0.75f * s45, 0.25f + 0.75f * s45);
  EXPECT_NEAR(angle * 180 / test::kPi, 68.40f, 0.01f);
  EXPECT_TRUE(near(out, trs({}, from_axis_angle(kZ, angle)), 1e-6f));
}

TEST(Blend, TranslationAndScaleAreWeightedAverages) {
  const std::array poses{trs({1, 0, 0}, {}, {1, 1, 1}), trs({0, 2, 0}, {}, {2, 3, 1})};
  const Transform out = blend1(poses, std::array{1.0f, 3.0f});
  // (1·(1,0,0) + 3·(0,2,0)) / 4 and (1·(1,1,1) + 3·(2,3,1)) / 4.
  EXPECT_TRUE(near(out.translation, {0.25f, 1.5f, 0}, 1e-6f));
  EXPECT_TRUE(near(out.scale, {1.75f, 2.5f, 1}, 1e-6f));
}

TEST(Blend, OppositeHemisphereQuaternionsAreTheSameRotation) {
  const Quat q = axis_angle(kX, 40);
  const std::array poses{trs({}, q), trs({}, negate(q)), trs({}, q)};
  for (const auto& w : {std::array{0.5f, 0.5f, 0.0f}, std::array{0.2f, 0.7f, 0.1f}}) {
    const Transform out = blend1(poses, w);
    ASSERT_TRUE(is_finite(out));
    EXPECT_TRUE(near(out, trs({}, q), 1e-6f));
  }
}

TEST(Blend, RotationsHalfATurnApartMeetHalfway) {
  // Identity and 180° about x are orthogonal quaternions: the sum (±0.5, 0, 0, 0.5) is a quarter
  // turn about x, one way or the other (half a turn has no shortest arc; the rounding of
  // cos 90° picks one).
  const std::array poses{trs({}, Quat::identity()), trs({}, axis_angle(kX, 180))};
  const Transform out = blend1(poses, std::array{0.5f, 0.5f});
  ASSERT_TRUE(is_finite(out));
  EXPECT_NEAR(std::fabs(out.rotation.x), std::sqrt(0.5f), 1e-6f);
  EXPECT_NEAR(out.rotation.w, std::sqrt(0.5f), 1e-6f);
  // Just short of half a turn, the way is clear: 179° and 0° meet at 89.5°.
  const std::array almost{trs({}, Quat::identity()), trs({}, axis_angle(kX, 179))};
  EXPECT_TRUE(near(blend1(almost, std::array{0.5f, 0.5f}), trs({}, axis_angle(kX, 89.5f)), 1e-6f));
}

TEST(Blend, HalfATurnApartBlendsTheSameWayEveryFrame) {
  // Two clips holding a joint exactly half a turn apart (180° about z vs 180° about y): the dot
  // product of their quaternions is 0 up to rounding, and its sign changes with noise from frame
  // to frame. The blend must not flip sides with it.
  const Quat b{0, 1, 0, 0};
  const Quat expected = normalize(Quat{0, 0.25f, 0.75f, 0});  // 25 % of the way, one fixed way
  for (const float noise : {0.0f, 1e-8f, -1e-8f, 3e-7f, -3e-7f}) {
    for (const float sign : {1.0f, -1.0f}) {
      const Quat a = scale(Quat{noise, -noise, 1, noise}, sign);
      const std::array poses{trs({}, a), trs({}, b)};
      const Transform out = blend1(poses, std::array{0.75f, 0.25f});
      EXPECT_LT(rotation_angle(out.rotation, expected), 1e-5f) << noise << " " << sign;
      // Override layers and lerp make the same choice.
      EXPECT_LT(rotation_angle(lerp(trs({}, a), trs({}, b), 0.25f).rotation, expected), 1e-5f);
    }
  }
}

TEST(Blend, AllZeroWeightsGiveTheRestPoseExactly) {
  const Transform rest = trs({0, 1, 0}, axis_angle(kY, 33), {1, 2, 1});
  const std::array poses{trs({5, 5, 5}, axis_angle(kX, 90)), trs({-5, 0, 0}, axis_angle(kZ, 10))};
  for (const auto& w : {std::array{0.0f, 0.0f}, std::array{-1.0f, 0.0f}, std::array{-0.f, -3.f}}) {
    const Transform out = blend1(poses, w, rest);
    EXPECT_TRUE(bit_equal(out, rest));
  }
  EXPECT_TRUE(bit_equal(blend1({}, {}, rest), rest));  // no layers at all
}

TEST(Blend, SelfBlendAtAnyWeightsIsThePose) {
  const Transform a = trs({0.3f, -1.2f, 4}, normalize(Quat{0.1f, 0.7f, -0.2f, 0.6f}), {1, 2, 0.5f});
  const std::array poses{a, a};
  for (const auto& w : {std::array{0.3f, 0.7f}, std::array{5.0f, 2.0f}, std::array{0.05f, 0.05f},
                        std::array{1e-3f, 1e3f}, std::array{1e-6f, 0.2f}}) {
    EXPECT_TRUE(near(blend1(poses, w), a, 2e-6f)) << w[0] << " " << w[1];
  }
}

TEST(Blend, WeightsOneAndZeroGiveTheFirstPoseBitForBit) {
  const Transform a = trs({0.3f, -1.2f, 4}, normalize(Quat{0.1f, 0.7f, -0.2f, 0.6f}), {1, 2, 0.5f});
  const Transform b = trs({1, 2, 3}, axis_angle(kZ, 120), {3, 3, 3});
  const std::array poses{a, b};
  EXPECT_TRUE(bit_equal(blend1(poses, std::array{1.0f, 0.0f}), a));
  EXPECT_TRUE(bit_equal(blend1(poses, std::array{0.0f, 1.0f}), b));
  // A lone layer at or above the threshold is the layer whatever its weight.
  EXPECT_TRUE(bit_equal(blend1(poses, std::array{0.4f, 0.0f}), a));
  EXPECT_TRUE(bit_equal(blend1(poses, std::array{0.0f, kDefaultBlendThreshold}), b));
}

TEST(Blend, RestPoseFillsInBelowTheThresholdContinuously) {
  const Transform rest = trs({0, 0, 0}, Quat::identity());
  const Transform a = trs({2, 0, 0}, axis_angle(kZ, 60), {3, 1, 1});
  const std::array poses{a};
  // Weight 0.05 under threshold 0.1: the rest pose joins with 0.1 - 0.05 = 0.05, so the result
  // is halfway between them: (1,0,0), 30° about z (a 50/50 nlerp), scale (2,1,1).
  const Transform half = blend1(poses, std::array{0.05f}, rest, 0.1f);
  EXPECT_TRUE(near(half, trs({1, 0, 0}, axis_angle(kZ, 30), {2, 1, 1}), 1e-6f));
  // A quarter of the threshold: three quarters rest.
  const Transform quarter = blend1(poses, std::array{0.025f}, rest, 0.1f);
  EXPECT_TRUE(near(quarter.translation, {0.5f, 0, 0}, 1e-6f));
  // No jump where the weight crosses the threshold, and none as it reaches 0.
  EXPECT_TRUE(near(blend1(poses, std::array{0.0999f}, rest, 0.1f), a, 3e-3f));
  EXPECT_TRUE(near(blend1(poses, std::array{1e-5f}, rest, 0.1f), rest, 2e-3f));
}

TEST(Blend, MasksWeighEachJoint) {
  const std::array rest{Transform{}, Transform{}};
  const std::array a{trs({1, 0, 0}, {}), trs({1, 0, 0}, {})};
  const std::array b{trs({0, 1, 0}, {}), trs({0, 1, 0}, {})};
  const std::array mask_a{1.0f, 0.0f};
  const std::array<BlendLayer, 2> layers{{{a, 1, mask_a}, {b, 1, {}}}};
  std::array<Transform, 2> out;
  BlendJob job;
  job.rest_pose = rest;
  job.layers = layers;
  job.output = out;
  ASSERT_TRUE(job.run());
  EXPECT_TRUE(near(out[0].translation, {0.5f, 0.5f, 0}, 1e-7f));
  EXPECT_TRUE(bit_equal(out[1], b[1]));  // a is masked out there: b alone

  // A mask weight of 0.5 with layer weight 1 against b at 1: 1/3 of a, 2/3 of b.
  const std::array mask_half{0.5f, 0.5f};
  const std::array<BlendLayer, 2> halves{{{a, 1, mask_half}, {b, 1, {}}}};
  job.layers = halves;
  ASSERT_TRUE(job.run());
  EXPECT_TRUE(near(out[0].translation, {1.0f / 3, 2.0f / 3, 0}, 1e-6f));
}

TEST(Blend, DeadLayersAndMaskedJointsAreNeverRead) {
  const std::array rest{Transform{}, Transform{}};
  const Transform poison{{kNaN, kNaN, kNaN}, {kNaN, kNaN, kNaN, kNaN}, {kNaN, kNaN, kNaN}};
  const std::array garbage{poison, poison};
  const std::array a{trs({1, 0, 0}, axis_angle(kX, 10)), trs({2, 0, 0}, axis_angle(kX, 20))};
  const std::array half_poison{trs({0, 3, 0}, {}), poison};
  const std::array mask{1.0f, 0.0f};
  const std::array<BlendLayer, 3> layers{{{a, 1, {}}, {garbage, 0, {}}, {half_poison, 1, mask}}};
  std::array<Transform, 2> out;
  BlendJob job;
  job.rest_pose = rest;
  job.layers = layers;
  job.overrides = std::span<const BlendLayer>(&layers[1], 1);  // a dead override
  job.output = out;
  ASSERT_TRUE(job.run());
  ASSERT_TRUE(test::all_finite(out));
  EXPECT_TRUE(bit_equal(out[1], a[1]));
  EXPECT_TRUE(near(out[0].translation, {0.5f, 1.5f, 0}, 1e-6f));
}

TEST(Blend, DenormalAndDegenerateInputStaysFinite) {
  constexpr float kDenormal = 1e-40f;
  const Transform rest = trs({0, 1, 0}, axis_angle(kY, 10));
  const Transform tiny =
      trs({kDenormal, 0, 0}, Quat{kDenormal, 0, 0, kDenormal}, {kDenormal, kDenormal, kDenormal});
  const Transform zero_q = trs({1, 0, 0}, Quat{0, 0, 0, 0});
  const std::array poses{tiny, zero_q, rest};
  // Denormal weights take no part: the rest pose, exactly.
  EXPECT_TRUE(bit_equal(blend1(poses, std::array{kDenormal, kDenormal, 0.0f}, rest), rest));
  // Denormal and zero quaternions averaged, with and without a real one: unit and finite.
  for (const auto& w : {std::array{1.0f, 1.0f, 0.0f}, std::array{1.0f, 1.0f, 1.0f},
                        std::array{0.5f, 1e-19f, 1e-19f}}) {
    const Transform out = blend1(poses, w, rest);
    EXPECT_TRUE(is_finite(out));
    EXPECT_NEAR(dot(out.rotation, out.rotation), 1.0f, 1e-6f);
  }
  // A lone layer passes through as it is, even a zero quaternion: finite, never NaN.
  EXPECT_TRUE(is_finite(blend1(poses, std::array{kDenormal, 1.0f, 1e-30f}, rest)));
  // The smallest threshold allowed, with every weight zero or denormal.
  EXPECT_TRUE(
      is_finite(blend1(poses, std::array{kDenormal, 0.0f, 0.0f}, rest, kMinBlendThreshold)));
}

TEST(Blend, InvalidJobsWriteNothing) {
  const std::array rest{Transform{}, Transform{}};
  const std::array pose{Transform{}, Transform{}};
  const std::array short_pose{Transform{}};
  const std::array short_mask{1.0f};
  const Transform sentinel = trs({9, 9, 9}, {});
  std::array<Transform, 2> out{sentinel, sentinel};
  const auto check = [&](BlendJob job, const char* refused) {
    job.rest_pose = rest;
    if (job.output.empty()) job.output = out;
    EXPECT_TRUE(test::refused_naming(job.validate(), std::string("BlendJob: ") + refused));
    EXPECT_FALSE(job.run());
    EXPECT_TRUE(bit_equal(out[0], sentinel) && bit_equal(out[1], sentinel));
  };
  const std::array<BlendLayer, 1> short_layer{{{short_pose, 1, {}}}};
  const std::array<BlendLayer, 1> bad_mask{{{pose, 1, short_mask}}};
  const std::array<BlendLayer, 1> nan_weight{{{pose, kNaN, {}}}};
  const std::array<BlendLayer, 1> inf_weight{{{pose, std::numeric_limits<float>::infinity(), {}}}};
  const std::array<BlendLayer, 2> second_short{{{pose, 1, {}}, {short_pose, 1, {}}}};
  check({.layers = short_layer}, "layers[0].pose");
  check({.overrides = bad_mask}, "overrides[0].mask");
  check({.additives = short_layer}, "additives[0].pose");
  check({.layers = nan_weight}, "layers[0].weight");
  check({.additives = inf_weight}, "additives[0].weight");
  check({.overrides = nan_weight}, "overrides[0].weight");
  check({.layers = second_short}, "layers[1].pose");
  check({.threshold = 0}, "threshold");
  check({.threshold = kNaN}, "threshold");
  check({.threshold = 1e-9f}, "threshold");
  check({.output = std::span<Transform>(out.data(), 1)}, "output");
  std::vector<BlendLayer> too_many(kMaxBlendLayers + 1, BlendLayer{pose, 0, {}});
  check({.layers = too_many}, "layers");
  too_many.pop_back();
  BlendJob most{.rest_pose = rest, .layers = too_many, .output = out};
  EXPECT_TRUE(most.run());
}

TEST(Blend, OutputMayBeALayersOwnBuffer) {
  const std::array rest{Transform{}, Transform{}};
  std::array a{trs({1, 0, 0}, axis_angle(kX, 10)), trs({2, 0, 0}, axis_angle(kX, 20))};
  const std::array b{trs({3, 0, 0}, axis_angle(kY, 10)), trs({0, 0, 0}, axis_angle(kZ, 50))};
  std::array<Transform, 2> expected;
  std::array<BlendLayer, 2> layers{{{a, 0.3f, {}}, {b, 0.6f, {}}}};
  BlendJob job{.rest_pose = rest, .layers = layers, .output = expected};
  ASSERT_TRUE(job.run());
  job.output = a;
  ASSERT_TRUE(job.run());
  for (int j = 0; j < 2; ++j) EXPECT_TRUE(bit_equal(a[j], expected[j]));
}

// ---- override layers

struct OverrideCase {
  std::array<Transform, 1> rest{};
  std::array<Transform, 1> out{};

  Transform run(std::span<const BlendLayer> normal, std::span<const BlendLayer> overrides) {
    BlendJob job{.rest_pose = rest, .layers = normal, .overrides = overrides, .output = out};
    EXPECT_TRUE(job.run());
    return out[0];
  }
};

TEST(BlendOverride, FullWeightReplacesTheNormalResultExactly) {
  const std::array a{trs({0, 0, 0}, Quat::identity())};
  const std::array b{trs({2, 0, 0}, axis_angle(kZ, 90), {1, 2, 3})};
  OverrideCase c;
  const std::array<BlendLayer, 1> normal{{{a, 1, {}}}};
  for (float w : {1.0f, 2.5f}) {
    const std::array<BlendLayer, 1> over{{{b, w, {}}}};
    EXPECT_TRUE(bit_equal(c.run(normal, over), b[0]));
  }
  const std::array<BlendLayer, 1> off{{{b, 0, {}}}};
  EXPECT_TRUE(bit_equal(c.run(normal, off), a[0]));
}

TEST(BlendOverride, PartialWeightLerpsOverTheNormalResult) {
  const std::array a{trs({0, 0, 0}, Quat::identity(), {1, 1, 1})};
  const std::array b{trs({2, 0, 0}, axis_angle(kZ, 90), {3, 1, 1})};
  OverrideCase c;
  const std::array<BlendLayer, 1> normal{{{a, 1, {}}}};
  const std::array<BlendLayer, 1> over{{{b, 0.5f, {}}}};
  // Halfway: (1,0,0), 45° about z (nlerp and slerp agree at t = 0.5), scale (2,1,1).
  EXPECT_TRUE(near(c.run(normal, over), trs({1, 0, 0}, axis_angle(kZ, 45), {2, 1, 1}), 1e-6f));
}

TEST(BlendOverride, OverridesAverageThenBlendByTheirClampedSum) {
  const std::array a{trs({0, 0, 0}, {})};
  const std::array b{trs({2, 0, 0}, {})};
  const std::array c2{trs({0, 2, 0}, {})};
  OverrideCase c;
  const std::array<BlendLayer, 1> normal{{{a, 1, {}}}};
  // 0.25 + 0.25: their average (1,1,0) goes over (0,0,0) at 0.5.
  const std::array<BlendLayer, 2> quarter{{{b, 0.25f, {}}, {c2, 0.25f, {}}}};
  EXPECT_TRUE(near(c.run(normal, quarter).translation, {0.5f, 0.5f, 0}, 1e-6f));
  // 0.75 + 0.75 = 1.5, clamped to 1: the average itself.
  const std::array<BlendLayer, 2> most{{{b, 0.75f, {}}, {c2, 0.75f, {}}}};
  EXPECT_TRUE(near(c.run(normal, most).translation, {1, 1, 0}, 1e-6f));
  // 0.25 + 0.75: the average (0.5, 1.5, 0) at full weight.
  const std::array<BlendLayer, 2> mixed{{{b, 0.25f, {}}, {c2, 0.75f, {}}}};
  EXPECT_TRUE(near(c.run(normal, mixed).translation, {0.5f, 1.5f, 0}, 1e-6f));
}

// Running: legs swing, the arm swings, the waist sways. Waving: the right arm raised and waving.
struct RunAndWave {
  Skeleton skeleton = test::character();
  Clip run, wave;

  RunAndWave() {
    ClipBuilder r("run");
    const std::array swing{30.f, -30.f, 30.f};
    const std::array swing_back{-30.f, 30.f, -30.f};
    const std::array knee{0.f, 60.f, 0.f};
    const std::array sway{-5.f, 5.f, -5.f};
    const std::array arm{-20.f, 20.f, -20.f};
    const Skeleton& s = skeleton;
    EXPECT_TRUE(test::add_rotation_track(r, s, test::kThighL, kX, swing, 0.6f).ok());
    EXPECT_TRUE(test::add_rotation_track(r, s, test::kThighR, kX, swing_back, 0.6f).ok());
    EXPECT_TRUE(test::add_rotation_track(r, s, test::kKneeL, kX, knee, 0.6f).ok());
    EXPECT_TRUE(test::add_rotation_track(r, s, test::kWaist, kY, sway, 0.6f).ok());
    EXPECT_TRUE(test::add_rotation_track(r, s, test::kShoulderR, kX, arm, 0.6f).ok());
    const std::array bob_times{0.0f, 0.3f, 0.6f};
    const std::array bob{0.f, 1.f, 0.f, 0.f, 1.05f, 0.f, 0.f, 1.f, 0.f};
    EXPECT_TRUE(r.add_track(test::kHips, "hips", TrackTarget::kTranslation, Interpolation::kLinear,
                            bob_times, bob, "test")
                    .ok());
    run = test::build(r, s);

    ClipBuilder w("wave");
    const std::array raise{150.f, 150.f, 150.f};
    const std::array wave_elbow{20.f, 70.f, 20.f};
    EXPECT_TRUE(test::add_rotation_track(w, s, test::kShoulderR, kZ, raise, 0.6f).ok());
    EXPECT_TRUE(test::add_rotation_track(w, s, test::kElbowR, kZ, wave_elbow, 0.6f).ok());
    wave = test::build(w, s);
  }
};

TEST(BlendOverride, RunningLegsKeepRunningWhileTheArmWavesWithoutAPop) {
  RunAndWave rw;
  const Skeleton& s = rw.skeleton;
  const Result<std::vector<float>> arm = mask_from_subtree(s, "shoulder_r");
  ASSERT_TRUE(arm.ok());
  const std::vector<float> inside = arm.value();

  constexpr float kDt = 1.0f / 60;
  constexpr int kRamp = 18;  // 0.3 s at 60 Hz
  constexpr int kFrames = 3 * kRamp + 1;
  std::vector<Transform> out(s.size()), previous;
  float max_step = 0, max_clip_step = 0, max_gap = 0;
  std::vector<Transform> prev_run, prev_wave;
  for (int f = 0; f < kFrames; ++f) {
    const float t = static_cast<float>(f) * kDt;
    // Up over 0.3 s, held for 0.3 s, down over 0.3 s.
    const float w = f <= kRamp       ? static_cast<float>(f) / kRamp
                    : f <= 2 * kRamp ? 1.0f
                                     : static_cast<float>(kFrames - 1 - f) / kRamp;
    const std::vector<Transform> run =
        test::pose_at(s, rw.run, wrap_time(t, 0.6f, WrapMode::kLoop));
    const std::vector<Transform> wave =
        test::pose_at(s, rw.wave, wrap_time(t, 0.6f, WrapMode::kLoop));
    const std::array<BlendLayer, 1> normal{{{run, 1, {}}}};
    const std::array<BlendLayer, 1> over{{{wave, w, inside}}};
    BlendJob job{.rest_pose = s.rest_pose(), .layers = normal, .overrides = over, .output = out};
    ASSERT_TRUE(job.run());

    for (std::size_t j = 0; j < s.size(); ++j) {
      if (inside[j] == 0) {
        // Legs, spine, head, the other arm: the running pose, bit for bit.
        EXPECT_TRUE(bit_equal(out[j], run[j])) << s.name(j) << " frame " << f;
      }
    }
    if (w == 0) {
      EXPECT_TRUE(bit_equal(out[test::kShoulderR], run[test::kShoulderR]));
    }
    if (w == 1) {
      EXPECT_TRUE(bit_equal(out[test::kShoulderR], wave[test::kShoulderR]));
    }

    const Quat shoulder = out[test::kShoulderR].rotation;
    max_gap = std::max(
        max_gap, rotation_angle(run[test::kShoulderR].rotation, wave[test::kShoulderR].rotation));
    if (f > 0) {
      max_step = std::max(max_step, rotation_angle(previous[test::kShoulderR].rotation, shoulder));
      max_clip_step = std::max(
          {max_clip_step,
           rotation_angle(prev_run[test::kShoulderR].rotation, run[test::kShoulderR].rotation),
           rotation_angle(prev_wave[test::kShoulderR].rotation, wave[test::kShoulderR].rotation)});
    }
    previous = out;
    prev_run = run;
    prev_wave = wave;
  }
  // The weight moves by 1/18 a frame. Across a gap of up to max_gap between the two arms, an
  // nlerp moves at most 4/pi times as fast as a slerp (at the middle of a half-turn), and the
  // clips move on their own: that is the most one frame may step. No pop means staying below it.
  const float bound = max_clip_step + (4 / test::kPi) * max_gap / kRamp;
  EXPECT_GT(max_gap, test::deg(100));  // the arm really travels
  EXPECT_LE(max_step, bound);
  EXPECT_LT(max_step, test::deg(15));
}

// The seed's open bug: a base clip twists the waist, an override moves only the arm. In the
// Cipher engine the waving arm ignored the twist; blending in local space makes the arm's
// shoulder ride the twisted chest.
TEST(BlendOverride, OverrideArmFollowsTheTwistedWaist) {
  const Skeleton s = test::character();
  ClipBuilder twist("twist");
  ASSERT_TRUE(test::add_rotation_track(twist, s, test::kWaist, kY, std::array{0.f, 90.f}, 1).ok());
  const Clip base = test::build(twist, s);
  ClipBuilder wave_builder("wave");
  ASSERT_TRUE(
      test::add_rotation_track(wave_builder, s, test::kShoulderR, kZ, std::array{0.f, 60.f}, 1)
          .ok());
  ASSERT_TRUE(
      test::add_rotation_track(wave_builder, s, test::kElbowR, kZ, std::array{0.f, 45.f}, 1).ok());
  const Clip wave = test::build(wave_builder, s);
  const std::vector<float> arm = mask_from_subtree(s, "shoulder_r").value();

  for (const float t : {0.5f, 1.0f}) {
    const std::vector<Transform> base_pose = test::pose_at(s, base, t);
    const std::vector<Transform> wave_pose = test::pose_at(s, wave, t);
    const std::array<BlendLayer, 1> normal{{{base_pose, 1, {}}}};
    const std::array<BlendLayer, 1> over{{{wave_pose, 1, arm}}};
    std::vector<Transform> out(s.size());
    BlendJob job{.rest_pose = s.rest_pose(), .layers = normal, .overrides = over, .output = out};
    ASSERT_TRUE(job.run());
    std::vector<Mat4> model(s.size()), base_model(s.size()), wave_model(s.size());
    ASSERT_TRUE(local_to_model(s, out, model));
    ASSERT_TRUE(local_to_model(s, base_pose, base_model));
    ASSERT_TRUE(local_to_model(s, wave_pose, wave_model));

    // No joint outside the mask changes, in local or model space.
    for (std::size_t j = 0; j < s.size(); ++j) {
      if (arm[j] > 0) continue;
      EXPECT_TRUE(bit_equal(out[j], base_pose[j])) << s.name(j);
      EXPECT_EQ(model[j], base_model[j]) << s.name(j);
    }
    // The shoulder sits where the twisted waist puts it.
    EXPECT_EQ(model[test::kShoulderR].translation(), base_model[test::kShoulderR].translation());
    // The arm is the wave's arm, hung from the twisted chest.
    const Mat4 expected_hand = mul_affine(
        base_model[test::kChest], mul_affine(to_matrix(wave_pose[test::kShoulderR]),
                                             mul_affine(to_matrix(wave_pose[test::kElbowR]),
                                                        to_matrix(s.rest_pose()[test::kHandR]))));
    EXPECT_TRUE(near(model[test::kHandR].translation(), expected_hand.translation(), 1e-6f));
    if (t == 1.0f) {
      // By hand, waist turned 90° about y, which maps (x, y, z) to (z, y, -x): the chest is at
      // (0, 1.5, 0) and the shoulder at (0, 1.5, -0.2). In the chest's frame the elbow is at
      // (0.2 + 0.3 cos 60°, 0.3 sin 60°) = (0.35, 0.259808) and the hand at
      // elbow + 0.25 (cos 105°, sin 105°) = (0.285295, 0.501290); turned: (0, 2.001290, -0.285295).
      EXPECT_TRUE(near(model[test::kShoulderR].translation(), {0, 1.5f, -0.2f}, 1e-6f));
      EXPECT_TRUE(near(model[test::kHandR].translation(), {0, 2.0012895f, -0.2852952f}, 1e-5f));
      // Where the Cipher engine put it: the wave's own, untwisted model pose.
      EXPECT_TRUE(near(wave_model[test::kHandR].translation(), {0.2852952f, 2.0012895f, 0}, 1e-5f));
      EXPECT_GT(length(model[test::kHandR].translation() - wave_model[test::kHandR].translation()),
                0.3f);
    }
  }
}

TEST(BlendOverride, MaskedOverrideLeavesOutsideJointsBitIdentical) {
  RunAndWave rw;
  const Skeleton& s = rw.skeleton;
  // A soft mask: the shoulder at 0.5, the rest of the arm at 1; the left arm at 0.
  const std::vector<float> mask =
      mask_from_subtree(s, "shoulder_r", {.root_weight = 0.5f, .end_weight = 1, .length = 1})
          .value();
  const std::vector<Transform> run = test::pose_at(s, rw.run, 0.17f);
  const std::vector<Transform> wave = test::pose_at(s, rw.wave, 0.17f);
  const std::array<BlendLayer, 1> normal{{{run, 1, {}}}};
  const std::array<BlendLayer, 1> over{{{wave, 0.8f, mask}}};
  std::vector<Transform> out(s.size());
  BlendJob job{.rest_pose = s.rest_pose(), .layers = normal, .overrides = over, .output = out};
  ASSERT_TRUE(job.run());
  for (std::size_t j = 0; j < s.size(); ++j) {
    if (mask[j] == 0) {
      EXPECT_TRUE(bit_equal(out[j], run[j])) << s.name(j);
    }
  }
  // Inside: 0.8 · 0.5 = 0.4 of the way at the shoulder, 0.8 at the elbow.
  EXPECT_TRUE(near(out[test::kShoulderR], lerp(run[test::kShoulderR], wave[test::kShoulderR], 0.4f),
                   1e-6f));
  EXPECT_TRUE(near(out[test::kElbowR], lerp(run[test::kElbowR], wave[test::kElbowR], 0.8f), 1e-6f));
}

// ---- additive layers inside the job

TEST(BlendAdditive, AdditiveLayersApplyOnTopThroughTheirMasks) {
  const std::array rest{Transform{}, Transform{}};
  const std::array base{trs({1, 0, 0}, axis_angle(kZ, 10)), trs({0, 1, 0}, axis_angle(kX, 20))};
  const std::array over{trs({5, 0, 0}, axis_angle(kZ, 40)), trs({0, 5, 0}, axis_angle(kX, 40))};
  // A delta of 30° about z and (0, 0, 1).
  const std::array delta{trs({0, 0, 1}, axis_angle(kZ, 30), {2, 1, 1}),
                         trs({0, 0, 1}, axis_angle(kZ, 30), {2, 1, 1})};
  const std::array mask{1.0f, 0.0f};
  const std::array<BlendLayer, 1> normal{{{base, 1, {}}}};
  const std::array<BlendLayer, 1> overrides{{{over, 1, {}}}};
  const std::array<BlendLayer, 1> additive{{{delta, 0.5f, mask}}};
  std::array<Transform, 2> out;
  BlendJob job{.rest_pose = rest,
               .layers = normal,
               .overrides = overrides,
               .additives = additive,
               .output = out};
  ASSERT_TRUE(job.run());
  // Joint 0: the override (40° about z at (5,0,0)) plus half the delta: 55° about z at
  // (5, 0, 0.5), scale sqrt(2) on x. Joint 1: masked out, the override alone.
  EXPECT_TRUE(near(out[0], trs({5, 0, 0.5f}, axis_angle(kZ, 55), {std::sqrt(2.0f), 1, 1}), 1e-6f));
  EXPECT_TRUE(bit_equal(out[1], over[1]));
}

}  // namespace
}  // namespace marrow
