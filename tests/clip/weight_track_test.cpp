// Morph-weight tracks: the glTF 2.0 `weights` path sampled with STEP, LINEAR and CUBICSPLINE
// against values computed by hand from the spec's formulas, the shared cursor against binary
// search, and what the builder refuses.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "marrow/clip/clip_builder.h"
#include "marrow/clip/sampling.h"

namespace marrow {
namespace {

using Floats = std::vector<float>;

// A clip with one joint track (so the cursor has to skip it) and one weight track of two
// weights in slots 1 and 2 of a 4-slot weight array.
Clip two_weight_clip(Interpolation interpolation, const Floats& times, const Floats& values) {
  ClipBuilder b("weights");
  EXPECT_TRUE(b.add_track(0, "root", TrackTarget::kTranslation, Interpolation::kLinear,
                          Floats{0.0f, 1.0f}, Floats{0, 0, 0, 1, 0, 0}, "t")
                  .ok());
  const Status s = b.add_weight_track(0, "root", 1, 2, interpolation, times, values, "w");
  EXPECT_TRUE(s.ok()) << s.error().message;
  b.set_weight_count(4);
  Result<Clip> clip = b.build(1, "test");
  EXPECT_TRUE(clip.ok()) << clip.error().message;
  return std::move(clip).value();
}

Floats weights_at(const Clip& clip, float t) {
  Floats w = {-7, -7, -7, -7};  // untouched slots keep their value
  EXPECT_TRUE(sample_weight_tracks(clip, t, w));
  return w;
}

TEST(WeightTracks, StepHoldsEachKeysWeightsUntilTheNext) {
  const Clip clip =
      two_weight_clip(Interpolation::kStep, Floats{0, 1, 2}, Floats{0, 1, 0.5f, 0.25f, 2, -1});
  EXPECT_EQ(weights_at(clip, -1), (Floats{-7, 0, 1, -7}));
  EXPECT_EQ(weights_at(clip, 0.99f), (Floats{-7, 0, 1, -7}));
  EXPECT_EQ(weights_at(clip, 1), (Floats{-7, 0.5f, 0.25f, -7}));
  EXPECT_EQ(weights_at(clip, 5), (Floats{-7, 2, -1, -7}));
}

TEST(WeightTracks, LinearLerpsEachWeightAndNeverNormalizes) {
  // Keys at 0 and 2: (0, 1) then (1, 3). At t = 0.5, s = 0.25: (0.25, 1.5), a sum of 1.75.
  const Clip clip = two_weight_clip(Interpolation::kLinear, Floats{0, 2}, Floats{0, 1, 1, 3});
  const Floats w = weights_at(clip, 0.5f);
  EXPECT_NEAR(w[1], 0.25f, 1e-6f);
  EXPECT_NEAR(w[2], 1.5f, 1e-6f);
  EXPECT_EQ(w[0], -7);
  EXPECT_EQ(w[3], -7);
}

TEST(WeightTracks, CubicSplineIsGltfsHermiteWithTangentsScaledByTheInterval) {
  // glTF Appendix C: p(s) = (2s^3 - 3s^2 + 1) v0 + td (s^3 - 2s^2 + s) b0 + (-2s^3 + 3s^2) v1
  //                        + td (s^3 - s^2) a1, td = t1 - t0.
  // Per key: in-tangents (2), values (2), out-tangents (2).
  const Floats values = {9, 9, 0, 1, 2, -1,  // key 0 at t = 1: a0 (unused), v0, b0
                         3, 4, 1, 0, 9, 9};  // key 1 at t = 3: a1, v1, b1 (unused)
  const Clip clip = two_weight_clip(Interpolation::kCubicSpline, Floats{1, 3}, values);
  const float t = 1.5f, td = 2, s = 0.25f;
  const float h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
  const float h01 = -2 * s * s * s + 3 * s * s, h11 = s * s * s - s * s;
  const float w0 = h00 * 0 + td * h10 * 2 + h01 * 1 + td * h11 * 3;
  const float w1 = h00 * 1 + td * h10 * -1 + h01 * 0 + td * h11 * 4;
  // The same numbers by hand: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875.
  EXPECT_NEAR(w0, 0.5625f + 0.15625f - 0.28125f, 1e-6f);
  EXPECT_NEAR(w1, 0.84375f - 0.28125f - 0.375f, 1e-6f);
  const Floats w = weights_at(clip, t);
  EXPECT_NEAR(w[1], w0, 1e-6f);
  EXPECT_NEAR(w[2], w1, 1e-6f);
  // At and outside the keys: the key values exactly.
  EXPECT_EQ(weights_at(clip, 1)[1], 0);
  EXPECT_EQ(weights_at(clip, 3)[1], 1);
  EXPECT_EQ(weights_at(clip, 0)[2], 1);
  EXPECT_EQ(weights_at(clip, 4)[2], 0);
}

TEST(WeightTracks, SampleWeightsStartsFromTheDefaults) {
  const Clip clip = two_weight_clip(Interpolation::kLinear, Floats{0, 2}, Floats{0, 1, 1, 3});
  SamplingCursor cursor(clip);
  const Floats defaults = {0.5f, 0.5f, 0.5f, 0.75f};
  Floats w(4);
  ASSERT_TRUE(sample_weights(clip, defaults, 1.0f, cursor, w));
  EXPECT_EQ(w[0], 0.5f);
  EXPECT_NEAR(w[1], 0.5f, 1e-6f);
  EXPECT_NEAR(w[2], 2.0f, 1e-6f);
  EXPECT_EQ(w[3], 0.75f);
  Floats short_array(3);
  EXPECT_FALSE(sample_weights(clip, defaults, 1.0f, cursor, short_array));
}

TEST(WeightTracks, OneCursorServesJointAndWeightTracksAndMatchesBinarySearch) {
  ClipBuilder b("many");
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  Floats times;
  for (int k = 0; k < 40; ++k) times.push_back(0.05f * k + (k ? 0.01f * (u(rng) + 1) : 0));
  for (JointIndex j = 0; j < 3; ++j) {
    Floats v;
    for (std::size_t k = 0; k < times.size() * 3; ++k) v.push_back(u(rng));
    ASSERT_TRUE(
        b.add_track(j, "j", TrackTarget::kTranslation, Interpolation::kLinear, times, v, "t").ok());
  }
  const Interpolation modes[] = {Interpolation::kStep, Interpolation::kLinear,
                                 Interpolation::kCubicSpline};
  for (std::uint32_t i = 0; i < 3; ++i) {
    Floats v;
    for (std::size_t k = 0; k < times.size() * 3 * (i == 2 ? 3 : 1); ++k) v.push_back(u(rng));
    ASSERT_TRUE(
        b.add_weight_track(static_cast<JointIndex>(i), "n", i * 3, 3, modes[i], times, v, "w")
            .ok());
  }
  const Result<Clip> built = b.build(3, "many");
  ASSERT_TRUE(built.ok()) << built.error().message;
  const Clip& clip = built.value();
  EXPECT_EQ(clip.weight_count(), 9u);
  SamplingCursor cursor(clip);
  std::vector<Transform> pose(3);
  Floats a(9), ref(9);
  auto check = [&](float t) {
    ASSERT_TRUE(sample_tracks(clip, t, cursor, pose));
    ASSERT_TRUE(sample_weight_tracks(clip, t, cursor, a));
    ASSERT_TRUE(sample_weight_tracks(clip, t, ref));
    EXPECT_EQ(a, ref) << "t = " << t;
  };
  for (float t = -0.1f; t < 2.2f; t += 0.013f) check(t);         // forward
  for (float t = 2.2f; t > -0.1f; t -= 0.031f) check(t);         // backward
  for (int i = 0; i < 100; ++i) check(2.2f * (u(rng) + 1) / 2);  // seeks
}

TEST(WeightTracks, BuilderRefusesBadCountsOverlapsAndNonFiniteValues) {
  {
    ClipBuilder b("c");
    const Status s = b.add_weight_track(0, "n", 0, 2, Interpolation::kLinear, Floats{0.0f, 1.0f},
                                        Floats{0, 1, 2}, "anim.gltf: animations[0].channels[0]");
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("animations[0].channels[0]"), std::string::npos);
    EXPECT_NE(s.error().message.find("expected 4"), std::string::npos) << s.error().message;
  }
  {
    ClipBuilder b("c");
    EXPECT_FALSE(
        b.add_weight_track(0, "n", 0, 1, Interpolation::kLinear, Floats{0.0f}, Floats{NAN}, "w")
            .ok());
    EXPECT_FALSE(
        b.add_weight_track(0, "n", 0, 0, Interpolation::kLinear, Floats{0.0f}, Floats{}, "w").ok());
  }
  {
    ClipBuilder b("c");
    ASSERT_TRUE(
        b.add_weight_track(0, "a", 0, 3, Interpolation::kStep, Floats{0.0f}, Floats{1, 2, 3}, "w")
            .ok());
    ASSERT_TRUE(
        b.add_weight_track(1, "b", 2, 1, Interpolation::kStep, Floats{0.0f}, Floats{1}, "w").ok());
    const Result<Clip> c = b.build(2, "clip");
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("overlaps"), std::string::npos) << c.error().message;
  }
  {
    ClipBuilder b("c");
    ASSERT_TRUE(
        b.add_weight_track(0, "a", 2, 3, Interpolation::kStep, Floats{0.0f}, Floats{1, 2, 3}, "w")
            .ok());
    b.set_weight_count(4);
    EXPECT_FALSE(b.build(1, "clip").ok());
  }
}

TEST(WeightTracks, DurationCoversWeightKeys) {
  ClipBuilder b("c");
  ASSERT_TRUE(b.add_track(0, "j", TrackTarget::kScale, Interpolation::kLinear, Floats{0.0f, 1.0f},
                          Floats{1, 1, 1, 2, 2, 2}, "t")
                  .ok());
  ASSERT_TRUE(b.add_weight_track(0, "j", 0, 1, Interpolation::kLinear, Floats{0.0f, 3.5f},
                                 Floats{0, 1}, "w")
                  .ok());
  const Result<Clip> c = b.build(1, "clip");
  ASSERT_TRUE(c.ok());
  EXPECT_FLOAT_EQ(c->duration(), 3.5f);
  EXPECT_EQ(c->weight_tracks().size(), 1u);
  EXPECT_EQ(c->weight_track_node_names()[0], "j");
}

}  // namespace
}  // namespace marrow
