// ClipBuilder: what it accepts, what it rejects, and the clip it builds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "marrow/clip/clip.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/compiled_clip.h"

namespace marrow {
namespace {

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

using Floats = std::vector<float>;

Status add_translation(ClipBuilder& b, JointIndex joint, const Floats& times, const Floats& values,
                       Interpolation interpolation = Interpolation::kLinear) {
  return b.add_track(joint, "j" + std::to_string(joint), TrackTarget::kTranslation, interpolation,
                     times, values, "clip.gltf: animations[0].channels[0]");
}

TEST(ClipBuilder, AcceptsAValidTrack) {
  ClipBuilder b("walk");
  b.set_ticks_per_second(4800);
  ASSERT_TRUE(add_translation(b, 1, {0, 0.5f, 1}, {0, 0, 0, 1, 2, 3, 4, 5, 6}).ok());
  auto clip = b.build(3, "walk.x");
  ASSERT_TRUE(clip.ok()) << clip.error().message;
  EXPECT_EQ(clip->name(), "walk");
  EXPECT_EQ(clip->ticks_per_second(), 4800.0);
  EXPECT_EQ(clip->joint_count(), 3u);
  ASSERT_EQ(clip->tracks().size(), 1u);
  const Track& t = clip->tracks()[0];
  EXPECT_EQ(t.joint, 1);
  EXPECT_EQ(t.target, TrackTarget::kTranslation);
  EXPECT_EQ(t.interpolation, Interpolation::kLinear);
  EXPECT_EQ(t.key_count, 3u);
  EXPECT_EQ(clip->track_joint_names()[0], "j1");
  EXPECT_EQ(Floats(clip->times().begin(), clip->times().end()), (Floats{0, 0.5f, 1}));
  EXPECT_EQ(Floats(clip->values().begin(), clip->values().end()),
            (Floats{0, 0, 0, 1, 2, 3, 4, 5, 6}));
}

TEST(ClipBuilder, RejectsATrackWithoutKeys) {
  ClipBuilder b("c");
  const Status s = add_translation(b, 0, {}, {});
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "no keys");
}

TEST(ClipBuilder, RejectsNonIncreasingTimes) {
  ClipBuilder b("c");
  Status s = add_translation(b, 0, {0, 1, 1}, Floats(9, 0));
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "strictly increasing");
  EXPECT_CONTAINS(s.error().message, "key 2");
  EXPECT_CONTAINS(s.error().message, "clip.gltf: animations[0].channels[0]");
  s = add_translation(b, 0, {0, 2, 1}, Floats(9, 0));
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "strictly increasing");
  // A rejected track leaves nothing behind.
  auto clip = b.build(1, "c");
  ASSERT_TRUE(clip.ok());
  EXPECT_TRUE(clip->tracks().empty());
  EXPECT_TRUE(clip->times().empty());
  EXPECT_TRUE(clip->values().empty());
}

TEST(ClipBuilder, RejectsNonFiniteTimes) {
  for (float bad : {kNaN, kInf, -kInf}) {
    ClipBuilder b("c");
    const Status s = add_translation(b, 0, {0, bad, 2}, Floats(9, 0));
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_CONTAINS(s.error().message, "non-finite time");
  }
  // NaN first: "NaN < next" comparisons are false, so only the finiteness check can catch it.
  ClipBuilder b("c");
  ASSERT_FALSE(add_translation(b, 0, {kNaN}, Floats(3, 0)).ok());
}

TEST(ClipBuilder, RejectsNegativeTimes) {
  ClipBuilder b("c");
  const Status s = add_translation(b, 0, {-0.5f, 1}, Floats(6, 0));
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "negative time");
}

TEST(ClipBuilder, RejectsNonFiniteValues) {
  for (float bad : {kNaN, kInf, -kInf}) {
    ClipBuilder b("c");
    Floats values(6, 1.0f);
    values[4] = bad;  // key 1, y
    const Status s = add_translation(b, 0, {0, 1}, values);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_CONTAINS(s.error().message, "key 1 has a non-finite value");
  }
  // In a cubic tangent too.
  ClipBuilder b("c");
  Floats cubic(18, 0.0f);
  cubic[9] = kNaN;  // key 1 in-tangent
  EXPECT_FALSE(add_translation(b, 0, {0, 1}, cubic, Interpolation::kCubicSpline).ok());
}

TEST(ClipBuilder, RejectsWrongValueCounts) {
  ClipBuilder b("c");
  Status s = add_translation(b, 0, {0, 1}, Floats(5, 0));
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "expected 6");
  // Cubic translation keys hold in-tangent, value and out-tangent: 9 floats.
  EXPECT_FALSE(add_translation(b, 0, {0, 1}, Floats(6, 0), Interpolation::kCubicSpline).ok());
  EXPECT_TRUE(add_translation(b, 0, {0, 1}, Floats(18, 0), Interpolation::kCubicSpline).ok());
  // Rotations hold 4 floats per key, 12 for cubic.
  s = b.add_track(0, "j0", TrackTarget::kRotation, Interpolation::kLinear, Floats{0, 1},
                  Floats(6, 0), "w");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(b.add_track(0, "j0", TrackTarget::kRotation, Interpolation::kLinear, Floats{0, 1},
                          Floats{0, 0, 0, 1, 0, 0, 0, 1}, "w")
                  .ok());
  EXPECT_FALSE(b.add_track(0, "j0", TrackTarget::kScale, Interpolation::kCubicSpline, Floats{0},
                           Floats(3, 1), "w")
                   .ok());
  EXPECT_EQ(floats_per_key(TrackTarget::kRotation, Interpolation::kCubicSpline), 12u);
  EXPECT_EQ(floats_per_key(TrackTarget::kScale, Interpolation::kStep), 3u);
}

TEST(ClipBuilder, RejectsDuplicateTracks) {
  ClipBuilder b("c");
  ASSERT_TRUE(add_translation(b, 1, {0}, {1, 2, 3}).ok());
  ASSERT_TRUE(b.add_track(1, "j1", TrackTarget::kRotation, Interpolation::kLinear, Floats{0},
                          Floats{0, 0, 0, 1}, "w")
                  .ok());
  ASSERT_TRUE(add_translation(b, 1, {0, 1}, Floats(6, 0), Interpolation::kStep).ok());
  auto clip = b.build(2, "dup.glb");
  ASSERT_FALSE(clip.ok());
  EXPECT_CONTAINS(clip.error().message, "dup.glb");
  EXPECT_CONTAINS(clip.error().message, "two translation tracks");
  EXPECT_CONTAINS(clip.error().message, "'j1'");
}

TEST(ClipBuilder, RejectsJointsOutOfRange) {
  ClipBuilder b("c");
  ASSERT_TRUE(add_translation(b, 3, {0}, {1, 2, 3}).ok());
  auto clip = b.build(3, "c.x");
  ASSERT_FALSE(clip.ok());
  EXPECT_CONTAINS(clip.error().message, "joint 3 of 3");
  EXPECT_TRUE(b.build(4, "c.x").ok());
}

TEST(ClipBuilder, RejectsEventsAtInvalidTimes) {
  for (float bad : {-1.0f, kNaN, kInf}) {
    ClipBuilder b("c");
    b.add_event(bad, "footstep");
    auto clip = b.build(1, "c");
    ASSERT_FALSE(clip.ok());
    EXPECT_CONTAINS(clip.error().message, "'footstep'");
  }
}

TEST(ClipBuilder, EventsAreSortedByTime) {
  ClipBuilder b("c");
  b.add_event(0.75f, "b");
  b.add_event(0.25f, "a");
  b.add_event(0.75f, "c");  // ties keep insertion order
  auto clip = b.build(1, "c");
  ASSERT_TRUE(clip.ok());
  ASSERT_EQ(clip->events().size(), 3u);
  EXPECT_EQ(clip->events()[0].name, "a");
  EXPECT_EQ(clip->events()[1].name, "b");
  EXPECT_EQ(clip->events()[2].name, "c");
  EXPECT_EQ(clip->events()[1].time, 0.75f);
}

TEST(ClipBuilder, DurationIsTheLastKeyOfAnyTrack) {
  ClipBuilder b("c");
  ASSERT_TRUE(add_translation(b, 0, {0.25f, 1.5f}, Floats(6, 0)).ok());
  ASSERT_TRUE(add_translation(b, 1, {0, 2.5f, 3.0f}, Floats(9, 0)).ok());
  ASSERT_TRUE(add_translation(b, 2, {1}, Floats(3, 0)).ok());
  auto clip = b.build(3, "c");
  ASSERT_TRUE(clip.ok());
  EXPECT_EQ(clip->duration(), 3.0f);
}

TEST(ClipBuilder, SingleKeyClipHasZeroDuration) {
  ClipBuilder b("pose");
  ASSERT_TRUE(add_translation(b, 0, {0}, {1, 2, 3}).ok());
  auto clip = b.build(1, "pose");
  ASSERT_TRUE(clip.ok());
  EXPECT_EQ(clip->duration(), 0.0f);
}

TEST(ClipBuilder, EmptyClipHasZeroDuration) {
  auto clip = ClipBuilder("empty").build(5, "e");
  ASSERT_TRUE(clip.ok());
  EXPECT_EQ(clip->duration(), 0.0f);
  EXPECT_EQ(clip->joint_count(), 5u);
}

TEST(ClipBuilder, ExplicitDurationOnlyExtends) {
  ClipBuilder b("c");
  ASSERT_TRUE(add_translation(b, 0, {0, 2}, Floats(6, 0)).ok());
  b.set_duration(5);
  auto clip = b.build(1, "c");
  ASSERT_TRUE(clip.ok());
  EXPECT_EQ(clip->duration(), 5.0f);
  b.set_duration(1);  // shorter than the keys: the keys win
  clip = b.build(1, "c");
  ASSERT_TRUE(clip.ok());
  EXPECT_EQ(clip->duration(), 2.0f);
}

TEST(ClipBuilder, RotationKeysAreNormalized) {
  ClipBuilder b("c");
  // (0,0,0,2) -> identity; (0,3,0,4) -> (0,0.6,0,0.8); a zero quaternion -> identity.
  ASSERT_TRUE(b.add_track(0, "j0", TrackTarget::kRotation, Interpolation::kLinear, Floats{0, 1, 2},
                          Floats{0, 0, 0, 2, 0, 3, 0, 4, 0, 0, 0, 0}, "w")
                  .ok());
  ASSERT_TRUE(b.add_track(1, "j1", TrackTarget::kRotation, Interpolation::kStep, Floats{0},
                          Floats{3, 0, 4, 0}, "w")
                  .ok());
  auto clip = b.build(2, "c");
  ASSERT_TRUE(clip.ok());
  const Track& t0 = clip->tracks()[0];
  const Track& t1 = clip->tracks()[1];
  const float* v = clip->values().data();
  const Floats linear(v + t0.first_value, v + t0.first_value + 12);
  const Floats expected = {0, 0, 0, 1, 0, 0.6f, 0, 0.8f, 0, 0, 0, 1};
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(linear[i], expected[i], 1e-6f);
  EXPECT_NEAR(v[t1.first_value + 0], 0.6f, 1e-6f);
  EXPECT_NEAR(v[t1.first_value + 2], 0.8f, 1e-6f);
}

TEST(ClipBuilder, TranslationAndScaleKeysAreKeptAsGiven) {
  ClipBuilder b("c");
  ASSERT_TRUE(b.add_track(0, "j0", TrackTarget::kScale, Interpolation::kLinear, Floats{0},
                          Floats{0, 0, 2}, "w")
                  .ok());
  auto clip = b.build(1, "c");
  ASSERT_TRUE(clip.ok());
  EXPECT_EQ(Floats(clip->values().begin(), clip->values().end()), (Floats{0, 0, 2}));
}

TEST(ClipBuilder, TracksAreSortedByJointThenChannel) {
  ClipBuilder b("c");
  const Floats one_rotation = {0, 0, 0, 1};
  ASSERT_TRUE(b.add_track(2, "c", TrackTarget::kScale, Interpolation::kLinear, Floats{0},
                          Floats{1, 1, 1}, "w")
                  .ok());
  ASSERT_TRUE(b.add_track(0, "a", TrackTarget::kRotation, Interpolation::kLinear, Floats{0},
                          one_rotation, "w")
                  .ok());
  ASSERT_TRUE(b.add_track(2, "c", TrackTarget::kTranslation, Interpolation::kLinear, Floats{0},
                          Floats{1, 2, 3}, "w")
                  .ok());
  ASSERT_TRUE(b.add_track(0, "a", TrackTarget::kTranslation, Interpolation::kStep, Floats{0},
                          Floats{4, 5, 6}, "w")
                  .ok());
  auto clip = b.build(3, "c");
  ASSERT_TRUE(clip.ok());
  ASSERT_EQ(clip->tracks().size(), 4u);
  const auto tracks = clip->tracks();
  EXPECT_EQ(tracks[0].joint, 0);
  EXPECT_EQ(tracks[0].target, TrackTarget::kTranslation);
  EXPECT_EQ(tracks[1].joint, 0);
  EXPECT_EQ(tracks[1].target, TrackTarget::kRotation);
  EXPECT_EQ(tracks[2].joint, 2);
  EXPECT_EQ(tracks[2].target, TrackTarget::kTranslation);
  EXPECT_EQ(tracks[3].joint, 2);
  EXPECT_EQ(tracks[3].target, TrackTarget::kScale);
  // Names travel with their tracks, and each track still points at its own keys.
  EXPECT_EQ(clip->track_joint_names()[0], "a");
  EXPECT_EQ(clip->track_joint_names()[3], "c");
  EXPECT_EQ(clip->values()[tracks[0].first_value], 4.0f);
  EXPECT_EQ(clip->values()[tracks[2].first_value], 1.0f);
  EXPECT_EQ(clip->values()[tracks[2].first_value + 2], 3.0f);
}

TEST(Clip, NamesOfEnums) {
  EXPECT_EQ(to_string(Interpolation::kStep), "STEP");
  EXPECT_EQ(to_string(Interpolation::kLinear), "LINEAR");
  EXPECT_EQ(to_string(Interpolation::kCubicSpline), "CUBICSPLINE");
  EXPECT_EQ(to_string(TrackTarget::kTranslation), "translation");
  EXPECT_EQ(to_string(TrackTarget::kRotation), "rotation");
  EXPECT_EQ(to_string(TrackTarget::kScale), "scale");
}

// A cubic spline rescaled in time: keys at 0 and 1 s become keys at 0 and 4 s; the values stay,
// the tangents (units per second) become a quarter, events and duration move with the keys.
TEST(RescaleClipTime, ScalesTimesAndDividesTangents) {
  ClipBuilder b("walk");
  b.set_ticks_per_second(4800);
  b.set_duration(1.5f);
  b.add_event(0.5f, "step");
  // Per key: in-tangent, value, out-tangent (x y z each).
  const Floats cubic{0, 0, 0, 1, 2, 3, 8, 0, 0,   // key 0: out-tangent (8, 0, 0) per second
                     4, 0, 0, 5, 6, 7, 0, 0, 0};  // key 1: in-tangent (4, 0, 0)
  ASSERT_TRUE(add_translation(b, 0, {0, 1}, cubic, Interpolation::kCubicSpline).ok());
  ASSERT_TRUE(add_translation(b, 1, {0.25f, 0.5f}, {1, 1, 1, 2, 2, 2}).ok());
  Result<Clip> clip = b.build(2, "walk.x");
  ASSERT_TRUE(clip.ok()) << clip.error().message;
  Result<Clip> slow = rescale_clip_time(*clip, 4, 1200, "walk.x");
  ASSERT_TRUE(slow.ok()) << slow.error().message;
  EXPECT_EQ(slow->name(), "walk");
  EXPECT_DOUBLE_EQ(slow->ticks_per_second(), 1200);
  EXPECT_FLOAT_EQ(slow->duration(), 6.0f);
  ASSERT_EQ(slow->events().size(), 1u);
  EXPECT_FLOAT_EQ(slow->events()[0].time, 2.0f);
  EXPECT_EQ(slow->events()[0].name, "step");
  ASSERT_EQ(slow->tracks().size(), 2u);
  const Track& t0 = slow->tracks()[0];
  const Floats times0(slow->times().begin() + t0.first_key,
                      slow->times().begin() + t0.first_key + t0.key_count);
  EXPECT_EQ(times0, (Floats{0, 4}));
  const Floats values0(slow->values().begin() + t0.first_value,
                       slow->values().begin() + t0.first_value + 18);
  EXPECT_EQ(values0, (Floats{0, 0, 0, 1, 2, 3, 2, 0, 0, 1, 0, 0, 5, 6, 7, 0, 0, 0}));
  const Track& t1 = slow->tracks()[1];
  EXPECT_EQ(Floats(slow->times().begin() + t1.first_key,
                   slow->times().begin() + t1.first_key + t1.key_count),
            (Floats{1, 2}));
  EXPECT_EQ(slow->track_joint_names()[1], "j1");
  EXPECT_FALSE(rescale_clip_time(*clip, 0, 1200, "walk.x").ok());
  EXPECT_FALSE(rescale_clip_time(*clip, kNaN, 1200, "walk.x").ok());
}

// Raw float samples, ACL's measure, by hand: the fastest track has 11 keys over 1 s (10 per
// second), so a 1 s clip is 11 samples of 10 floats for each of the skeleton's 3 joints:
// 3 × 11 × 40 = 1,320 bytes, whatever the slower track and the joints without tracks. A clip
// without two keys on any track is one sample.
TEST(ClipBuilder, RawSampleBytesCountEveryJointAtTheFastestKeyRate) {
  ClipBuilder b("c");
  Floats fast_times, fast_values;
  for (int k = 0; k <= 10; ++k) {
    fast_times.push_back(0.1f * static_cast<float>(k));
    fast_values.insert(fast_values.end(), {0, 0, static_cast<float>(k)});
  }
  ASSERT_TRUE(add_translation(b, 0, fast_times, fast_values).ok());
  ASSERT_TRUE(add_translation(b, 1, {0, 0.5f, 1}, Floats(9, 1)).ok());
  const auto clip = b.build(3, "c.gltf");
  ASSERT_TRUE(clip.ok()) << clip.error().message;
  EXPECT_EQ(raw_sample_bytes(*clip, 3), 1320u);

  ClipBuilder still("still");
  ASSERT_TRUE(add_translation(still, 2, {0}, {1, 2, 3}).ok());
  const auto one = still.build(3, "c.gltf");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(raw_sample_bytes(*one, 3), 120u);
}

// A clip built from another clip's rotation keys is that clip, bit for bit (a compiled clip's
// exact keys, an archive read back): keys of unit length within float rounding are kept as given,
// where normalizing them again would move their last bits. Keys that are not unit are still made
// so (squared length 1 within float rounding, the same direction).
TEST(ClipBuilder, RotationKeysSurviveBeingBuiltAgain) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> times, values;
  for (int k = 0; k < 2000; ++k) {
    times.push_back(static_cast<float>(k));
    for (int c = 0; c < 4; ++c) values.push_back(u(rng) * 3.0f);
  }
  ClipBuilder first("first");
  ASSERT_TRUE(
      first.add_track(0, "j", TrackTarget::kRotation, Interpolation::kLinear, times, values, "t"));
  const Clip once = first.build(1, "first").value();
  for (std::size_t k = 0; k < times.size(); ++k) {
    const float* q = once.values().data() + 4 * k;
    const float* given = values.data() + 4 * k;
    const float n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    ASSERT_NEAR(n2, 1.0f, 1e-6f) << k;
    const float length = std::sqrt(given[0] * given[0] + given[1] * given[1] + given[2] * given[2] +
                                   given[3] * given[3]);
    for (int c = 0; c < 4; ++c) ASSERT_NEAR(q[c], given[c] / length, 1e-6f) << k;
  }
  ClipBuilder again("again");
  ASSERT_TRUE(again.add_track(0, "j", TrackTarget::kRotation, Interpolation::kLinear, times,
                              once.values(), "t"));
  const Clip twice = again.build(1, "again").value();
  ASSERT_EQ(twice.values().size(), once.values().size());
  EXPECT_EQ(std::memcmp(twice.values().data(), once.values().data(),
                        once.values().size() * sizeof(float)),
            0);
}

}  // namespace
}  // namespace marrow
