// Compiled clips against the exact sampler. The error is measured here on its own (own times,
// own local-to-model, the metric as docs/performance.md defines it), not taken from the
// compiler's report: every compiled clip of every test asset must stay inside its bound at key
// times, between keys, near the loop ends, and played backwards, on every SIMD level.
#include <gtest/gtest.h>

#include <string_view>

#include "base/sanitizer_build.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numbers>
#include <random>

#include "allocation_meter.h"
#include "job_checks.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/compiled_clip.h"
#include "marrow/clip/compiled_sampling.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/pose/additive.h"
#include "marrow/pose/local_to_model.h"
#include "shared_asset.h"
#include "simd_test_util.h"

namespace marrow::test {
namespace {

const std::string kAssets = shared_asset_path("");

// The compiled clip's local pose at t.
std::vector<Transform> compiled_pose(const CompiledClip& clip, const Skeleton& skeleton, float t,
                                     CompiledSamplingContext* context = nullptr) {
  std::vector<SoaTransform> soa(soa_group_count(skeleton.size()));
  CompiledSamplingJob job;
  job.clip = &clip;
  job.time = t;
  job.rest_pose = skeleton.soa_rest_pose();
  job.context = context;
  job.output = soa;
  EXPECT_TRUE(job.run());
  std::vector<Transform> pose(skeleton.size());
  EXPECT_TRUE(from_soa(soa, pose));
  return pose;
}

std::vector<Transform> exact_pose(const Clip& clip, const Skeleton& skeleton, float t) {
  std::vector<Transform> pose(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
  EXPECT_TRUE(sample_tracks(clip, t, pose));
  return pose;
}

// The largest distance between virtual vertices (each joint, and points `distance` along its
// three axes in the rest pose's model units) moved by both poses.
float virtual_vertex_error(const Skeleton& skeleton, std::span<const Transform> a,
                           std::span<const Transform> b, float distance) {
  std::vector<Mat4> ma(skeleton.size()), mb(skeleton.size()), rest(skeleton.size());
  EXPECT_TRUE(local_to_model(skeleton, a, ma));
  EXPECT_TRUE(local_to_model(skeleton, b, mb));
  EXPECT_TRUE(local_to_model(skeleton, skeleton.rest_pose(), rest));
  float worst = 0;
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    const float s =
        std::max({length(rest[j].column(0)), length(rest[j].column(1)), length(rest[j].column(2))});
    const float d = s > 1e-20f ? distance / s : distance;
    for (const Vec3 p : {Vec3{0, 0, 0}, Vec3{d, 0, 0}, Vec3{0, d, 0}, Vec3{0, 0, d}}) {
      worst = std::max(worst, length(transform_point(ma[j], p) - transform_point(mb[j], p)));
    }
  }
  return worst;
}

// Times to check: every key, three points inside every key interval (the middle, and where nlerp
// strays furthest from slerp), 400 random times, both ends and just inside them.
std::vector<float> check_times(const Clip& clip, unsigned seed) {
  const float d = clip.duration();
  std::vector<float> times{0.0f, d, d * (1 - 1e-5f), d * 1e-5f, d * 0.5f};
  for (const Track& track : clip.tracks()) {
    const auto ts = clip.times().subspan(track.first_key, track.key_count);
    for (std::size_t k = 0; k < ts.size(); ++k) {
      times.push_back(ts[k]);
      if (k + 1 < ts.size()) {
        for (float u : {0.2113249f, 0.5f, 0.7886751f})
          times.push_back(ts[k] + (ts[k + 1] - ts[k]) * u);
      }
    }
  }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, d);
  for (int i = 0; i < 400; ++i) times.push_back(u(rng));
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  // At most ~3000 times, evenly thinned, so long captures stay fast to check.
  if (times.size() > 3000) {
    std::vector<float> thinned;
    for (std::size_t i = 0; i < times.size(); i += times.size() / 3000 + 1)
      thinned.push_back(times[i]);
    thinned.push_back(d);
    times = thinned;
  }
  return times;
}

// The most a compiled clip may take: what keeping every track's keys as they are takes (the
// exact keys, a clip object to hold them, and a compiled clip of the same name and events with
// nothing moving), the constants it holds (a channel held away from rest fills its group's 8
// lanes, more than a key or two of its own) and a record's slack. Sparse clips (a few keys far
// apart) grew when every moving channel was resampled; none is to be bigger than its keys.
std::size_t keys_kept_bytes(const Clip& clip, const Skeleton& skeleton,
                            const CompiledClip& compiled) {
  ClipBuilder still(clip.name());
  for (const ClipEvent& e : clip.events()) still.add_event(e.time, e.name);
  still.set_duration(clip.duration());
  const Result<CompiledClip> nothing_moving =
      CompiledClip::compile(still.build(skeleton.size(), "still").value(), skeleton);
  EXPECT_TRUE(nothing_moving.ok());
  const std::size_t keys =
      clip.tracks().size() * sizeof(Track) + (clip.times().size() + clip.values().size()) * 4;
  return nothing_moving->size_bytes() + sizeof(Clip) + keys +
         compiled.layout().constants.size() * sizeof(float) + 64;
}

// Compiles every clip of `asset` with `options` and checks the bound forward, backwards and on
// every SIMD level. Prints each clip's size and measured error.
void check_asset(const Asset& asset, const CompileOptions& options = {}) {
  const Skeleton& skeleton = asset.skeleton;
  for (const Clip& clip : asset.clips) {
    SCOPED_TRACE("clip '" + clip.name() + "'");
    Result<CompiledClip> compiled = CompiledClip::compile(clip, skeleton, options);
    ASSERT_TRUE(compiled.ok()) << compiled.error().message;
    const CompiledClipReport& r = compiled->report();
    ASSERT_GT(r.bound, 0);
    EXPECT_LE(compiled->size_bytes(), keys_kept_bytes(clip, skeleton, *compiled));
    const std::vector<float> times = check_times(clip, 7);
    float worst = 0;
    for_each_simd_level([&](SimdLevel level) {
      CompiledSamplingContext context(*compiled);
      float level_worst = 0;
      // Forward, then backwards with the same context, then scattered seeks.
      for (float t : times) {
        const float e =
            virtual_vertex_error(skeleton, compiled_pose(*compiled, skeleton, t, &context),
                                 exact_pose(clip, skeleton, t), r.distance);
        level_worst = std::max(level_worst, e);
        EXPECT_LE(e, r.bound) << "t = " << t;
      }
      for (auto it = times.rbegin(); it != times.rend(); ++it) {
        const std::vector<Transform> back = compiled_pose(*compiled, skeleton, *it, &context);
        const std::vector<Transform> fresh = compiled_pose(*compiled, skeleton, *it);
        for (std::size_t j = 0; j < skeleton.size(); ++j) ASSERT_EQ(back[j], fresh[j]);
      }
      worst = std::max(worst, level_worst);
      if (level == SimdLevel::kScalar) return;
      // The level agrees with the portable scalar kernel to float rounding.
      const SimdLevel active = active_simd_level();
      ASSERT_TRUE(set_simd_level(SimdLevel::kScalar));
      std::vector<std::vector<Transform>> scalar;
      for (std::size_t i = 0; i < times.size(); i += 7) {
        scalar.push_back(compiled_pose(*compiled, skeleton, times[i]));
      }
      ASSERT_TRUE(set_simd_level(active));
      for (std::size_t i = 0, k = 0; i < times.size(); i += 7, ++k) {
        const std::vector<Transform> got = compiled_pose(*compiled, skeleton, times[i]);
        for (std::size_t j = 0; j < skeleton.size(); ++j) {
          EXPECT_TRUE(near(got[j].translation, scalar[k][j].translation, 1e-6f));
          // Packed rotations rebuild w as sqrt(1 - x^2 - y^2 - z^2): a rounding of the sum moves w
          // by about that rounding over 2w, which levels with and without FMA round differently.
          const float w = std::max(std::fabs(scalar[k][j].rotation.w), 1e-3f);
          EXPECT_TRUE(same_rotation(got[j].rotation, scalar[k][j].rotation, 1e-6f + 5e-7f / w));
          EXPECT_TRUE(near(got[j].scale, scalar[k][j].scale, 1e-6f));
        }
      }
    });
    std::cout << "[ compiled ] " << std::filesystem::path(asset.source).filename().string() << " '"
              << clip.name() << "': " << compiled->size_bytes() << " bytes (exact keys "
              << r.exact_bytes << "), " << compiled->layout().streams.size() << " streams, "
              << compiled->keyed_track_count() << " exact tracks; error max " << worst
              << " (compiler: " << r.max_error << ", p99 " << r.p99_error << ") bound " << r.bound
              << "\n";
  }
}

std::optional<Asset> load(const std::string& relative) {
  const std::string path = kAssets + relative;
  if (!std::filesystem::exists(path)) return std::nullopt;
  Result<Asset> asset = load_asset(path);
#if defined(MARROW_WASM_TESTS)
  // The WebAssembly build reads no FBX or Collada (docs/web.md): those files are left out there.
  if (!asset && asset.error().message.find("not read in the browser build") != std::string::npos)
    return std::nullopt;
#endif
  EXPECT_TRUE(asset.ok()) << asset.error().message;
  if (!asset) return std::nullopt;
  return std::move(asset).value();
}

class CompiledAsset : public ::testing::TestWithParam<const char*> {};

TEST_P(CompiledAsset, EveryClipStaysInsideItsBoundAgainstTheExactSampler) {
#if defined(MARROW_ADDRESS_SANITIZER)
  // Minutes of motion capture, compiled and sampled at every level with -O0 kernels, cost the
  // sanitizer suite a minute; the same code runs sanitized on every other asset here.
  if (std::string_view(GetParam()).starts_with("bvh/"))
    GTEST_SKIP() << "long motion capture: checked by the Release suite";
#endif
  std::optional<Asset> asset = load(GetParam());
  if (!asset)
    GTEST_SKIP() << kAssets << GetParam() << " is absent (or of a format this build does not read)";
  check_asset(*asset);
}

INSTANTIATE_TEST_SUITE_P(
    Assets, CompiledAsset,
    ::testing::Values("gltf/Soldier.glb", "gltf/Xbot.glb", "gltf/cesium_man.gltf",
                      "gltf/rigged_simple.gltf", "gltf/box_animated.gltf",
                      "gltf/interpolation_test.gltf", "gltf/simple_skin.gltf", "bvh/01_01.bvh",
                      "bvh/Boxing_Toes.bvh", "x/Testwuson.X", "x/anim_test.x", "fbx/walk.fbx",
                      "collada/pab/walk.dae",
                      "collada/assimp/anims_with_full_rotations_between_keys.DAE"),
    [](const ::testing::TestParamInfo<const char*>& info) {
      std::string name = std::string(info.param);
      std::replace_if(
          name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
      return name;
    });

TEST(CompiledClip, LooserAndTighterBoundsAreKeptAndTighterCostsMoreBytes) {
  std::optional<Asset> asset = load("gltf/Soldier.glb");
  if (!asset) GTEST_SKIP() << "Soldier.glb is absent";
  const Clip& walk = asset->clips[*asset->find_clip("Walk")];
  std::size_t previous = 0;
  for (float mm : {2.0f, 0.1f, 0.01f}) {
    CompileOptions options;
    options.error = mm / 1800.0f;
    Result<CompiledClip> c = CompiledClip::compile(walk, asset->skeleton, options);
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_LE(c->report().max_error, c->report().bound);
    EXPECT_GE(c->size_bytes(), previous) << mm << " mm";
    previous = c->size_bytes();
    std::cout << "[ compiled ] Walk at " << mm << " mm per 1.8 m: " << c->size_bytes()
              << " bytes, error " << c->report().max_error << " of " << c->report().bound << "\n";
  }
  Asset copy = *asset;
  CompileOptions floats;
  floats.quantize = false;
  check_asset(copy, floats);
}

// Hand-built clips on a 3-joint chain: each compiles within its bound and keeps what must be
// exact exact.
Skeleton chain() {
  Transform down;
  down.translation = {0, 1, 0};
  const std::vector<JointDesc> joints = {{"root", -1, {}}, {"mid", 0, down}, {"tip", 1, down}};
  return Skeleton::build(joints).value();
}

Clip hand_clip(const Skeleton& s, const std::function<void(ClipBuilder&)>& tracks) {
  ClipBuilder b("hand");
  tracks(b);
  return b.build(s.size(), "hand").value();
}

void expect_within_bound(const Clip& clip, const Skeleton& s, const CompileOptions& o = {}) {
  Result<CompiledClip> c = CompiledClip::compile(clip, s, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  for (float t : check_times(clip, 3)) {
    EXPECT_LE(virtual_vertex_error(s, compiled_pose(*c, s, t), exact_pose(clip, s, t),
                                   c->report().distance),
              c->report().bound)
        << "t = " << t;
  }
}

// push_back rather than insert of an initializer list: GCC 12 warns falsely on the latter.
void append(std::vector<float>& out, std::initializer_list<float> values) {
  for (float v : values) out.push_back(v);
}

Quat about_z(float degrees) {
  return from_axis_angle({0, 0, 1}, degrees * std::numbers::pi_v<float> / 180);
}

TEST(CompiledClip, StepTracksStayExact) {
  const Skeleton s = chain();
  const float times[] = {0.0f, 0.37f, 0.81f, 1.3f};
  std::vector<float> values;
  for (float deg : {0.0f, 40.0f, -25.0f, 90.0f}) {
    const Quat q = about_z(deg);
    append(values, {q.x, q.y, q.z, q.w});
  }
  const Clip clip = hand_clip(s, [&](ClipBuilder& b) {
    ASSERT_TRUE(
        b.add_track(1, "mid", TrackTarget::kRotation, Interpolation::kStep, times, values, "t"));
  });
  Result<CompiledClip> c = CompiledClip::compile(clip, s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  for (float t : {0.0f, 0.3699f, 0.37f, 0.5f, 0.8099f, 0.81f, 1.29f, 1.3f}) {
    EXPECT_EQ(compiled_pose(*c, s, t)[1].rotation, exact_pose(clip, s, t)[1].rotation) << t;
  }
}

// CompileOptions::progress: called with shares of the work that never go back, stay within
// [0, 1] and end at 1, so a progress bar over one long clip moves and finishes.
TEST(CompiledClip, ProgressRisesFromZeroToOne) {
  const Skeleton s = chain();
  std::vector<float> times, values;
  for (int k = 0; k <= 120; ++k) {
    times.push_back(k / 30.0f);
    const Quat q = about_z(60.0f * std::sin(k * 0.21f));
    append(values, {q.x, q.y, q.z, q.w});
  }
  const Clip clip = hand_clip(s, [&](ClipBuilder& b) {
    ASSERT_TRUE(
        b.add_track(1, "mid", TrackTarget::kRotation, Interpolation::kLinear, times, values, "t"));
  });
  std::vector<float> reported;
  CompileOptions options;
  options.progress = [&](float done) { reported.push_back(done); };
  ASSERT_TRUE(CompiledClip::compile(clip, s, options).ok());
  ASSERT_GE(reported.size(), 8u);  // at least once per share of the bound tried
  EXPECT_TRUE(std::is_sorted(reported.begin(), reported.end()));
  EXPECT_GE(reported.front(), 0.0f);
  EXPECT_EQ(reported.back(), 1.0f);
}

TEST(CompiledClip, CopiesShareOneBlockThatOutlivesTheOriginal) {
  const Skeleton s = chain();
  // A densely keyed turn (resampled: frames) and a STEP track (kept as exact keys).
  std::vector<float> times, turn;
  for (int k = 0; k <= 60; ++k) {
    times.push_back(k / 60.0f);
    const Quat q = about_z(60.0f * std::sin(3.0f * times.back()));
    append(turn, {q.x, q.y, q.z, q.w});
  }
  const float step_times[] = {0.0f, 0.5f, 1.0f};
  std::vector<float> step;
  append(step, {0, 1, 0, 0, 0.5f, 0, 0, 2, 0});
  const Clip clip = hand_clip(s, [&](ClipBuilder& b) {
    ASSERT_TRUE(
        b.add_track(0, "root", TrackTarget::kRotation, Interpolation::kLinear, times, turn, "t"));
    ASSERT_TRUE(b.add_track(2, "tip", TrackTarget::kTranslation, Interpolation::kStep, step_times,
                            step, "t"));
  });
  std::optional<CompiledClip> original = CompiledClip::compile(clip, s).value();
  ASSERT_EQ(original->keyed_track_count(), 1u);  // the STEP track
  ASSERT_FALSE(original->layout().frames.empty());
  ASSERT_NE(original->keyed_clip(), nullptr);
  const std::vector<Transform> before = compiled_pose(*original, s, 0.7f);
  const CompiledClip copy = *original;
  EXPECT_EQ(copy.layout().frames.data(), original->layout().frames.data());
  EXPECT_EQ(copy.keyed_clip(), original->keyed_clip());
  EXPECT_EQ(copy.size_bytes(), original->size_bytes());
  original.reset();  // the copy still holds the block (AddressSanitizer checks the reads)
  const std::vector<Transform> after = compiled_pose(copy, s, 0.7f);
  for (std::size_t j = 0; j < s.size(); ++j) {
    EXPECT_EQ(after[j].rotation, before[j].rotation) << j;
    EXPECT_EQ(after[j].translation, before[j].translation) << j;
  }
  EXPECT_EQ(after[2].translation, (Vec3{0, 0.5f, 0}));  // the STEP key of 0.5 s, exact
  // Through its serialized form and back: the same arrays.
  const CompiledClipData data = copy.to_data();
  EXPECT_EQ(data.keyed.size(), 1u);
  const CompiledClip again = CompiledClip::from_data(data, "test").value();
  EXPECT_EQ(again.to_data().frames, data.frames);
  EXPECT_EQ(again.to_data().keyed_values, data.keyed_values);
  EXPECT_EQ(again.size_bytes(), copy.size_bytes());
  // A default-constructed clip answers without a block.
  const CompiledClip empty;
  EXPECT_EQ(empty.name(), "");
  EXPECT_EQ(empty.keyed_clip(), nullptr);
  EXPECT_TRUE(empty.events().empty());
  EXPECT_EQ(empty.size_bytes(), sizeof(CompiledClip));
}

TEST(CompiledClip, LongArcsGetFramesWhereNlerpWouldLeaveTheBound) {
  // Two keys 170 degrees apart, one second: slerp's midpoint is far from a single nlerp.
  const Skeleton s = chain();
  const float times[] = {0.0f, 1.0f};
  const Quat a = about_z(0), b = about_z(170);
  const float values[] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  const Clip clip = hand_clip(s, [&](ClipBuilder& cb) {
    ASSERT_TRUE(cb.add_track(0, "root", TrackTarget::kRotation, Interpolation::kLinear, times,
                             values, "t"));
  });
  expect_within_bound(clip, s);
  CompileOptions loose;
  loose.error = 0.05f;
  expect_within_bound(clip, s, loose);
}

TEST(CompiledClip, JumpsCubicSplinesAndSignFlipsStayInsideTheBound) {
  const Skeleton s = chain();
  // A translation that jumps within a tenth of a millisecond.
  const float jump_times[] = {0.0f, 0.5f, 0.5001f, 1.0f};
  const float jump_values[] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0};
  // A cubic spline rotation (in-tangent, value, out-tangent per key).
  const float cubic_times[] = {0.0f, 0.4f, 1.0f};
  std::vector<float> cubic;
  for (float deg : {0.0f, 60.0f, 20.0f}) {
    const Quat q = about_z(deg);
    append(cubic, {0, 0, 0.3f, 0, q.x, q.y, q.z, q.w, 0, 0, -0.2f, 0});
  }
  // The same rotation stored as q and -q on alternate keys.
  const float flip_times[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f};
  std::vector<float> flips;
  for (int k = 0; k < 5; ++k) {
    Quat q = about_z(10.0f * k);
    if (k % 2) q = negate(q);
    append(flips, {q.x, q.y, q.z, q.w});
  }
  const Clip clip = hand_clip(s, [&](ClipBuilder& b) {
    ASSERT_TRUE(b.add_track(0, "root", TrackTarget::kTranslation, Interpolation::kLinear,
                            jump_times, jump_values, "t"));
    ASSERT_TRUE(b.add_track(1, "mid", TrackTarget::kRotation, Interpolation::kCubicSpline,
                            cubic_times, cubic, "t"));
    ASSERT_TRUE(b.add_track(2, "tip", TrackTarget::kRotation, Interpolation::kLinear, flip_times,
                            flips, "t"));
  });
  expect_within_bound(clip, s);
}

TEST(CompiledClip, ChannelsThatDoNotMoveCostNoFrames) {
  // Every channel animated, but only the root's rotation moves: one moving group channel. The
  // turn is densely keyed, so that frames are its smaller form on every platform (a turn of a
  // few keys is kept as its keys where they take less room, and the fixed sizes that decide it
  // differ between 64- and 32-bit builds).
  const Skeleton s = chain();
  std::vector<float> times, still, ones, turn;
  for (int k = 0; k <= 60; ++k) {
    times.push_back(k / 60.0f);
    append(still, {0, 1, 0});
    append(ones, {1, 1, 1});
    const Quat q = about_z(30.0f * std::sin(3.0f * times.back()));
    append(turn, {q.x, q.y, q.z, q.w});
  }
  const Clip clip = hand_clip(s, [&](ClipBuilder& b) {
    ASSERT_TRUE(b.add_track(1, "mid", TrackTarget::kTranslation, Interpolation::kLinear, times,
                            still, "t"));
    ASSERT_TRUE(
        b.add_track(2, "tip", TrackTarget::kScale, Interpolation::kLinear, times, ones, "t"));
    ASSERT_TRUE(
        b.add_track(0, "root", TrackTarget::kRotation, Interpolation::kLinear, times, turn, "t"));
  });
  Result<CompiledClip> c = CompiledClip::compile(clip, s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const CompiledClipLayout& d = c->layout();
  ASSERT_EQ(d.sources.size(), 3u);
  EXPECT_EQ(d.sources[0], CompiledClipData::Source::kRest);  // translations equal the rest pose
  EXPECT_EQ(d.sources[1], CompiledClipData::Source::kAnimated);
  EXPECT_EQ(d.sources[2], CompiledClipData::Source::kRest);  // scales of one
  EXPECT_EQ(d.track_groups.size(), 1u);
  EXPECT_EQ(c->keyed_clip(), nullptr);
  expect_within_bound(clip, s);
}

// kPacked as docs/formats_archive.md defines it, decoded on every SIMD level: lane i's value is
// lane_bits[i] bits, least significant first, from bit lane_offset[i] of its component's
// little-endian record; value = min + q * scale; rotations store x, y, z, and w is the
// non-negative root.
CompiledClipData packed_by_hand() {
  CompiledClipData d;
  d.name = "packed";
  d.duration = 1;
  d.joint_count = 8;
  using Source = CompiledClipData::Source;
  d.sources = {Source::kAnimated, Source::kAnimated, Source::kRest};
  d.segment_rate = 1;
  d.segments = {{0.0f, 0, 1, 0}};
  d.frame_times = {0.0f, 1.0f};
  CompiledClipData::TrackGroup translation, rotation;
  translation.format = rotation.format = CompiledClipData::Format::kPacked;
  const std::uint8_t bits[8] = {0, 1, 3, 7, 8, 13, 24, 5};  // 61 bits: 8-byte records
  std::copy_n(bits, 8, translation.lane_bits);
  std::fill_n(rotation.lane_bits, 8, 8);  // 64 bits: 8-byte records
  translation.frame_offset = 0;
  rotation.frame_offset = 24;
  translation.range_offset = 0;
  rotation.range_offset = 48;
  d.track_groups = {translation, rotation};
  // Translations: min 100 k for component k, scale 1. Rotations: min -1, scale 0.1.
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 8; ++i) d.ranges.push_back(100.0f * k);
    for (int i = 0; i < 8; ++i) d.ranges.push_back(1.0f);
  }
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 8; ++i) d.ranges.push_back(-1.0f);
    for (int i = 0; i < 8; ++i) d.ranges.push_back(0.1f);
  }
  d.streams = {{1.0f, 2, 48, 0, 0}};
  d.frames.assign(96, 0);
  return d;
}

// Writes q into a record at bit `at`, least significant bit first.
void put_bits(std::uint8_t* record, unsigned at, unsigned bits, std::uint32_t q) {
  for (unsigned b = 0; b < bits; ++b, ++at) {
    if ((q >> b) & 1u) record[at / 8] = static_cast<std::uint8_t>(record[at / 8] | 1u << (at % 8));
  }
}

TEST(CompiledClip, PackedLanesDecodeAsTheFormatSaysOnEveryLevel) {
  CompiledClipData d = packed_by_hand();
  const std::uint32_t q[8] = {0, 1, 5, 100, 200, 8000, 16000000, 31};
  for (int f = 0; f < 2; ++f) {
    for (int k = 0; k < 3; ++k) {
      unsigned at = 0;
      for (int i = 0; i < 8; ++i) {
        const unsigned bits = d.track_groups[0].lane_bits[i];
        put_bits(d.frames.data() + 48 * f + 8 * k, at, bits, q[i] >> k);
        at += bits;
      }
    }
    // Rotations, 8 bits each: lane 0 turns from (0.8, 0, 0, 0.6) to (0.6, 0, 0, 0.8), the
    // others stay (0, 0, 0, 1); q = (value + 1) / 0.1.
    for (int k = 0; k < 3; ++k) {
      for (unsigned i = 0; i < 8; ++i) {
        const std::uint32_t code = i == 0 && k == 0 ? (f == 0 ? 18 : 16) : 10;
        put_bits(d.frames.data() + 48 * f + 24 + 8 * k, 8 * i, 8, code);
      }
    }
  }
  Result<CompiledClip> clip = CompiledClip::from_data(d, "by hand");
  ASSERT_TRUE(clip.ok()) << clip.error().message;
  EXPECT_EQ(clip->layout().track_groups[0].lane_offset[6], 32);  // 0+1+3+7+8+13
  std::vector<SoaTransform> rest(1), out(1);
  for_each_simd_level([&](SimdLevel) {
    CompiledSamplingJob job;
    job.clip = &*clip;
    job.rest_pose = rest;
    job.output = out;
    job.time = 0;
    ASSERT_TRUE(job.run());
    const float* planes[3] = {out[0].tx, out[0].ty, out[0].tz};
    for (int k = 0; k < 3; ++k) {
      for (int i = 0; i < 8; ++i) {
        const float want = static_cast<float>(i == 0 ? 0u : q[i] >> k) + 100.0f * k;
        EXPECT_EQ(planes[k][i], want) << "lane " << i << " component " << k;
      }
    }
    EXPECT_NEAR(out[0].qx[0], 0.8f, 1e-6f);
    EXPECT_NEAR(out[0].qw[0], 0.6f, 1e-6f);
    for (int i = 1; i < 8; ++i) EXPECT_NEAR(out[0].qw[i], 1.0f, 1e-6f) << "lane " << i;
    // Halfway: (0.8, 0, 0, 0.6) and (0.6, 0, 0, 0.8) average to (0.7, 0, 0, 0.7), which
    // normalizes to (1/sqrt 2, 0, 0, 1/sqrt 2).
    job.time = 0.5f;
    ASSERT_TRUE(job.run());
    EXPECT_NEAR(out[0].qx[0], std::sqrt(0.5f), 1e-5f);
    EXPECT_NEAR(out[0].qw[0], std::sqrt(0.5f), 1e-5f);
  });
}

// TrackGroup::slerp_timing as docs/formats_archive.md defines it, on every SIMD level: between
// frames q0 and q1 a rotation lane is nlerp at t' = t + k t (t - 1/2) (t - 1), k = (1 - d)
// (2/3 + 0.19 (1 - d)), d = q0.q1, which keeps within 1e-5 rad of slerp's angle for turns up to
// 46 degrees a frame, where plain nlerp strays by more than 1e-4.
TEST(CompiledClip, SlerpTimingFollowsSlerpOnEveryLevel) {
  CompiledClipData d;
  d.name = "timed";
  d.duration = 1;
  d.joint_count = 8;
  using Source = CompiledClipData::Source;
  d.sources = {Source::kRest, Source::kAnimated, Source::kRest};
  d.segment_rate = 1;
  d.segments = {{0.0f, 0, 1, 0}};
  d.frame_times = {0.0f, 1.0f};
  CompiledClipData::TrackGroup rotation;
  rotation.format = CompiledClipData::Format::kF32;
  rotation.slerp_timing = true;
  d.track_groups = {rotation};
  d.streams = {{1.0f, 2, 128, 0, 0}};
  // Lane i turns about x from 0 to degrees[i] over the second.
  const float degrees[8] = {1, 5, 10, 20, 30, 46, 90, 150};
  std::vector<float> frames(64, 0.0f);
  for (int i = 0; i < 8; ++i) {
    const float half = degrees[i] * 3.14159265f / 360.0f;
    frames[0 * 8 + i] = 0, frames[3 * 8 + i] = 1;  // frame 0: identity
    frames[32 + 0 * 8 + i] = std::sin(half), frames[32 + 3 * 8 + i] = std::cos(half);
  }
  d.frames.resize(256);
  std::memcpy(d.frames.data(), frames.data(), 256);
  CompiledClipData plain_data = d;
  plain_data.track_groups[0].slerp_timing = false;
  Result<CompiledClip> timed = CompiledClip::from_data(d, "timed");
  Result<CompiledClip> plain = CompiledClip::from_data(plain_data, "plain");
  ASSERT_TRUE(timed.ok()) << timed.error().message;
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  std::vector<SoaTransform> rest(1), out(1);
  const auto angle = [&](const CompiledClip& clip, float t, int i) {
    CompiledSamplingJob job;
    job.clip = &clip;
    job.rest_pose = rest;
    job.output = out;
    job.time = t;
    EXPECT_TRUE(job.run());
    return 2.0 * std::atan2(static_cast<double>(out[0].qx[i]), static_cast<double>(out[0].qw[i]));
  };
  for_each_simd_level([&](SimdLevel) {
    for (float t : {0.1f, 0.25f, 0.4f, 0.5f, 0.75f, 0.9f}) {
      for (int i = 0; i < 8; ++i) {
        const double theta = degrees[i] * 3.14159265358979 / 180.0;
        const double dot = std::cos(theta / 2), gap = 1 - dot;
        const double k = gap * (2.0 / 3.0 + 0.19 * gap);
        const double tt = t + k * t * (t - 0.5) * (t - 1);
        // nlerp at tt between (0,0,0,1) and (sin, 0, 0, cos) of the half angle.
        const double want =
            2.0 * std::atan2(tt * std::sin(theta / 2), 1 - tt + tt * std::cos(theta / 2));
        const double got = angle(*timed, t, i);
        EXPECT_NEAR(got, want, 2e-6) << "t " << t << " lane " << i;
        if (degrees[i] <= 46) {
          EXPECT_NEAR(got, t * theta, 1e-5) << "t " << t << " lane " << i;
        }
        if (degrees[i] >= 46 && t != 0.5f) {
          EXPECT_GT(std::fabs(angle(*plain, t, i) - t * theta), 1e-4) << "t " << t;
        }
      }
    }
  });
  // Only rotation groups may ask for it.
  d.sources = {Source::kAnimated, Source::kRest, Source::kRest};
  d.streams[0].frame_stride = 96;
  d.frames.resize(192);
  Result<CompiledClip> bad = CompiledClip::from_data(d, "bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("asks for slerp timing but holds no rotations"),
            std::string::npos)
      << bad.error().message;
}

TEST(CompiledClip, PackedGroupsThatCannotBeReadAreRefused) {
  const auto refused = [](CompiledClipData d, const std::string& part) {
    Result<CompiledClip> c = CompiledClip::from_data(std::move(d), "bad");
    ASSERT_FALSE(c.ok()) << "accepted; expected " << part;
    EXPECT_NE(c.error().message.find(part), std::string::npos) << c.error().message;
  };
  CompiledClipData d = packed_by_hand();
  d.track_groups[0].lane_bits[6] = 25;
  refused(d, "track group 0 lane 6 has 25 bits (at most 24");
  d = packed_by_hand();
  d.track_groups[0].format = CompiledClipData::Format::kU8;
  refused(d, "lane 1 has 1 bits (at most 0 in its format)");
  d = packed_by_hand();
  d.track_groups[1].frame_offset = 25;  // 24 bytes from 25 run past the 48-byte frame
  refused(d, "track group 1 lies outside its frame");
  d = packed_by_hand();
  d.ranges[48] = 0.5f;  // every x at least 0.5, y and z -1 at q = 0: |xyz| about 1.5
  refused(d, "not a unit quaternion");
  // Lane 0's x from 0.9 to -0.9, y and z 0: w is 0.436 in both, so the two rotations are in
  // opposite hemispheres (dot -0.62), which nlerp would pass near zero between.
  d = packed_by_hand();
  for (int f = 0; f < 2; ++f) {
    for (int k = 0; k < 3; ++k) {
      for (unsigned i = 0; i < 8; ++i) {
        const std::uint32_t code = i == 0 && k == 0 ? (f == 0 ? 19 : 1) : 10;
        put_bits(d.frames.data() + 48 * f + 24 + 8 * k, 8 * i, 8, code);
      }
    }
  }
  refused(d, "frames 0 and 1 lane 0 hold rotations in opposite hemispheres");
}

// A group's channel that moves in one segment and holds still in another: there it packs to no
// bits at the lowest rate and reads from another group's faster stream, whose frames it must not
// be written into (the sanitizer suite catches a write past its own frames).
TEST(CompiledClip, GroupsOfNoBitsReadFromAnotherStream) {
  std::vector<JointDesc> joints;
  for (int j = 0; j < 9; ++j) {
    joints.push_back(
        {"j" + std::to_string(j), j - 1, {{0, j == 0 ? 0.0f : 0.2f, 0}, {}, {1, 1, 1}}});
  }
  const Skeleton s = Skeleton::build(joints, "nine").value();
  std::vector<float> times, turn, slide;
  for (int k = 0; k <= 150; ++k) {  // 5 s at 30 keys a second: 3 segments
    const float t = k / 30.0f;
    times.push_back(t);
    const Quat q = about_z(60.0f * std::sin(3.0f * t));
    append(turn, {q.x, q.y, q.z, q.w});
    // Joint 8 (the second group) still for the first 2.5 s, then sliding.
    append(slide, {t < 2.5f ? 0.0f : 0.3f * (t - 2.5f), 0.2f, 0});
  }
  const Clip clip = hand_clip(s, [&](ClipBuilder& b) {
    ASSERT_TRUE(
        b.add_track(0, "j0", TrackTarget::kRotation, Interpolation::kLinear, times, turn, "t"));
    ASSERT_TRUE(
        b.add_track(8, "j8", TrackTarget::kTranslation, Interpolation::kLinear, times, slide, "t"));
  });
  Result<CompiledClip> c = CompiledClip::compile(clip, s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  bool empty_group = false;
  for (const CompiledClipData::TrackGroup& g : c->layout().track_groups) {
    empty_group = empty_group || (g.format == CompiledClipData::Format::kPacked &&
                                  g.lane_offset[7] + g.lane_bits[7] == 0);
  }
  EXPECT_TRUE(empty_group) << "no packed group of no bits: the case is not reached";
  expect_within_bound(clip, s);
}

// Joints that do not move cost a packed group no bits; the one that moves gets some.
TEST(CompiledClip, StillJointsCostPackedGroupsNoBits) {
  const Skeleton s = chain();
  std::vector<float> times, turn;
  for (int k = 0; k <= 30; ++k) {
    times.push_back(k / 30.0f);
    const Quat q = about_z(40.0f * std::sin(k / 5.0f));
    append(turn, {q.x, q.y, q.z, q.w});
  }
  const Clip clip = hand_clip(s, [&](ClipBuilder& b) {
    ASSERT_TRUE(
        b.add_track(1, "mid", TrackTarget::kRotation, Interpolation::kLinear, times, turn, "t"));
  });
  Result<CompiledClip> c = CompiledClip::compile(clip, s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_FALSE(c->layout().track_groups.empty());
  for (const CompiledClipData::TrackGroup& g : c->layout().track_groups) {
    ASSERT_EQ(g.format, CompiledClipData::Format::kPacked);
    EXPECT_GT(g.lane_bits[1], 0);
    EXPECT_LE(g.lane_bits[1], CompiledClipData::kMaxLaneBits);
    for (int i : {0, 2, 3, 4, 5, 6, 7}) EXPECT_EQ(g.lane_bits[i], 0) << "lane " << i;
  }
  expect_within_bound(clip, s);
  // Without packing, the same clip keeps 8- or 16-bit groups, and more bytes.
  CompileOptions unpacked;
  unpacked.pack = false;
  Result<CompiledClip> u = CompiledClip::compile(clip, s, unpacked);
  ASSERT_TRUE(u.ok()) << u.error().message;
  for (const CompiledClipData::TrackGroup& g : u->layout().track_groups)
    EXPECT_NE(g.format, CompiledClipData::Format::kPacked);
  EXPECT_LT(c->size_bytes(), u->size_bytes());
  expect_within_bound(clip, s, unpacked);
}

TEST(CompiledClip, AdditiveClipsAreMeasuredOnTheReferenceWithTheirDeltas) {
  std::optional<Asset> asset = load("gltf/Soldier.glb");
  if (!asset) GTEST_SKIP() << "Soldier.glb is absent";
  const Clip& run = asset->clips[*asset->find_clip("Run")];
  const std::vector<Transform> reference = sample_reference_pose(asset->skeleton, run, 0).value();
  const Clip additive = make_additive_clip(run, asset->skeleton, reference).value();
  CompileOptions options;
  options.additive_reference = reference;
  Result<CompiledClip> c = CompiledClip::compile(additive, asset->skeleton, options);
  ASSERT_TRUE(c.ok()) << c.error().message;
  // Sampled over any rest pose (it is never read) and applied to the reference.
  const std::size_t n = asset->skeleton.size();
  for (float t : check_times(additive, 5)) {
    const std::vector<Transform> delta = compiled_pose(*c, asset->skeleton, t);
    std::vector<Transform> exact_delta(n);
    ASSERT_TRUE(sample_tracks(additive, t, exact_delta));
    std::vector<Transform> got = reference, want = reference;
    ASSERT_TRUE(apply_additive(std::span<Transform>(got), delta, 1.0f));
    ASSERT_TRUE(apply_additive(std::span<Transform>(want), exact_delta, 1.0f));
    EXPECT_LE(virtual_vertex_error(asset->skeleton, got, want, c->report().distance),
              c->report().bound)
        << t;
  }
}

TEST(CompiledClip, BadOptionsAndMismatchedSkeletonsAreClearErrors) {
  const Skeleton s = chain();
  const Clip clip = hand_clip(s, [](ClipBuilder&) {});
  for (float bad : {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(),
                    std::numeric_limits<float>::infinity()}) {
    CompileOptions o;
    o.error = bad;
    Result<CompiledClip> c = CompiledClip::compile(clip, s, o);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.error().message.find("error bound"), std::string::npos) << c.error().message;
  }
  CompileOptions o;
  o.distance = -0.1f;
  EXPECT_FALSE(CompiledClip::compile(clip, s, o).ok());
  const Skeleton other = Skeleton::build(std::vector<JointDesc>{{"a", -1, {}}}).value();
  Result<CompiledClip> c = CompiledClip::compile(clip, other);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("3 joints"), std::string::npos) << c.error().message;
}

TEST(CompiledSampling, RunAllocatesNothingAndValidateRefusesBadSpans) {
  std::optional<Asset> asset = load("gltf/Soldier.glb");
  if (!asset) GTEST_SKIP() << "Soldier.glb is absent";
  const Clip& walk = asset->clips[*asset->find_clip("Walk")];
  const CompiledClip c = CompiledClip::compile(walk, asset->skeleton).value();
  std::vector<SoaTransform> out(soa_group_count(asset->skeleton.size()));
  CompiledSamplingContext context(c);
  CompiledSamplingJob job;
  job.clip = &c;
  job.rest_pose = asset->skeleton.soa_rest_pose();
  job.context = &context;
  job.output = out;
  {
    AllocationMeter counter;
    for (int f = 0; f < 120; ++f) {
      job.time = f / 60.0f;
      ASSERT_TRUE(job.run());
    }
    EXPECT_EQ(counter.count(), 0u);
  }
  job.time = std::numeric_limits<float>::quiet_NaN();  // read as 0
  EXPECT_TRUE(job.run());
  std::vector<SoaTransform> short_out(out.size() - 1);
  job.output = short_out;
  EXPECT_TRUE(refused_naming(job.validate(), "CompiledSamplingJob: output"));
  EXPECT_FALSE(job.run());
  job.output = out;
  CompiledSamplingContext other;
  job.context = &other;
  EXPECT_TRUE(refused_naming(job.validate(), "CompiledSamplingJob: context"));
  job.context = nullptr;
  job.rest_pose = {};
  EXPECT_TRUE(refused_naming(job.validate(), "CompiledSamplingJob: rest_pose"));
  job.clip = nullptr;
  EXPECT_TRUE(refused_naming(job.validate(), "CompiledSamplingJob: clip"));
}

}  // namespace
}  // namespace marrow::test
