// Sampling: every interpolation mode against hand values or the glTF 2.0 formulas, wrap modes,
// and cursor playback (forward, backward, random seeks) against cursor-less sampling, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "marrow/clip/clip.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/sampling.h"
#include "marrow/skeleton/skeleton.h"
#include "runtime_test_util.h"

namespace marrow {
namespace {

using test::expect_same_rotation;
using test::kEps;
using test::kHalfSqrt2;
using test::kPi;

using Floats = std::vector<float>;

// A clip with one track on joint `joint` of a `joint_count`-joint skeleton.
Clip one_track(TrackTarget target, Interpolation interpolation, const Floats& times,
               const Floats& values, JointIndex joint = 0, std::size_t joint_count = 1) {
  ClipBuilder b("test");
  const Status s = b.add_track(joint, "j", target, interpolation, times, values, "test");
  EXPECT_TRUE(s.ok()) << s.error().message;
  auto clip = b.build(joint_count, "test");
  EXPECT_TRUE(clip.ok()) << clip.error().message;
  return std::move(clip).value();
}

// The joint's transform at `time`, sampled without a cursor over identity transforms.
Transform at(const Clip& clip, float time, JointIndex joint = 0) {
  std::vector<Transform> pose(clip.joint_count());
  EXPECT_TRUE(sample_tracks(clip, time, pose));
  return pose[joint];
}

// ---------------------------------------------------------------------------------------------
// STEP

TEST(SampleStep, HoldsEachKeyUntilTheNext) {
  const Clip clip = one_track(TrackTarget::kTranslation, Interpolation::kStep, {0, 1, 2},
                              {10, -10, 0, 20, -20, 0, 30, -30, 0});
  EXPECT_EQ(at(clip, 0).translation, (Vec3{10, -10, 0}));
  EXPECT_EQ(at(clip, 0.5f).translation, (Vec3{10, -10, 0}));
  EXPECT_EQ(at(clip, std::nextafter(1.0f, 0.0f)).translation, (Vec3{10, -10, 0}));
  EXPECT_EQ(at(clip, 1).translation, (Vec3{20, -20, 0}));
  EXPECT_EQ(at(clip, 1.99f).translation, (Vec3{20, -20, 0}));
  EXPECT_EQ(at(clip, 2).translation, (Vec3{30, -30, 0}));
  EXPECT_EQ(at(clip, 7).translation, (Vec3{30, -30, 0}));
  EXPECT_EQ(at(clip, -3).translation, (Vec3{10, -10, 0}));
}

TEST(SampleStep, RotationAndScale) {
  const Clip r = one_track(TrackTarget::kRotation, Interpolation::kStep, {0, 1},
                           {0, 0, 0, 1, 0, 0, kHalfSqrt2, kHalfSqrt2});
  EXPECT_EQ(at(r, 0.9f).rotation, Quat::identity());
  EXPECT_QUAT_NEAR(at(r, 1.0f).rotation, 0, 0, kHalfSqrt2, kHalfSqrt2, 1e-7f);
  const Clip s =
      one_track(TrackTarget::kScale, Interpolation::kStep, {0.5f, 1.5f}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(at(s, 0).scale, (Vec3{1, 2, 3}));
  EXPECT_EQ(at(s, 1.4f).scale, (Vec3{1, 2, 3}));
  EXPECT_EQ(at(s, 1.5f).scale, (Vec3{4, 5, 6}));
}

// ---------------------------------------------------------------------------------------------
// LINEAR

TEST(SampleLinear, TranslationInterpolatesPerSegment) {
  // Keys (0,0,0) at 0, (4,-2,8) at 2, (5,0,8) at 3.
  const Clip clip = one_track(TrackTarget::kTranslation, Interpolation::kLinear, {0, 2, 3},
                              {0, 0, 0, 4, -2, 8, 5, 0, 8});
  EXPECT_VEC3_NEAR(at(clip, 0.5f).translation, 1, -0.5f, 2, kEps);  // a quarter of segment 0
  EXPECT_VEC3_NEAR(at(clip, 1.0f).translation, 2, -1, 4, kEps);     // half
  EXPECT_VEC3_NEAR(at(clip, 1.5f).translation, 3, -1.5f, 6, kEps);
  EXPECT_EQ(at(clip, 2.0f).translation, (Vec3{4, -2, 8}));          // a key exactly
  EXPECT_VEC3_NEAR(at(clip, 2.5f).translation, 4.5f, -1, 8, kEps);  // half of segment 1
  EXPECT_VEC3_NEAR(at(clip, 2.75f).translation, 4.75f, -0.5f, 8, kEps);
  EXPECT_EQ(at(clip, 3.0f).translation, (Vec3{5, 0, 8}));
}

TEST(SampleLinear, ScaleInterpolates) {
  const Clip clip =
      one_track(TrackTarget::kScale, Interpolation::kLinear, {1, 5}, {1, 1, 1, 3, 0, -1});
  // A quarter of the way: 1 + 0.25 * (3 - 1) = 1.5, 1 - 0.25 = 0.75, 1 - 0.5 = 0.5.
  EXPECT_VEC3_NEAR(at(clip, 2).scale, 1.5f, 0.75f, 0.5f, kEps);
}

TEST(SampleLinear, RotationIsSlerpAlongTheShortestArc) {
  // From the identity at 0 to -(90 degrees about z) at 1: -q is the same orientation as q, so
  // the path must turn 90 degrees about +z, not 270. Spherical interpolation turns 90 s degrees
  // at fraction s, i.e. (0, 0, sin(45 s deg), cos(45 s deg)) up to sign.
  const Clip clip = one_track(TrackTarget::kRotation, Interpolation::kLinear, {0, 1},
                              {0, 0, 0, 1, 0, 0, -kHalfSqrt2, -kHalfSqrt2});
  for (float s : {0.1f, 0.25f, 0.5f, 0.8f}) {
    SCOPED_TRACE(s);
    const float half = s * kPi / 4;
    const Quat q = at(clip, s).rotation;
    expect_same_rotation(q, Quat{0, 0, std::sin(half), std::cos(half)});
    EXPECT_NEAR(dot(q, q), 1.0f, kEps);
    // The x axis turns counter-clockwise by 90 s degrees.
    const Vec3 x = rotate(q, {1, 0, 0});
    EXPECT_VEC3_NEAR(x, std::cos(2 * half), std::sin(2 * half), 0, kEps);
  }
  // At 1/4, nlerp would give 2 atan(0.25 sin45 / (0.75 + 0.25 cos45)) = 21.6 degrees, not 22.5.
  EXPECT_NEAR(angle_between(at(clip, 0.25f).rotation, Quat::identity()), kPi / 8, 1e-5f);
}

TEST(SampleLinear, RotationOverALongerSegment) {
  // 60 degrees about x at 1, 180 degrees about x at 4: at 2 a third of the way, 100 degrees.
  const float deg = kPi / 180;
  const Quat a = from_axis_angle({1, 0, 0}, 60 * deg);
  const Quat b = from_axis_angle({1, 0, 0}, 180 * deg);
  const Clip clip = one_track(TrackTarget::kRotation, Interpolation::kLinear, {1, 4},
                              {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w});
  expect_same_rotation(at(clip, 2).rotation, Quat{std::sin(50 * deg), 0, 0, std::cos(50 * deg)});
}

TEST(SampleLinear, UnnormalizedRotationKeysSampleAsUnit) {
  const Clip clip =
      one_track(TrackTarget::kRotation, Interpolation::kLinear, {0, 1}, {0, 0, 0, 2, 0, 0, 3, 3});
  EXPECT_QUAT_NEAR(at(clip, 0).rotation, 0, 0, 0, 1, 1e-7f);
  EXPECT_QUAT_NEAR(at(clip, 1).rotation, 0, 0, kHalfSqrt2, kHalfSqrt2, 1e-6f);
  const Quat mid = at(clip, 0.5f).rotation;
  EXPECT_NEAR(dot(mid, mid), 1.0f, kEps);
}

// ---------------------------------------------------------------------------------------------
// CUBICSPLINE (glTF 2.0, Appendix C): with key k's value p_k, out-tangent b_k, key k+1's value
// p_{k+1} and in-tangent a_{k+1}, Δt = t_{k+1} - t_k and s = (t - t_k) / Δt,
//   p(s) = (2s³-3s²+1) p_k + (s³-2s²+s) Δt b_k + (-2s³+3s²) p_{k+1} + (s³-s²) Δt a_{k+1}.
// Values are stored per key as in-tangent, value, out-tangent.

float spec_cubic(float p0, float b0, float a1, float p1, float dt, float s) {
  const float s2 = s * s, s3 = s2 * s;
  return (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * dt * b0 + (-2 * s3 + 3 * s2) * p1 +
         (s3 - s2) * dt * a1;
}

TEST(SampleCubic, TranslationMatchesHandComputedValues) {
  // Keys at 1 and 3 (Δt = 2). Key 0: in (9,9,9) unused, value (1,0,-2), out (2,1,0).
  // Key 1: in (-1,3,0.5), value (3,4,2), out (7,7,7) unused.
  const Clip clip = one_track(TrackTarget::kTranslation, Interpolation::kCubicSpline, {1, 3},
                              {9, 9, 9, 1, 0, -2, 2, 1, 0, -1, 3, 0.5f, 3, 4, 2, 7, 7, 7});
  // t = 2, s = 1/2: basis 1/2, 1/8, 1/2, -1/8.
  //   x = 0.5*1 + 0.125*2*2 + 0.5*3 - 0.125*2*(-1) = 0.5 + 0.5 + 1.5 + 0.25 = 2.75
  //   y = 0     + 0.125*2*1 + 0.5*4 - 0.125*2*3    = 0.25 + 2 - 0.75       = 1.5
  //   z = -1    + 0         + 1     - 0.125*2*0.5  =                         -0.125
  EXPECT_VEC3_NEAR(at(clip, 2).translation, 2.75f, 1.5f, -0.125f, kEps);
  // t = 1.5, s = 1/4: basis 27/32, 9/64, 5/32, -3/64.
  //   x = 0.84375 + 0.140625*4 + 0.15625*3 + 0.046875*2 = 1.96875
  //   y = 0.140625*2 + 0.15625*4 - 0.046875*6           = 0.625
  //   z = -1.6875 + 0.15625*2 - 0.046875                = -1.421875
  EXPECT_VEC3_NEAR(at(clip, 1.5f).translation, 1.96875f, 0.625f, -1.421875f, kEps);
  // At the keys the curve passes through the values; outside it holds them.
  EXPECT_EQ(at(clip, 1).translation, (Vec3{1, 0, -2}));
  EXPECT_EQ(at(clip, 3).translation, (Vec3{3, 4, 2}));
  EXPECT_EQ(at(clip, 0).translation, (Vec3{1, 0, -2}));
  EXPECT_EQ(at(clip, 100).translation, (Vec3{3, 4, 2}));
}

TEST(SampleCubic, ScaleFollowsTheSpecFormulaOverSeveralSegments) {
  // Three keys with unequal intervals, so each segment has its own Δt.
  const Floats times = {0, 0.5f, 2};
  // Per key: in-tangent, value, out-tangent (3 floats each).
  const Floats in[3] = {{0, 0, 0}, {1, -2, 0.5f}, {-3, 0, 2}};
  const Floats val[3] = {{1, 1, 1}, {2, 0.5f, 1}, {1.5f, 1.5f, 3}};
  const Floats out[3] = {{4, -1, 0}, {0.5f, 2, -1}, {0, 0, 0}};
  Floats values;
  for (int k = 0; k < 3; ++k) {
    values.insert(values.end(), in[k].begin(), in[k].end());
    values.insert(values.end(), val[k].begin(), val[k].end());
    values.insert(values.end(), out[k].begin(), out[k].end());
  }
  const Clip clip = one_track(TrackTarget::kScale, Interpolation::kCubicSpline, times, values);
  for (int k = 0; k < 2; ++k) {
    const float dt = times[k + 1] - times[k];
    for (float s : {0.0f, 0.1f, 0.3f, 0.5f, 0.7f, 0.9f}) {
      const float t = times[k] + s * dt;
      const Vec3 got = at(clip, t).scale;
      const float g[3] = {got.x, got.y, got.z};
      for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(g[c], spec_cubic(val[k][c], out[k][c], in[k + 1][c], val[k + 1][c], dt, s),
                    1e-5f)
            << "segment " << k << " s " << s << " component " << c;
      }
    }
  }
}

TEST(SampleCubic, RotationIsNormalizedAfterInterpolation) {
  // From the identity to 180 degrees about z, zero tangents: at s the raw curve is
  // (0, 0, h01, h00) with h00 = 2s³-3s²+1 and h01 = -2s³+3s², then normalized.
  const Clip clip = one_track(TrackTarget::kRotation, Interpolation::kCubicSpline, {0, 1},
                              {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,    // key 0
                               0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0});  // key 1
  EXPECT_QUAT_NEAR(at(clip, 0.5f).rotation, 0, 0, kHalfSqrt2, kHalfSqrt2, kEps);
  // s = 1/4: (0, 0, 0.15625, 0.84375) / 0.858096...
  const float n = std::sqrt(0.15625f * 0.15625f + 0.84375f * 0.84375f);
  EXPECT_QUAT_NEAR(at(clip, 0.25f).rotation, 0, 0, 0.15625f / n, 0.84375f / n, kEps);
  EXPECT_NEAR(0.15625f / n, 0.182093f, 1e-5f);  // the hand figure
}

TEST(SampleCubic, RotationWithTangentsIsTheNormalizedSpecCurve) {
  const Floats times = {0, 2};
  const Floats in0 = {0, 0, 0, 0}, p0 = {0.2f, 0.1f, 0, 0.97f}, b0 = {0.3f, -0.2f, 0.1f, 0};
  const Floats a1 = {-0.1f, 0.4f, 0, 0.2f}, p1 = {0, 0.6f, 0.3f, 0.74f}, out1 = {0, 0, 0, 0};
  Floats values;
  for (const Floats* f : {&in0, &p0, &b0, &a1, &p1, &out1}) {
    values.insert(values.end(), f->begin(), f->end());
  }
  const Clip clip = one_track(TrackTarget::kRotation, Interpolation::kCubicSpline, times, values);
  for (float s : {0.2f, 0.5f, 0.9f}) {
    float raw[4];
    for (int c = 0; c < 4; ++c) raw[c] = spec_cubic(p0[c], b0[c], a1[c], p1[c], 2, s);
    const float len =
        std::sqrt(raw[0] * raw[0] + raw[1] * raw[1] + raw[2] * raw[2] + raw[3] * raw[3]);
    const Quat q = at(clip, 2 * s).rotation;
    EXPECT_QUAT_NEAR(q, raw[0] / len, raw[1] / len, raw[2] / len, raw[3] / len, kEps);
  }
}

TEST(SampleCubic, RotationsAreUnitAtAndBeyondTheKeysToo) {
  // Key values that are not unit (the builder keeps cubic keys as given): every sample must
  // still be a unit quaternion, at the keys and when clamped, not only between them.
  const Clip clip = one_track(TrackTarget::kRotation, Interpolation::kCubicSpline, {0.5f, 1},
                              {0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0,    // key 0: (0,0,0,2)
                               0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0});  // key 1: (0,0,3,3)
  for (float t : {-1.0f, 0.0f, 0.5f, 0.75f, 1.0f, 2.0f}) {
    const Quat q = at(clip, t).rotation;
    EXPECT_NEAR(dot(q, q), 1.0f, kEps) << "t = " << t;
  }
  EXPECT_QUAT_NEAR(at(clip, 0.5f).rotation, 0, 0, 0, 1, kEps);
  EXPECT_QUAT_NEAR(at(clip, 1.0f).rotation, 0, 0, kHalfSqrt2, kHalfSqrt2, kEps);
}

// ---------------------------------------------------------------------------------------------
// Clamping to the keys, tracks that start late, single keys

TEST(Sample, TimesOutsideTheKeysClamp) {
  for (Interpolation mode : {Interpolation::kStep, Interpolation::kLinear}) {
    const Clip clip = one_track(TrackTarget::kTranslation, mode, {0.5f, 1.5f}, {1, 2, 3, 4, 5, 6});
    EXPECT_EQ(at(clip, 0).translation, (Vec3{1, 2, 3})) << to_string(mode);
    EXPECT_EQ(at(clip, -10).translation, (Vec3{1, 2, 3})) << to_string(mode);
    EXPECT_EQ(at(clip, 1.5f).translation, (Vec3{4, 5, 6})) << to_string(mode);
    EXPECT_EQ(at(clip, 99).translation, (Vec3{4, 5, 6})) << to_string(mode);
    EXPECT_EQ(at(clip, std::numeric_limits<float>::infinity()).translation, (Vec3{4, 5, 6}));
    EXPECT_EQ(at(clip, -std::numeric_limits<float>::infinity()).translation, (Vec3{1, 2, 3}));
  }
}

TEST(Sample, SingleKeyTrackIsConstant) {
  const Clip clip = one_track(TrackTarget::kScale, Interpolation::kLinear, {0.25f}, {2, 3, 4});
  for (float t : {-1.0f, 0.0f, 0.25f, 1.0f}) EXPECT_EQ(at(clip, t).scale, (Vec3{2, 3, 4}));
  const Clip cubic = one_track(TrackTarget::kTranslation, Interpolation::kCubicSpline, {0},
                               {9, 9, 9, 1, 2, 3, 8, 8, 8});
  for (float t : {-1.0f, 0.0f, 1.0f}) EXPECT_EQ(at(cubic, t).translation, (Vec3{1, 2, 3}));
}

TEST(Sample, NaNTimeStaysInBounds) {
  const Clip clip = one_track(TrackTarget::kTranslation, Interpolation::kLinear, {0, 1, 2},
                              {0, 0, 0, 1, 1, 1, 2, 2, 2});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(is_finite(at(clip, nan).translation));
  SamplingCursor cursor(clip);
  std::vector<Transform> pose(1);
  ASSERT_TRUE(sample_tracks(clip, 1.5f, cursor, pose));
  ASSERT_TRUE(sample_tracks(clip, nan, cursor, pose));
  EXPECT_TRUE(is_finite(pose[0].translation));
  EXPECT_LT(cursor.keys()[0], 3u);
}

// ---------------------------------------------------------------------------------------------
// Rest pose for channels without tracks

Skeleton three_joint_skeleton() {
  std::vector<JointDesc> descs(3);
  descs[0] = {"root", -1, {{1, 2, 3}, normalize(Quat{0, 0.6f, 0, 0.8f}), {1, 1, 1}}};
  descs[1] = {"mid", 0, {{0, 4, 0}, normalize(Quat{0.6f, 0, 0, 0.8f}), {2, 2, 2}}};
  descs[2] = {"tip", 1, {{0, 5, 0}, Quat::identity(), {0.5f, 1, 1}}};
  auto s = Skeleton::build(descs);
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

TEST(Sample, ChannelsWithoutTracksKeepTheRestPose) {
  const Skeleton skeleton = three_joint_skeleton();
  ClipBuilder b("rotate mid");
  ASSERT_TRUE(b.add_track(1, "mid", TrackTarget::kRotation, Interpolation::kLinear, Floats{0, 1},
                          Floats{0, 0, 0, 1, 0, 0, 1, 0}, "t")
                  .ok());
  ASSERT_TRUE(b.add_track(2, "tip", TrackTarget::kScale, Interpolation::kStep, Floats{0},
                          Floats{3, 3, 3}, "t")
                  .ok());
  auto clip = b.build(skeleton.size(), "t");
  ASSERT_TRUE(clip.ok());

  // Fill the output with garbage: sample() must overwrite all of it.
  Transform garbage;
  garbage.translation = {-99, -99, -99};
  garbage.rotation = {0.5f, 0.5f, 0.5f, 0.5f};
  garbage.scale = {7, 7, 7};
  std::vector<Transform> pose(3, garbage);
  SamplingCursor cursor(*clip);
  ASSERT_TRUE(sample(*clip, skeleton.rest_pose(), 0.5f, cursor, pose));

  const auto rest = skeleton.rest_pose();
  EXPECT_EQ(pose[0], rest[0]);  // no tracks at all: the rest pose, not identity
  EXPECT_EQ(pose[1].translation, (Vec3{0, 4, 0}));
  EXPECT_EQ(pose[1].scale, (Vec3{2, 2, 2}));
  // Halfway from identity to 180 degrees about z.
  EXPECT_QUAT_NEAR(pose[1].rotation, 0, 0, kHalfSqrt2, kHalfSqrt2, kEps);
  EXPECT_EQ(pose[2].translation, (Vec3{0, 5, 0}));
  EXPECT_EQ(pose[2].rotation, Quat::identity());
  EXPECT_EQ(pose[2].scale, (Vec3{3, 3, 3}));
}

TEST(Sample, SampleTracksLeavesOtherChannelsAlone) {
  const Clip clip = one_track(TrackTarget::kTranslation, Interpolation::kLinear, {0, 1},
                              {0, 0, 0, 2, 0, 0}, /*joint=*/1, /*joint_count=*/3);
  Transform marker;
  marker.translation = {5, 6, 7};
  marker.rotation = {0, 1, 0, 0};
  marker.scale = {8, 8, 8};
  std::vector<Transform> pose(3, marker);
  ASSERT_TRUE(sample_tracks(clip, 0.5f, pose));
  EXPECT_EQ(pose[0], marker);
  EXPECT_EQ(pose[2], marker);
  EXPECT_EQ(pose[1].translation, (Vec3{1, 0, 0}));
  EXPECT_EQ(pose[1].rotation, marker.rotation);
  EXPECT_EQ(pose[1].scale, marker.scale);
}

TEST(Sample, RejectsShortPosesAndForeignCursors) {
  const Clip clip = one_track(TrackTarget::kTranslation, Interpolation::kLinear, {0, 1},
                              {0, 0, 0, 2, 0, 0}, /*joint=*/0, /*joint_count=*/3);
  const Clip twin = one_track(TrackTarget::kTranslation, Interpolation::kLinear, {0, 1},
                              {0, 0, 0, 2, 0, 0}, /*joint=*/0, /*joint_count=*/3);
  Transform marker;
  marker.translation = {5, 6, 7};

  std::vector<Transform> short_pose(2, marker);
  EXPECT_FALSE(sample_tracks(clip, 0.5f, short_pose));
  SamplingCursor cursor(clip);
  EXPECT_FALSE(sample_tracks(clip, 0.5f, cursor, short_pose));
  for (const Transform& t : short_pose) EXPECT_EQ(t, marker);

  // A cursor bound to another clip (even an identical one) or to none is refused.
  std::vector<Transform> pose(3, marker);
  SamplingCursor other(twin);
  EXPECT_FALSE(sample_tracks(clip, 0.5f, other, pose));
  SamplingCursor unbound;
  EXPECT_EQ(unbound.clip(), nullptr);
  EXPECT_FALSE(sample_tracks(clip, 0.5f, unbound, pose));
  for (const Transform& t : pose) EXPECT_EQ(t, marker);

  // sample(): short rest pose, output shorter than the rest pose, foreign cursor.
  const std::vector<Transform> rest3(3), rest2(2);
  EXPECT_FALSE(sample(clip, rest2, 0.5f, cursor, pose));
  EXPECT_FALSE(sample(clip, rest3, 0.5f, cursor, short_pose));
  EXPECT_FALSE(sample(clip, rest3, 0.5f, other, pose));
  for (const Transform& t : pose) EXPECT_EQ(t, marker);

  // Rebinding makes the cursor usable; a longer pose is fine.
  other.bind(clip);
  std::vector<Transform> long_pose(5, marker);
  EXPECT_TRUE(sample_tracks(clip, 0.5f, other, long_pose));
  EXPECT_EQ(long_pose[0].translation, (Vec3{1, 0, 0}));
  EXPECT_EQ(long_pose[4], marker);
}

// ---------------------------------------------------------------------------------------------
// Wrap modes

TEST(WrapTime, Clamp) {
  EXPECT_EQ(wrap_time(-1, 2, WrapMode::kClamp), 0.0f);
  EXPECT_EQ(wrap_time(0, 2, WrapMode::kClamp), 0.0f);
  EXPECT_EQ(wrap_time(1.5f, 2, WrapMode::kClamp), 1.5f);
  EXPECT_EQ(wrap_time(2, 2, WrapMode::kClamp), 2.0f);
  EXPECT_EQ(wrap_time(3, 2, WrapMode::kClamp), 2.0f);
}

TEST(WrapTime, Loop) {
  EXPECT_EQ(wrap_time(0, 2, WrapMode::kLoop), 0.0f);
  EXPECT_EQ(wrap_time(0.5f, 2, WrapMode::kLoop), 0.5f);
  EXPECT_EQ(wrap_time(2.5f, 2, WrapMode::kLoop), 0.5f);
  EXPECT_EQ(wrap_time(1000.25f, 0.5f, WrapMode::kLoop), 0.25f);
  // Exact multiples of the period start it again.
  EXPECT_EQ(wrap_time(2, 2, WrapMode::kLoop), 0.0f);
  EXPECT_EQ(wrap_time(4, 2, WrapMode::kLoop), 0.0f);
  EXPECT_EQ(wrap_time(-2, 2, WrapMode::kLoop), 0.0f);
  // Negative times count back from the end.
  EXPECT_EQ(wrap_time(-0.5f, 2, WrapMode::kLoop), 1.5f);
  EXPECT_EQ(wrap_time(-4.5f, 2, WrapMode::kLoop), 1.5f);
  EXPECT_EQ(wrap_time(-1.25f, 1.5f, WrapMode::kLoop), 0.25f);
  // A tiny negative time rounds to the duration, which must still come back as 0, not 2.
  EXPECT_EQ(wrap_time(-1e-9f, 2, WrapMode::kLoop), 0.0f);
}

TEST(WrapTime, PingPong) {
  // Duration 2, period 4: forward on [0, 2], backward on [2, 4].
  EXPECT_EQ(wrap_time(0, 2, WrapMode::kPingPong), 0.0f);
  EXPECT_EQ(wrap_time(1, 2, WrapMode::kPingPong), 1.0f);
  EXPECT_EQ(wrap_time(2, 2, WrapMode::kPingPong), 2.0f);
  EXPECT_EQ(wrap_time(2.5f, 2, WrapMode::kPingPong), 1.5f);
  EXPECT_EQ(wrap_time(3, 2, WrapMode::kPingPong), 1.0f);
  EXPECT_EQ(wrap_time(4, 2, WrapMode::kPingPong), 0.0f);
  EXPECT_EQ(wrap_time(5, 2, WrapMode::kPingPong), 1.0f);
  EXPECT_EQ(wrap_time(6, 2, WrapMode::kPingPong), 2.0f);
  // Negative times mirror: ping-pong is even in time.
  EXPECT_EQ(wrap_time(-1, 2, WrapMode::kPingPong), 1.0f);
  EXPECT_EQ(wrap_time(-0.5f, 2, WrapMode::kPingPong), 0.5f);
  EXPECT_EQ(wrap_time(-3, 2, WrapMode::kPingPong), 1.0f);
  EXPECT_EQ(wrap_time(-4, 2, WrapMode::kPingPong), 0.0f);
  // Duration 1.5, period 3.
  EXPECT_EQ(wrap_time(2, 1.5f, WrapMode::kPingPong), 1.0f);
  EXPECT_EQ(wrap_time(4.5f, 1.5f, WrapMode::kPingPong), 1.5f);
  EXPECT_EQ(wrap_time(-1e-9f, 1.5f, WrapMode::kPingPong), 0.0f);
  // A duration whose double overflows a float (a damaged file's, found by fuzzing glb): period
  // 6e38. Forward on [0, 3e38], and still even in time.
  EXPECT_EQ(wrap_time(1, 3e38f, WrapMode::kPingPong), 1.0f);
  EXPECT_EQ(wrap_time(-1, 3e38f, WrapMode::kPingPong), 1.0f);
  EXPECT_EQ(wrap_time(3e38f, 3e38f, WrapMode::kPingPong), 3e38f);
  EXPECT_EQ(wrap_time(-3e38f, 3e38f, WrapMode::kPingPong), 3e38f);
  EXPECT_EQ(wrap_time(std::numeric_limits<float>::max(), 3e38f, WrapMode::kPingPong),
            static_cast<float>(6e38 - std::numeric_limits<float>::max()));
}

TEST(WrapTime, DegenerateInputsGiveZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (WrapMode mode : {WrapMode::kClamp, WrapMode::kLoop, WrapMode::kPingPong}) {
    EXPECT_EQ(wrap_time(1.5f, 0, mode), 0.0f);
    EXPECT_EQ(wrap_time(1.5f, -1, mode), 0.0f);
    EXPECT_EQ(wrap_time(1.5f, nan, mode), 0.0f);
    EXPECT_EQ(wrap_time(nan, 2, mode), 0.0f);
    EXPECT_EQ(wrap_time(inf, 2, mode), 0.0f);
    EXPECT_EQ(wrap_time(-inf, 2, mode), 0.0f);
  }
}

TEST(WrapTime, StaysInRange) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> time(-1000, 1000);
  for (float duration : {0.1f, 1.0f, 1.7f, 33.3f}) {
    for (int i = 0; i < 2000; ++i) {
      const float t = time(rng);
      const float loop = wrap_time(t, duration, WrapMode::kLoop);
      EXPECT_GE(loop, 0.0f);
      EXPECT_LT(loop, duration);
      const float pp = wrap_time(t, duration, WrapMode::kPingPong);
      EXPECT_GE(pp, 0.0f);
      EXPECT_LE(pp, duration);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// find_key

TEST(FindKey, FindsTheSegmentFromAnyHint) {
  const Floats times = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(find_key(times, 2.5f, 0), 2u);    // a couple of steps forward
  EXPECT_EQ(find_key(times, 2.5f, 2), 2u);    // already there
  EXPECT_EQ(find_key(times, 2.5f, 9), 2u);    // backwards: a search
  EXPECT_EQ(find_key(times, 2.5f, 100), 2u);  // a hint past the end is clamped
  EXPECT_EQ(find_key(times, 8.5f, 0), 8u);    // far forward: gives up stepping and searches
  EXPECT_EQ(find_key(times, 3, 0), 3u);       // a key time starts its segment
  EXPECT_EQ(find_key(times, 3, 3), 3u);
  EXPECT_EQ(find_key(times, std::nextafter(3.0f, 0.0f), 3), 2u);
  EXPECT_EQ(find_key(times, -1, 5), 0u);  // before the first key
  EXPECT_EQ(find_key(times, 0, 5), 0u);
  EXPECT_EQ(find_key(times, 9, 0), 9u);   // at the last key: the last index
  EXPECT_EQ(find_key(times, 50, 4), 9u);  // after it
  const Floats one = {1};
  EXPECT_EQ(find_key(one, 0, 0), 0u);
  EXPECT_EQ(find_key(one, 5, 3), 0u);
}

TEST(FindKey, ResultDoesNotDependOnTheHint) {
  const Floats times = {0.1f, 0.15f, 0.4f, 0.41f, 1, 2.5f, 2.6f, 3};
  for (float t = -0.5f; t < 3.5f; t += 0.01f) {
    const auto it = std::upper_bound(times.begin(), times.end(), t);
    const auto expected =
        it == times.begin() ? 0u : static_cast<std::uint32_t>(it - times.begin() - 1);
    for (std::uint32_t hint = 0; hint < times.size() + 3; ++hint) {
      EXPECT_EQ(find_key(times, t, hint), expected) << "t = " << t << " hint = " << hint;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Cursor playback against cursor-less sampling, bit for bit

// Bit-for-bit equality (so that -0 vs 0 or a last-bit difference would show).
bool same_bits(const Transform& a, const Transform& b) {
  static_assert(sizeof(Transform) == 10 * sizeof(float));
  return std::memcmp(&a, &b, sizeof(Transform)) == 0;
}

// A clip that mixes every interpolation on every channel, with irregular key times, tracks that
// start late and end early, single-key tracks and a joint without tracks.
class CursorPlayback : public ::testing::Test {
 protected:
  static constexpr std::size_t kJoints = 5;

  void SetUp() override {
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> value(-2, 2);
    ClipBuilder b("mixed");
    auto add = [&](JointIndex joint, TrackTarget target, Interpolation mode, int keys, float start,
                   float step) {
      Floats times, values;
      float t = start;
      for (int k = 0; k < keys; ++k) {
        times.push_back(t);
        // Irregular intervals between 0.25 and 1.75 steps.
        t += step * (0.25f + 1.5f * static_cast<float>((k * 7919) % 13) / 12.0f);
      }
      const std::size_t n = floats_per_key(target, mode) * times.size();
      for (std::size_t i = 0; i < n; ++i) values.push_back(value(rng));
      const Status s =
          b.add_track(joint, "j" + std::to_string(joint), target, mode, times, values, "mixed");
      ASSERT_TRUE(s.ok()) << s.error().message;
    };
    add(0, TrackTarget::kTranslation, Interpolation::kLinear, 60, 0, 0.05f);
    add(0, TrackTarget::kRotation, Interpolation::kLinear, 40, 0, 0.08f);
    add(0, TrackTarget::kScale, Interpolation::kStep, 9, 0.2f, 0.3f);
    add(1, TrackTarget::kRotation, Interpolation::kCubicSpline, 25, 0.1f, 0.12f);
    add(1, TrackTarget::kTranslation, Interpolation::kCubicSpline, 30, 0.5f, 0.07f);
    add(2, TrackTarget::kRotation, Interpolation::kStep, 12, 0, 0.25f);
    add(2, TrackTarget::kScale, Interpolation::kLinear, 1, 0.7f, 1);
    add(3, TrackTarget::kTranslation, Interpolation::kLinear, 200, 0, 0.015f);
    add(3, TrackTarget::kRotation, Interpolation::kCubicSpline, 1, 0, 1);
    // Joint 4 has no tracks.
    auto clip = b.build(kJoints, "mixed");
    ASSERT_TRUE(clip.ok()) << clip.error().message;
    clip_ = std::move(clip).value();
    ASSERT_GT(clip_.duration(), 2.0f);
  }

  // Samples at `time` with the cursor and without, and compares every joint bit for bit.
  void check(float time, SamplingCursor& cursor) {
    std::vector<Transform> with(kJoints), without(kJoints);
    ASSERT_TRUE(sample_tracks(clip_, time, cursor, with));
    ASSERT_TRUE(sample_tracks(clip_, time, without));
    for (std::size_t j = 0; j < kJoints; ++j) {
      ASSERT_TRUE(same_bits(with[j], without[j])) << "joint " << j << " at t = " << time;
    }
    // The cursor holds the segment of each track.
    for (std::size_t i = 0; i < clip_.tracks().size(); ++i) {
      const Track& track = clip_.tracks()[i];
      const auto times = clip_.times().subspan(track.first_key, track.key_count);
      const auto it = std::upper_bound(times.begin(), times.end(), time);
      const auto k = it == times.begin() ? 0u : static_cast<std::uint32_t>(it - times.begin() - 1);
      ASSERT_EQ(cursor.keys()[i], k) << "track " << i << " at t = " << time;
    }
  }

  Clip clip_;
};

TEST_F(CursorPlayback, ForwardInSmallSteps) {
  for (float dt : {1.0f / 240.0f, 1.0f / 60.0f, 1.0f / 24.0f}) {
    SamplingCursor cursor(clip_);
    const int frames = static_cast<int>((clip_.duration() + 0.2f) / dt) + 1;
    for (int f = 0; f <= frames; ++f) {
      check(-0.1f + static_cast<float>(f) * dt, cursor);
      if (HasFatalFailure()) return;
    }
  }
}

TEST_F(CursorPlayback, ForwardInLargeSteps) {
  // Steps that skip many keys at once force the cursor to give up stepping and search.
  for (float dt : {0.3f, 0.77f, 1.9f}) {
    SamplingCursor cursor(clip_);
    for (float t = -0.5f; t < clip_.duration() + 1; t += dt) {
      check(t, cursor);
      if (HasFatalFailure()) return;
    }
  }
}

TEST_F(CursorPlayback, ForwardThroughEveryKeyTime) {
  // Exactly at each key, and one ulp either side of it.
  Floats times(clip_.times().begin(), clip_.times().end());
  std::sort(times.begin(), times.end());
  SamplingCursor cursor(clip_);
  for (float t : times) {
    for (float u : {std::nextafter(t, -1.0f), t, std::nextafter(t, 100.0f)}) {
      check(u, cursor);
      if (HasFatalFailure()) return;
    }
  }
}

TEST_F(CursorPlayback, Backward) {
  for (float dt : {1.0f / 60.0f, 0.21f}) {
    SamplingCursor cursor(clip_);
    const int frames = static_cast<int>((clip_.duration() + 0.2f) / dt) + 1;
    for (int f = 0; f <= frames; ++f) {
      check(clip_.duration() + 0.1f - static_cast<float>(f) * dt, cursor);
      if (HasFatalFailure()) return;
    }
  }
}

TEST_F(CursorPlayback, RandomSeeks) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> time(-1, clip_.duration() + 1);
  std::uniform_int_distribution<std::size_t> key(0, clip_.times().size() - 1);
  SamplingCursor cursor(clip_);
  for (int i = 0; i < 3000; ++i) {
    // Mostly random times, sometimes exactly a key time.
    const float t = i % 5 == 0 ? clip_.times()[key(rng)] : time(rng);
    check(t, cursor);
    if (HasFatalFailure()) return;
  }
}

TEST_F(CursorPlayback, LoopingAcrossManyPeriods) {
  // A player running forward with a looping wrap: the cursor jumps back at every loop.
  SamplingCursor cursor(clip_);
  const float dt = 1.0f / 30.0f;
  for (int f = 0; f < 600; ++f) {
    const float player_time = static_cast<float>(f) * dt;
    check(wrap_time(player_time, clip_.duration(), WrapMode::kLoop), cursor);
    if (HasFatalFailure()) return;
  }
  for (int f = 0; f < 600; ++f) {
    const float player_time = static_cast<float>(f) * dt;
    check(wrap_time(player_time, clip_.duration(), WrapMode::kPingPong), cursor);
    if (HasFatalFailure()) return;
  }
}

TEST_F(CursorPlayback, SampleMatchesRestPlusTracks) {
  // sample() = rest pose overwritten by sample_tracks().
  std::vector<Transform> rest(kJoints);
  for (std::size_t j = 0; j < kJoints; ++j) {
    rest[j].translation = {static_cast<float>(j), 1, 2};
    rest[j].rotation = normalize(Quat{0.1f * static_cast<float>(j), 0.2f, 0.3f, 0.9f});
    rest[j].scale = {1, 2, static_cast<float>(j + 1)};
  }
  SamplingCursor cursor(clip_);
  for (float t = 0; t < clip_.duration(); t += 0.37f) {
    std::vector<Transform> full(kJoints), expected = rest;
    ASSERT_TRUE(sample(clip_, rest, t, cursor, full));
    ASSERT_TRUE(sample_tracks(clip_, t, expected));
    for (std::size_t j = 0; j < kJoints; ++j) EXPECT_TRUE(same_bits(full[j], expected[j]));
    EXPECT_EQ(full[4], rest[4]);  // the joint without tracks
  }
}

TEST_F(CursorPlayback, RewindAndRebind) {
  SamplingCursor cursor(clip_);
  EXPECT_EQ(cursor.clip(), &clip_);
  EXPECT_EQ(cursor.keys().size(), clip_.tracks().size());
  check(clip_.duration(), cursor);
  cursor.rewind();
  for (std::uint32_t k : cursor.keys()) EXPECT_EQ(k, 0u);
  check(1.0f, cursor);

  const Clip other = one_track(TrackTarget::kScale, Interpolation::kLinear, {0, 1},
                               {1, 1, 1, 2, 2, 2}, 0, kJoints);
  cursor.bind(other);
  EXPECT_EQ(cursor.clip(), &other);
  EXPECT_EQ(cursor.keys().size(), 1u);
  std::vector<Transform> pose(kJoints);
  EXPECT_FALSE(sample_tracks(clip_, 0.5f, cursor, pose));
  EXPECT_TRUE(sample_tracks(other, 0.5f, cursor, pose));
  EXPECT_VEC3_NEAR(pose[0].scale, 1.5f, 1.5f, 1.5f, kEps);
}

TEST(EvaluateTrack, WritesOneChannel) {
  const Clip clip = one_track(TrackTarget::kTranslation, Interpolation::kLinear, {0, 2, 3},
                              {0, 0, 0, 4, -2, 8, 5, 0, 8});
  const Track& track = clip.tracks()[0];
  float out[4] = {-1, -1, -1, 42};
  evaluate_track(clip, track, 1.0f, 0, out);
  EXPECT_FLOAT_EQ(out[0], 2);
  EXPECT_FLOAT_EQ(out[1], -1);
  EXPECT_FLOAT_EQ(out[2], 4);
  EXPECT_EQ(out[3], 42.0f);  // three floats for a translation, no more
}

}  // namespace
}  // namespace marrow
