// Mask builders: names, subtrees with falloff, inverse, union, intersection, and masks from clips.
#include "marrow/pose/mask.h"

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <vector>

#include "pose_test_util.h"

namespace marrow {
namespace {

using test::kJointCount;
using test::kX;
using test::kY;
using test::kZ;

// The expected mask: `weights` at the listed joints, 0 elsewhere.
std::vector<float> expected(std::initializer_list<std::pair<test::Joint, float>> weights) {
  std::vector<float> m(kJointCount, 0.0f);
  for (const auto& [joint, w] : weights) m[joint] = w;
  return m;
}

TEST(Mask, UniformWeighsEveryJoint) {
  const Skeleton s = test::character();
  EXPECT_EQ(mask_uniform(s), std::vector<float>(kJointCount, 1.0f));
  EXPECT_EQ(mask_uniform(s, 0.25f), std::vector<float>(kJointCount, 0.25f));
  EXPECT_EQ(mask_uniform(s, 0), std::vector<float>(kJointCount, 0.0f));
}

TEST(Mask, FromNames) {
  const Skeleton s = test::character();
  const Result<std::vector<float>> m = mask_from_names(s, {"waist", "hand_r"});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value(), expected({{test::kWaist, 1}, {test::kHandR, 1}}));

  const std::vector<std::string_view> names{"head"};
  EXPECT_EQ(mask_from_names(s, names, 0.5f).value(), expected({{test::kHead, 0.5f}}));

  const Result<std::vector<float>> unknown = mask_from_names(s, {"waist", "tail"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("'tail'"), std::string::npos);
  EXPECT_FALSE(mask_from_names(s, {"waist"}, 1.5f).ok());
  EXPECT_FALSE(mask_from_names(s, {"waist"}, std::numeric_limits<float>::quiet_NaN()).ok());
}

TEST(Mask, FromSubtree) {
  const Skeleton s = test::character();
  EXPECT_EQ(mask_from_subtree(s, "shoulder_r").value(),
            expected({{test::kShoulderR, 1}, {test::kElbowR, 1}, {test::kHandR, 1}}));
  EXPECT_EQ(mask_from_subtree(s, test::kThighL).value(),
            expected({{test::kThighL, 1}, {test::kKneeL, 1}}));
  EXPECT_EQ(mask_from_subtree(s, "hips").value(), std::vector<float>(kJointCount, 1.0f));
  EXPECT_FALSE(mask_from_subtree(s, "tail").ok());
  EXPECT_FALSE(mask_from_subtree(s, JointIndex{kJointCount}).ok());
  EXPECT_FALSE(mask_from_subtree(s, "waist", {.root_weight = -0.5f}).ok());
}

TEST(Mask, SubtreeFalloffRampsAlongTheChain) {
  const Skeleton s = test::character();
  // Up the spine: depth 0 at 0.25, depth 1 at 0.5, depth 2 at 0.75, depth 3 and on at 1.
  const SubtreeFalloff up{.root_weight = 0.25f, .end_weight = 1, .length = 3};
  EXPECT_EQ(mask_from_subtree(s, "waist", up).value(), expected({{test::kWaist, 0.25f},
                                                                 {test::kChest, 0.5f},
                                                                 {test::kShoulderR, 0.75f},
                                                                 {test::kShoulderL, 0.75f},
                                                                 {test::kHead, 0.75f},
                                                                 {test::kElbowR, 1},
                                                                 {test::kHandR, 1}}));
  // Fading out down the arm: 1, 0.5, 0.
  const SubtreeFalloff fade{.root_weight = 1, .end_weight = 0, .length = 2};
  EXPECT_EQ(mask_from_subtree(s, "shoulder_r", fade).value(),
            expected({{test::kShoulderR, 1}, {test::kElbowR, 0.5f}, {test::kHandR, 0}}));
  // length 0: every joint of the subtree at end_weight.
  EXPECT_EQ(mask_from_subtree(s, "thigh_r", {.root_weight = 0, .end_weight = 0.5f}).value(),
            expected({{test::kThighR, 0.5f}, {test::kKneeR, 0.5f}}));
}

TEST(Mask, SubtreeInAForest) {
  // Two roots; the second tree's joints come after the first's.
  const std::vector<JointDesc> joints = {{"a", -1, {}}, {"a1", 0, {}}, {"b", -1, {}},
                                         {"b1", 2, {}}, {"b2", 3, {}}, {"a2", 1, {}}};
  const Skeleton s = Skeleton::build(joints).value();
  const std::vector<float> m = mask_from_subtree(s, "b").value();
  for (std::size_t j = 0; j < s.size(); ++j) {
    EXPECT_EQ(m[j], s.name(j)[0] == 'b' ? 1.0f : 0.0f) << s.name(j);
  }
}

TEST(Mask, InverseUnionIntersection) {
  const Skeleton s = test::character();
  const std::vector<float> arm =
      mask_from_subtree(s, "shoulder_r", {.root_weight = 0.5f, .end_weight = 1, .length = 1})
          .value();
  const std::vector<float> upper = mask_from_subtree(s, "chest").value();

  std::vector<float> not_arm(kJointCount, 1.0f);
  not_arm[test::kShoulderR] = 0.5f;
  not_arm[test::kElbowR] = not_arm[test::kHandR] = 0;
  EXPECT_EQ(mask_inverse(arm), not_arm);

  // Out-of-range and NaN weights clamp before inverting.
  const std::array odd{1.5f, -1.0f, std::numeric_limits<float>::quiet_NaN(), 0.25f};
  EXPECT_EQ(mask_inverse(odd), (std::vector<float>{0, 1, 1, 0.75f}));

  // The upper body without the right arm, and the arm with the legs.
  const std::vector<float> upper_not_arm = mask_intersection(upper, not_arm).value();
  EXPECT_EQ(
      upper_not_arm,
      expected(
          {{test::kChest, 1}, {test::kShoulderR, 0.5f}, {test::kShoulderL, 1}, {test::kHead, 1}}));
  const std::vector<float> legs = mask_from_names(s, {"thigh_l", "knee_l"}).value();
  EXPECT_EQ(mask_union(arm, legs).value(), expected({{test::kShoulderR, 0.5f},
                                                     {test::kElbowR, 1},
                                                     {test::kHandR, 1},
                                                     {test::kThighL, 1},
                                                     {test::kKneeL, 1}}));
  const std::array short_mask{1.0f};
  EXPECT_FALSE(mask_union(arm, short_mask).ok());
  EXPECT_FALSE(mask_intersection(short_mask, arm).ok());
}

// ---- masks from clips

struct ClipMask {
  Skeleton s = test::character();
  ClipBuilder b{"probe"};

  void vec_track(JointIndex joint, TrackTarget target, std::vector<float> values,
                 Interpolation interpolation = Interpolation::kLinear) {
    const std::size_t keys = values.size() / floats_per_key(target, interpolation);
    std::vector<float> times;
    for (std::size_t k = 0; k < keys; ++k) times.push_back(static_cast<float>(k));
    ASSERT_TRUE(
        b.add_track(joint, s.name(joint), target, interpolation, times, values, "test").ok());
  }

  std::vector<float> mask(std::span<const Transform> reference, const MaskTolerance& tol = {}) {
    const Clip clip = test::build(b, s);
    Result<std::vector<float>> m = mask_from_clip(s, clip, reference, tol);
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
    return m.ok() ? m.value() : std::vector<float>{};
  }
};

TEST(MaskFromClip, JointsThatMoveInAnyChannel) {
  ClipMask c;
  // The waist turns half a degree (8.7e-3 rad) at the second key only.
  const Quat turn = test::axis_angle(kY, 0.5f);
  c.vec_track(test::kWaist, TrackTarget::kRotation, {0, 0, 0, 1, turn.x, turn.y, turn.z, turn.w});
  // The head's scale grows by 1 %.
  c.vec_track(test::kHead, TrackTarget::kScale, {1, 1, 1, 1, 1.01f, 1});
  // The left knee slides a centimetre.
  c.vec_track(test::kKneeL, TrackTarget::kTranslation, {0, -0.45f, 0, 0.01f, -0.45f, 0});
  EXPECT_EQ(c.mask(c.s.rest_pose()),
            expected({{test::kWaist, 1}, {test::kHead, 1}, {test::kKneeL, 1}}));
}

TEST(MaskFromClip, FloatNoiseBelowTheToleranceIsNotMovement) {
  ClipMask c;
  // Tracks that hold the rest pose up to rounding: exact float equality would flag all three.
  const Quat wobble = test::axis_angle(test::unit(Vec3{1, 2, 3}), 1e-3f);  // 1.7e-5 rad
  c.vec_track(test::kWaist, TrackTarget::kRotation,
              {0, 0, 0, 1, wobble.x, wobble.y, wobble.z, wobble.w});
  c.vec_track(test::kHead, TrackTarget::kScale, {1, 1, 1, 1.000001f, 0.999999f, 1});
  c.vec_track(test::kKneeL, TrackTarget::kTranslation, {0, -0.45f, 0, 1e-6f, -0.450001f, 0});
  // q and -q are the same rotation.
  c.vec_track(test::kElbowR, TrackTarget::kRotation, {0, 0, 0, -1, 0, 0, 0, 1});
  EXPECT_EQ(c.mask(c.s.rest_pose()), std::vector<float>(kJointCount, 0.0f));
}

TEST(MaskFromClip, ToleranceIsPerChannel) {
  ClipMask c;
  const Quat turn = test::axis_angle(kY, 0.5f);
  c.vec_track(test::kWaist, TrackTarget::kRotation, {0, 0, 0, 1, turn.x, turn.y, turn.z, turn.w});
  c.vec_track(test::kKneeL, TrackTarget::kTranslation, {0, -0.45f, 0, 0.01f, -0.45f, 0});
  const Clip clip = test::build(c.b, c.s);
  const auto mask = [&](MaskTolerance tol) {
    return mask_from_clip(c.s, clip, c.s.rest_pose(), tol).value();
  };
  EXPECT_EQ(mask({.rotation = test::deg(1)}), expected({{test::kKneeL, 1}}));
  EXPECT_EQ(mask({.translation = 0.02f}), expected({{test::kWaist, 1}}));
  EXPECT_EQ(mask({.translation = 0.02f, .rotation = test::deg(1)}),
            std::vector<float>(kJointCount, 0.0f));
}

TEST(MaskFromClip, CubicSplinesAreCheckedBetweenKeys) {
  ClipMask c;
  // Both keys sit at the rest translation, but the tangents bulge the curve out between them:
  // at s = 0.5 the Hermite terms give h10 · dt · out0 + h11 · dt · in1
  // = 0.125 · 0.4 + (-0.125) · (-0.4) = 0.1 along x.
  c.vec_track(test::kChest, TrackTarget::kTranslation,
              {0, 0, 0, 0, 0.3f, 0, 0.4f, 0, 0,  //
               -0.4f, 0, 0, 0, 0.3f, 0, 0, 0, 0},
              Interpolation::kCubicSpline);
  EXPECT_EQ(c.mask(c.s.rest_pose()), expected({{test::kChest, 1}}));
}

TEST(MaskFromClip, UnanimatedChannelsCompareTheirRestValue) {
  ClipMask c;
  const Quat turn = test::axis_angle(kZ, 30);
  c.vec_track(test::kElbowR, TrackTarget::kRotation, {turn.x, turn.y, turn.z, turn.w});
  // A reference that differs from the rest pose at the elbow (in the channel the clip drives,
  // and matching what it drives) and at the head (which the clip leaves at rest).
  std::vector<Transform> reference(c.s.rest_pose().begin(), c.s.rest_pose().end());
  reference[test::kElbowR].rotation = turn;
  reference[test::kHead].translation.y += 0.1f;
  reference[test::kThighL].rotation = test::axis_angle(kX, 10);
  EXPECT_EQ(c.mask(reference), expected({{test::kHead, 1}, {test::kThighL, 1}}));
}

TEST(MaskFromClip, BadArguments) {
  const Skeleton s = test::character();
  ClipBuilder b("x");
  const Clip clip = test::build(b, s);
  EXPECT_FALSE(mask_from_clip(s, clip, s.rest_pose().first(3)).ok());
  EXPECT_FALSE(mask_from_clip(s, clip, s.rest_pose(), {.scale = -1}).ok());
  ClipBuilder big("big");
  const Clip too_big = big.build(kJointCount + 1, "test").value();
  EXPECT_FALSE(mask_from_clip(s, too_big, s.rest_pose()).ok());
}

TEST(RotationAngle, PreciseForSmallAnglesAndBlindToTheSign) {
  const Quat a = test::axis_angle(test::unit(Vec3{1, 1, 0}), 17);
  for (const float angle : {1e-5f, 1e-3f, 0.5f, 2.0f, 3.1f}) {
    const Quat b = a * from_axis_angle(kZ, angle);
    EXPECT_NEAR(rotation_angle(a, b), angle, 1e-6f + angle * 1e-5f);
    EXPECT_NEAR(rotation_angle(a, negate(b)), angle, 1e-6f + angle * 1e-5f);
  }
  EXPECT_NEAR(rotation_angle(a, a), 0.0f, 1e-7f);
}

}  // namespace
}  // namespace marrow
