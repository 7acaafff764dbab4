// Morph weights through the blend stack: normal average with the defaults filling in, masked
// override, additive weight differences, and morph masks from joint masks and clips; each
// against values worked out by hand.
#include <gtest/gtest.h>

#include <vector>

#include "job_checks.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/sampling.h"
#include "marrow/pose/additive.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/mask.h"
#include "pose_test_util.h"

namespace marrow {
namespace {

using Floats = std::vector<float>;

struct Stack {
  std::vector<Transform> rest = std::vector<Transform>(1);
  std::vector<Transform> out = std::vector<Transform>(1);
  Floats defaults = {0.1f, 0.2f, 0.3f};
  Floats result = Floats(3);

  Floats run(std::span<const BlendLayer> normal, std::span<const BlendLayer> over = {},
             std::span<const BlendLayer> add = {}) {
    BlendJob job;
    job.rest_pose = rest;
    job.layers = normal;
    job.overrides = over;
    job.additives = add;
    job.output = out;
    job.rest_morph_weights = defaults;
    job.morph_output = result;
    EXPECT_TRUE(job.run());
    return result;
  }
};

BlendLayer layer(const std::vector<Transform>& pose, float weight, const Floats& weights,
                 const Floats& morph_mask = {}) {
  BlendLayer l;
  l.pose = pose;
  l.weight = weight;
  l.morph_weights = weights;
  l.morph_mask = morph_mask;
  return l;
}

TEST(MorphBlend, NormalLayersAverageTheirWeightsWithoutNormalizing) {
  Stack s;
  const std::vector<Transform> pose(1);
  const Floats a = {1, 0, 2}, b = {0, 1, 4};
  const BlendLayer layers[] = {layer(pose, 0.25f, a), layer(pose, 0.75f, b)};
  const Floats w = s.run(layers);
  EXPECT_NEAR(w[0], 0.25f, 1e-6f);
  EXPECT_NEAR(w[1], 0.75f, 1e-6f);
  EXPECT_NEAR(w[2], 3.5f, 1e-6f);  // 0.25 * 2 + 0.75 * 4, above 1 and kept
}

TEST(MorphBlend, OneLayerIsExactAndNoLayerGivesTheDefaults) {
  Stack s;
  const std::vector<Transform> pose(1);
  const Floats a = {0.3f, 0.7f, 0.9f};
  const BlendLayer one[] = {layer(pose, 0.6f, a)};
  EXPECT_EQ(s.run(one), a);
  EXPECT_EQ(s.run({}), s.defaults);
}

TEST(MorphBlend, BelowTheThresholdTheDefaultsFillIn) {
  Stack s;
  const std::vector<Transform> pose(1);
  const Floats a = {1, 1, 1};
  const BlendLayer one[] = {layer(pose, 0.04f, a)};  // threshold 0.1: defaults weigh 0.06
  const Floats w = s.run(one);
  EXPECT_NEAR(w[0], (0.04f * 1 + 0.06f * 0.1f) / 0.1f, 1e-6f);
  EXPECT_NEAR(w[2], (0.04f * 1 + 0.06f * 0.3f) / 0.1f, 1e-6f);
}

TEST(MorphBlend, MaskedOverrideReplacesOnlyTheSelectedSlots) {
  Stack s;
  const std::vector<Transform> pose(1);
  const Floats base = {0.5f, 0.5f, 0.5f}, face = {1, 0, 0}, mask = {1, 0, 0.5f};
  const BlendLayer normal[] = {layer(pose, 1, base)};
  const BlendLayer over[] = {layer(pose, 0.8f, face, mask)};
  const Floats w = s.run(normal, over);
  EXPECT_NEAR(w[0], 0.5f + (1 - 0.5f) * 0.8f, 1e-6f);  // override weight 0.8
  EXPECT_NEAR(w[1], 0.5f, 1e-6f);                      // masked out
  EXPECT_NEAR(w[2], 0.5f + (0 - 0.5f) * 0.4f, 1e-6f);  // 0.8 * 0.5
}

TEST(MorphBlend, AdditiveLayersAddTheirDifferencesTimesTheirWeight) {
  Stack s;
  const std::vector<Transform> pose(1);
  const Floats base = {0.5f, 0.5f, 0.5f}, delta = {0.2f, -0.4f, 1};
  const BlendLayer normal[] = {layer(pose, 1, base)};
  const BlendLayer add[] = {layer(pose, 0.5f, delta)};
  const Floats w = s.run(normal, {}, add);
  EXPECT_NEAR(w[0], 0.6f, 1e-6f);
  EXPECT_NEAR(w[1], 0.3f, 1e-6f);
  EXPECT_NEAR(w[2], 1.0f, 1e-6f);
}

TEST(MorphBlend, LayersWithoutWeightsTakeNoPartAndJointsAreUnchanged) {
  Stack s;
  std::vector<Transform> moved(1);
  moved[0].translation = {1, 2, 3};
  const Floats a = {1, 1, 1};
  BlendLayer joints_only;
  joints_only.pose = moved;
  const BlendLayer layers[] = {joints_only, layer(moved, 1, a)};
  EXPECT_EQ(s.run(layers), a);
  EXPECT_EQ(s.out[0].translation, (Vec3{1, 2, 3}));
}

TEST(MorphBlend, ValidateRefusesShortWeightSpans) {
  Stack s;
  const std::vector<Transform> pose(1);
  const Floats short_weights = {1, 1};
  const BlendLayer layers[] = {layer(pose, 1, short_weights)};
  BlendJob job;
  job.rest_pose = s.rest;
  job.layers = layers;
  job.output = s.out;
  job.rest_morph_weights = s.defaults;
  job.morph_output = s.result;
  EXPECT_TRUE(test::refused_naming(job.validate(), "BlendJob: layers[0].morph_weights"));
  job.layers = {};
  Floats out2(2);
  job.morph_output = out2;
  EXPECT_TRUE(test::refused_naming(job.validate(), "BlendJob: morph_output"));
}

TEST(MorphMask, FromAJointMaskEachSlotTakesItsNodesWeight) {
  const MorphSlots slots[] = {{1, 0, 2}, {3, 2, 1}};
  const Floats joint_mask = {0, 0.5f, 1, 2};
  EXPECT_EQ(morph_mask_from_joint_mask(joint_mask, slots, 4), (Floats{0.5f, 0.5f, 1, 0}));
}

TEST(MorphMask, FromAClipOnlyTheSlotsThatMove) {
  ClipBuilder b("c");
  ASSERT_TRUE(b.add_weight_track(0, "face", 0, 3, Interpolation::kLinear, Floats{0.0f, 1.0f},
                                 Floats{0, 0.2f, 0.5f, 0, 0.2f, 1}, "w")
                  .ok());
  Result<Clip> clip = b.build(1, "c");
  ASSERT_TRUE(clip.ok());
  const Floats reference = {0, 0, 0.5f};
  auto mask = morph_mask_from_clip(*clip, reference);
  ASSERT_TRUE(mask.ok());
  EXPECT_EQ(*mask, (Floats{0, 1, 1}));
}

TEST(MorphAdditive, WeightTracksBecomeDifferencesFromTheReference) {
  const Skeleton skeleton = test::character();
  ClipBuilder b("smile");
  ASSERT_TRUE(b.add_weight_track(0, "hips", 1, 2, Interpolation::kCubicSpline, Floats{0.0f, 1.0f},
                                 Floats{7, 7, 0.5f, 0.5f, 1, 1,  // in, value, out
                                        2, 2, 1, 0.75f, 7, 7},
                                 "w")
                  .ok());
  b.set_weight_count(3);
  Result<Clip> clip = b.build(skeleton.size(), "c");
  ASSERT_TRUE(clip.ok());
  const Floats reference = {0, 0.25f, 0.5f};
  Result<Clip> additive = make_additive_clip(*clip, skeleton, skeleton.rest_pose(), reference);
  ASSERT_TRUE(additive.ok()) << additive.error().message;
  // Sampled deltas are the sampled weights minus the reference, everywhere.
  for (float t : {0.0f, 0.3f, 0.5f, 0.9f, 1.0f}) {
    Floats w(3, 0), d(3, 0);
    ASSERT_TRUE(sample_weight_tracks(*clip, t, w));
    ASSERT_TRUE(sample_weight_tracks(*additive, t, d));
    EXPECT_NEAR(d[1], w[1] - 0.25f, 1e-6f) << t;
    EXPECT_NEAR(d[2], w[2] - 0.5f, 1e-6f) << t;
  }
}

}  // namespace
}  // namespace marrow
