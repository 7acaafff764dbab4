// marrow's compiled clips and the Animation Compression Library (ACL 2.1) on the same clips, in
// one process (issue 34, item 1). run.sh builds it against ACL's and RTM's headers from source
// trees you give and pins it to one core; README.md says what each column measures.
//
//   side_by_side [--repetitions=N] [--quick] FILE...
//
// For each clip of each FILE: the exact clip sampled uniformly at its fastest key rate (as ACL
// requires) becomes ACL's raw track list; ACL compresses it at its default settings and at its
// highest level, with precision 0.01 cm and shell 3 cm scaled to the character (its extent taken
// for 1.8 m); marrow compiles the exact clip at its default bound and at ACL's settings. Both
// errors (ACL's own function and marrow's virtual vertices) are measured on every output; pose
// decompression is timed for forward playback at 60 Hz and for random seeks, interleaved.
#include <acl/compression/compress.h>
#include <acl/compression/track_array.h>
#include <acl/compression/track_error.h>
#include <acl/compression/transform_error_metrics.h>
#include <acl/core/ansi_allocator.h>
#include <acl/decompression/decompress.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "marrow/clip/compiled_clip.h"
#include "marrow/clip/compiled_sampling.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"

namespace peer {

using namespace marrow;

void fail(const std::string& message) {
  std::fprintf(stderr, "side_by_side: %s\n", message.c_str());
  std::exit(1);
}

double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The clip's uniform sampling: its fastest key rate, as raw_sample_bytes counts it.
struct Sampling {
  float rate = 30;
  std::uint32_t samples = 1;
};

Sampling uniform_sampling(const Clip& clip) {
  double rate = 0;
  for (const Track& t : clip.tracks()) {
    if (t.key_count < 2) continue;
    const float span = clip.times()[t.first_key + t.key_count - 1] - clip.times()[t.first_key];
    if (span > 0) rate = std::max(rate, (t.key_count - 1) / static_cast<double>(span));
  }
  Sampling s;
  if (rate > 0) {
    s.rate = static_cast<float>(rate);
    s.samples = static_cast<std::uint32_t>(std::floor(clip.duration() * rate + 0.5)) + 1;
  }
  return s;
}

float sample_time(const Sampling& s, std::uint32_t i, float duration) {
  return std::min(static_cast<float>(i) / s.rate, duration);
}

// ACL's output written straight into marrow's local pose.
struct PoseWriter : acl::track_writer {
  Transform* pose = nullptr;
  void RTM_SIMD_CALL write_rotation(uint32_t i, rtm::quatf_arg0 q) {
    pose[i].rotation = {rtm::quat_get_x(q), rtm::quat_get_y(q), rtm::quat_get_z(q),
                        rtm::quat_get_w(q)};
  }
  void RTM_SIMD_CALL write_translation(uint32_t i, rtm::vector4f_arg0 v) {
    pose[i].translation = {rtm::vector_get_x(v), rtm::vector_get_y(v), rtm::vector_get_z(v)};
  }
  void RTM_SIMD_CALL write_scale(uint32_t i, rtm::vector4f_arg0 v) {
    pose[i].scale = {rtm::vector_get_x(v), rtm::vector_get_y(v), rtm::vector_get_z(v)};
  }
};

using AclContext = acl::decompression_context<acl::default_transform_decompression_settings>;

// A track list of the local poses `pose_at(t)` gives at each uniform sample.
template <typename PoseAt>
acl::track_array_qvvf make_tracks(acl::iallocator& allocator, const Skeleton& skeleton,
                                  const Clip& clip, const Sampling& s, float precision, float shell,
                                  PoseAt pose_at) {
  const std::size_t n = skeleton.size();
  acl::track_array_qvvf tracks(allocator, static_cast<uint32_t>(n));
  std::vector<std::vector<Transform>> frames(s.samples);
  for (std::uint32_t i = 0; i < s.samples; ++i) {
    frames[i].resize(n);
    pose_at(sample_time(s, i, clip.duration()), frames[i]);
  }
  for (std::size_t j = 0; j < n; ++j) {
    acl::track_desc_transformf desc;
    desc.output_index = static_cast<uint32_t>(j);
    desc.parent_index = skeleton.parent(static_cast<JointIndex>(j)) == kNoParent
                            ? acl::k_invalid_track_index
                            : static_cast<uint32_t>(skeleton.parent(static_cast<JointIndex>(j)));
    desc.precision = precision;
    desc.shell_distance = shell;
    acl::track_qvvf track = acl::track_qvvf::make_reserve(desc, allocator, s.samples, s.rate);
    for (std::uint32_t i = 0; i < s.samples; ++i) {
      const Transform& t = frames[i][j];
      track[i] = rtm::qvv_set(rtm::quat_normalize(rtm::quat_set(t.rotation.x, t.rotation.y,
                                                                t.rotation.z, t.rotation.w)),
                              rtm::vector_set(t.translation.x, t.translation.y, t.translation.z),
                              rtm::vector_set(t.scale.x, t.scale.y, t.scale.z));
    }
    tracks[static_cast<uint32_t>(j)] = std::move(track);
  }
  return tracks;
}

// marrow's virtual-vertex distance between two model poses: each joint and the points
// `distance` along its three axes in model space (the compiler's definition: a joint scaled in
// its rest pose gets its points at distance / scale in its own units, `local_distance`); every
// joint's largest goes into `errors`.
void vertex_errors(std::span<const Mat4> a, std::span<const Mat4> b,
                   std::span<const float> local_distance, std::vector<float>& errors) {
  for (std::size_t j = 0; j < a.size(); ++j) {
    const float d = local_distance[j];
    const Vec3 points[4] = {{0, 0, 0}, {d, 0, 0}, {0, d, 0}, {0, 0, d}};
    float worst = 0;
    for (const Vec3& p : points) {
      const Vec3 e = transform_point(a[j], p) - transform_point(b[j], p);
      worst = std::max(worst, std::sqrt(e.x * e.x + e.y * e.y + e.z * e.z));
    }
    errors.push_back(worst);
  }
}

// `distance` in each joint's own units: divided by the largest axis scale of its rest pose in
// model space.
std::vector<float> local_distances(const Skeleton& skeleton, float distance) {
  std::vector<Mat4> rest(skeleton.size());
  local_to_model(skeleton, skeleton.rest_pose(), rest);
  std::vector<float> out(skeleton.size());
  for (std::size_t j = 0; j < rest.size(); ++j) {
    float s = 0;
    for (int c = 0; c < 3; ++c) {
      const Vec3 axis = rest[j].column(c);
      s = std::max(s, std::sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z));
    }
    out[j] = s > 1e-20f ? distance / s : distance;
  }
  return out;
}

struct ErrorFigures {
  float max = 0, p99 = 0;
};

ErrorFigures figures(std::vector<float> errors) {
  if (errors.empty()) return {};
  std::sort(errors.begin(), errors.end());
  return {errors.back(), errors[std::min(errors.size() - 1, errors.size() * 99 / 100)]};
}

// One compressed form of a clip: how it samples a local pose at a time.
struct Candidate {
  std::string name;
  std::size_t bytes = 0;
  double compile_seconds = 0;
  float acl_error = 0;        // ACL's error function, against the raw samples
  ErrorFigures marrow_error;  // virtual vertices at marrow's distance, at and between samples
  double forward_us = 0, seek_us = 0;
  std::vector<double> forward_runs, seek_runs;
};

struct ClipRun {
  std::string file, clip;
  std::size_t joints = 0, raw_bytes = 0, exact_bytes = 0;
  Sampling sampling;
  std::vector<Candidate> candidates;  // ACL default, ACL highest, marrow default, marrow at ACL's
};

struct Options {
  int repetitions = 7;
  bool quick = false;
  std::vector<std::string> files;
};

// The exact clip, as the reference every candidate is measured against.
struct Exact {
  const Asset& asset;
  const Clip& clip;
  SamplingCursor cursor;
  Exact(const Asset& a, const Clip& c) : asset(a), clip(c), cursor(c) {}
  void local(float t, std::span<Transform> pose) {
    const auto rest = asset.skeleton.rest_pose();
    std::copy(rest.begin(), rest.end(), pose.begin());
    if (!sample_tracks(clip, t, cursor, pose)) fail("sample_tracks refused its arguments");
  }
};

// A compiled clip's local pose at a time.
struct Compiled {
  const Skeleton& skeleton;
  const CompiledClip& clip;
  CompiledSamplingContext context;
  std::vector<SoaTransform> soa;
  Compiled(const Skeleton& s, const CompiledClip& c)
      : skeleton(s), clip(c), context(c), soa(soa_group_count(s.size())) {}
  void sample(float t) {
    CompiledSamplingJob job;
    job.clip = &clip;
    job.time = t;
    job.rest_pose = skeleton.soa_rest_pose();
    job.context = &context;
    job.output = soa;
    if (!job.run()) fail("CompiledSamplingJob refused its arguments");
  }
  void local(float t, std::span<Transform> pose) {
    sample(t);
    from_soa(soa, pose);
  }
};

// ACL's compressed tracks and a context bound to them.
struct AclClip {
  acl::compressed_tracks* tracks = nullptr;
  AclContext context;
  PoseWriter writer;
  float duration = 0;
  std::vector<Transform> pose;
  void bind(acl::compressed_tracks* t, std::size_t joints) {
    tracks = t;
    context.initialize(*tracks);
    duration = tracks->get_duration();
    pose.assign(joints, Transform::identity());
    writer.pose = pose.data();
  }
  void sample(float t) {
    context.seek(std::min(t, duration), acl::sample_rounding_policy::none);
    context.decompress_tracks(writer);
  }
  void local(float t, std::span<Transform> out) {
    sample(t);
    std::copy(pose.begin(), pose.end(), out.begin());
  }
};

// marrow's virtual-vertex error of `local_at` against the exact clip, at every uniform sample
// and midway between samples.
template <typename LocalAt>
ErrorFigures marrow_metric(Exact& exact, const Sampling& s, float distance, LocalAt local_at) {
  const Skeleton& skeleton = exact.asset.skeleton;
  const std::size_t n = skeleton.size();
  std::vector<Transform> a(n), b(n);
  std::vector<Mat4> ma(n), mb(n);
  std::vector<float> errors;
  const std::vector<float> local_distance = local_distances(skeleton, distance);
  const float duration = exact.clip.duration();
  for (std::uint32_t i = 0; i < 2 * s.samples - 1; ++i) {
    const float t = std::min(0.5f * static_cast<float>(i) / s.rate, duration);
    exact.local(t, a);
    local_at(t, std::span<Transform>(b));
    local_to_model(skeleton, a, ma);
    local_to_model(skeleton, b, mb);
    vertex_errors(ma, mb, local_distance, errors);
  }
  return figures(std::move(errors));
}

acl::compressed_tracks* acl_compress(acl::iallocator& allocator, const acl::track_array_qvvf& raw,
                                     acl::compression_level8 level, double& seconds) {
  acl::compression_settings settings = acl::get_default_compression_settings();
  settings.level = level;
  acl::qvvf_transform_error_metric metric;
  settings.error_metric = &metric;
  acl::output_stats stats;
  acl::compressed_tracks* out = nullptr;
  const double start = thread_seconds();
  const acl::error_result result = acl::compress_track_list(allocator, raw, settings, out, stats);
  seconds = thread_seconds() - start;
  if (result.any()) fail(std::string("ACL could not compress: ") + result.c_str());
  return out;
}

// Times per pose (µs of thread CPU time) of `sample` over `times`.
template <typename Sample>
double per_pose_us(const std::vector<float>& times, Sample sample) {
  const double start = thread_seconds();
  for (float t : times) sample(t);
  return (thread_seconds() - start) * 1e6 / static_cast<double>(times.size());
}

ClipRun run_clip(const Asset& asset, std::size_t c, const Options& o) {
  const Clip& clip = asset.clips[c];
  const Skeleton& skeleton = asset.skeleton;
  const std::size_t n = skeleton.size();
  ClipRun run;
  run.file = asset.source;
  run.clip = clip.name();
  run.joints = n;
  run.raw_bytes = raw_sample_bytes(clip, n);
  run.sampling = uniform_sampling(clip);
  const Sampling& s = run.sampling;

  // marrow at its default bound (0.1 mm, vertices at 10 cm, on the character at 1.8 m) and at
  // ACL's (0.01 cm = 0.1 mm, vertices at 3 cm).
  CompileOptions marrow_default;
  CompileOptions marrow_acl;
  marrow_acl.distance = 30.0f / 1800.0f;
  std::vector<Candidate> candidates(4);
  candidates[2].name = "marrow default";
  candidates[3].name = "marrow at ACL's";
  std::vector<CompiledClip> compiled;
  for (int k = 0; k < 2; ++k) {
    const double start = thread_seconds();
    Result<CompiledClip> made =
        CompiledClip::compile(clip, skeleton, k == 0 ? marrow_default : marrow_acl);
    candidates[2 + k].compile_seconds = thread_seconds() - start;
    if (!made) fail(made.error().message);
    compiled.push_back(std::move(made).value());
    candidates[2 + k].bytes = compiled.back().size_bytes();
  }
  const float extent = compiled[0].report().extent;
  run.exact_bytes = compiled[0].report().exact_bytes;
  const float precision = extent * 0.1f / 1800.0f;  // ACL's 0.01 cm at 1.8 m
  const float shell = extent * 30.0f / 1800.0f;     // ACL's 3 cm at 1.8 m
  const float marrow_distance = extent * 100.0f / 1800.0f;

  acl::ansi_allocator allocator;
  Exact exact(asset, clip);
  const acl::track_array_qvvf raw =
      make_tracks(allocator, skeleton, clip, s, precision, shell,
                  [&](float t, std::vector<Transform>& pose) { exact.local(t, pose); });
  AclClip acl_clips[2];
  const acl::compression_level8 levels[2] = {acl::get_default_compression_settings().level,
                                             acl::compression_level8::highest};
  acl::qvvf_transform_error_metric metric;
  for (int k = 0; k < 2; ++k) {
    candidates[k].name = k == 0 ? "ACL default" : "ACL highest";
    acl_clips[k].bind(acl_compress(allocator, raw, levels[k], candidates[k].compile_seconds), n);
    candidates[k].bytes = acl_clips[k].tracks->get_size();
    candidates[k].acl_error =
        acl::calculate_compression_error(allocator, raw, acl_clips[k].context, metric).error;
    candidates[k].marrow_error =
        marrow_metric(exact, s, marrow_distance,
                      [&](float t, std::span<Transform> pose) { acl_clips[k].local(t, pose); });
  }
  std::vector<Compiled> samplers;
  for (int k = 0; k < 2; ++k) samplers.emplace_back(skeleton, compiled[k]);
  for (int k = 0; k < 2; ++k) {
    Compiled& m = samplers[k];
    const acl::track_array_qvvf lossy =
        make_tracks(allocator, skeleton, clip, s, precision, shell,
                    [&](float t, std::vector<Transform>& pose) { m.local(t, pose); });
    candidates[2 + k].acl_error =
        acl::calculate_compression_error(allocator, raw, lossy, metric).error;
    candidates[2 + k].marrow_error = marrow_metric(
        exact, s, marrow_distance, [&](float t, std::span<Transform> pose) { m.local(t, pose); });
  }

  // Forward playback at 60 Hz over the clip, and random seeks; interleaved repetitions.
  std::vector<float> forward, seeks;
  for (float t = 0; t <= clip.duration(); t += 1.0f / 60.0f) forward.push_back(t);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> any_time(0.0f, clip.duration());
  for (int i = 0; i < 256; ++i) seeks.push_back(any_time(rng));
  const int passes = o.quick ? 1 : 20;
  for (int r = 0; r < o.repetitions; ++r) {
    for (int k = 0; k < 4; ++k) {
      Candidate& cand = candidates[k];
      double f = 0, sk = 0;
      for (int p = 0; p < passes; ++p) {
        if (k < 2) {
          f += per_pose_us(forward, [&](float t) { acl_clips[k].sample(t); });
          sk += per_pose_us(seeks, [&](float t) { acl_clips[k].sample(t); });
        } else {
          f += per_pose_us(forward, [&](float t) { samplers[k - 2].sample(t); });
          sk += per_pose_us(seeks, [&](float t) { samplers[k - 2].sample(t); });
        }
      }
      cand.forward_runs.push_back(f / passes);
      cand.seek_runs.push_back(sk / passes);
    }
  }
  for (Candidate& cand : candidates) {
    cand.forward_us = median(cand.forward_runs);
    cand.seek_us = median(cand.seek_runs);
  }
  for (AclClip& a : acl_clips) allocator.deallocate(a.tracks, a.tracks->get_size());
  // Errors in cm on the character at 1.8 m.
  const float to_cm = 180.0f / extent;
  for (Candidate& cand : candidates) {
    cand.acl_error *= to_cm;
    cand.marrow_error.max *= to_cm;
    cand.marrow_error.p99 *= to_cm;
  }
  run.candidates = std::move(candidates);
  return run;
}

void print(const std::vector<ClipRun>& runs) {
  std::printf(
      "| clip | joints | samples | raw | exact | candidate | bytes | raw : bytes | ACL error (cm) "
      "| "
      "marrow error max / p99 (cm) | compress (ms) | forward (µs/pose) | seek (µs/pose) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<std::size_t> total_bytes(4, 0);
  std::vector<double> total_seconds(4, 0);
  std::vector<float> worst_acl(4, 0), worst_marrow(4, 0);
  std::vector<int> larger_than_exact(4, 0);
  std::size_t total_raw = 0, total_exact = 0;
  for (const ClipRun& r : runs) {
    total_raw += r.raw_bytes;
    total_exact += r.exact_bytes;
    for (std::size_t k = 0; k < r.candidates.size(); ++k) {
      const Candidate& c = r.candidates[k];
      total_bytes[k] += c.bytes;
      total_seconds[k] += c.compile_seconds;
      worst_acl[k] = std::max(worst_acl[k], c.acl_error);
      worst_marrow[k] = std::max(worst_marrow[k], c.marrow_error.max);
      larger_than_exact[k] += c.bytes > r.exact_bytes;
      std::printf(
          "| %s | %zu | %u at %.0f/s | %zu | %zu | %s | %zu | %.1f | %.4f | %.4f / %.4f | "
          "%.1f | %.3f | %.3f |\n",
          k == 0 ? r.clip.c_str() : "", r.joints, r.sampling.samples, r.sampling.rate, r.raw_bytes,
          r.exact_bytes, c.name.c_str(), c.bytes,
          static_cast<double>(r.raw_bytes) / static_cast<double>(c.bytes),
          static_cast<double>(c.acl_error), static_cast<double>(c.marrow_error.max),
          static_cast<double>(c.marrow_error.p99), c.compile_seconds * 1e3, c.forward_us,
          c.seek_us);
    }
  }
  if (runs.empty()) return;
  std::printf(
      "\n| total over %zu clips (raw %zu, exact %zu) | bytes | raw : bytes | / ACL default "
      "| clips bigger than exact | worst ACL error (cm) | worst marrow error (cm) | "
      "compress (s) |\n|---|---|---|---|---|---|---|---|\n",
      runs.size(), total_raw, total_exact);
  for (std::size_t k = 0; k < 4; ++k) {
    std::printf("| %s | %zu | %.1f | %.2f | %d | %.4f | %.4f | %.2f |\n",
                runs.front().candidates[k].name.c_str(), total_bytes[k],
                static_cast<double>(total_raw) / static_cast<double>(total_bytes[k]),
                static_cast<double>(total_bytes[k]) / static_cast<double>(total_bytes[0]),
                larger_than_exact[k], static_cast<double>(worst_acl[k]),
                static_cast<double>(worst_marrow[k]), total_seconds[k]);
  }
}

}  // namespace peer

int main(int argc, char** argv) {
  peer::Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--repetitions=", 0) == 0)
      o.repetitions = std::max(1, std::atoi(arg.c_str() + 14));
    else if (arg == "--quick")
      o.quick = true;
    else if (arg.rfind("--", 0) == 0)
      peer::fail("unknown option " + arg);
    else
      o.files.push_back(arg);
  }
  if (o.files.empty()) peer::fail("usage: side_by_side [--repetitions=N] [--quick] FILE...");
  if (o.quick) o.repetitions = 1;
  std::vector<peer::ClipRun> runs;
  for (const std::string& file : o.files) {
    marrow::LoadOptions load;
    marrow::Result<marrow::Asset> asset = marrow::load_asset(file, load);
    if (!asset) {  // a corpus may hold files marrow refuses: said, and the rest measured
      std::fprintf(stderr, "side_by_side: skipped: %s\n", asset.error().message.c_str());
      continue;
    }
    for (std::size_t c = 0; c < asset->clips.size(); ++c) {
      std::fprintf(stderr, "side_by_side: %s: %s\n", file.c_str(), asset->clips[c].name().c_str());
      runs.push_back(peer::run_clip(*asset, c, o));
    }
  }
  peer::print(runs);
  return 0;
}
