#include "compiled_clips.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "marrow/clip/compiled_sampling.h"
#include "marrow/clip/sampling.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/morph.h"

namespace marrow::cli {
namespace {

// The character height the relative options are stated for, in millimetres.
constexpr float kHumanMillimetres = 1800.0f;

std::string number(float v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// The compiled clip's local pose at t, written into `pose`.
void sample_compiled(const CompiledClip& compiled, const Skeleton& skeleton, float t,
                     CompiledSamplingContext& context, std::vector<SoaTransform>& soa,
                     std::vector<Transform>& pose) {
  CompiledSamplingJob job;
  job.clip = &compiled;
  job.time = t;
  job.rest_pose = skeleton.soa_rest_pose();
  job.context = &context;
  job.output = soa;
  (void)job.run();  // sized for the skeleton above: validate() holds
  (void)from_soa(soa, pose);
}

}  // namespace

void add_bound_options(CLI::App* cmd, BoundOptions& options) {
  auto given = [&options](const auto&) { options.given = true; };
  cmd->add_option_function<float>(
      "--error",
      [&options, given](float v) {
        options.error = v;
        given(v);
      },
      "Error bound in mm on the character scaled to 1.8 m tall (default 0.1); with --absolute, "
      "in the file's model units");
  cmd->add_option_function<float>(
      "--distance",
      [&options, given](float v) {
        options.distance = v;
        given(v);
      },
      "Distance of the virtual vertices from each joint in cm at 1.8 m (default 10); with "
      "--absolute, in model units");
  cmd->add_flag_function(
      "--absolute",
      [&options](std::int64_t) {
        options.absolute = true;
        options.given = true;
      },
      "Read --error and --distance in the file's model-space units instead");
  cmd->add_flag_function(
      "--no-pack",
      [&options](std::int64_t) {
        options.pack = false;
        options.given = true;
      },
      "Keep every group of 8 joints at 8 or 16 bits per component instead of giving each joint "
      "its own bits: larger clips that sample about twice as fast");
}

Result<CompileOptions> to_compile_options(const BoundOptions& o) {
  const std::string unit = o.absolute ? " model units" : " mm";
  if (!std::isfinite(o.error) || !(o.error > 0)) {
    return Error{"--error: the error bound must be a finite number above 0 (got " +
                 number(o.error) + ")"};
  }
  if (!std::isfinite(o.distance) || o.distance < 0) {
    return Error{
        "--distance: the virtual vertices' distance must be a finite number, 0 or more "
        "(got " +
        number(o.distance) + ")"};
  }
  CompileOptions options;
  options.absolute = o.absolute;
  options.pack = o.pack;
  options.error = o.absolute ? o.error : o.error / kHumanMillimetres;
  options.distance = o.absolute ? o.distance : o.distance * 10.0f / kHumanMillimetres;
  if (!(options.error > 0)) {
    return Error{"--error: " + number(o.error) + unit + " is below float precision"};
  }
  return options;
}

float millimetres_at_human_scale(float model_units, float extent) {
  return extent > 0 ? model_units / extent * kHumanMillimetres : model_units;
}

std::string describe_bound(const CompiledClipReport& r) {
  std::ostringstream s;
  s << number(millimetres_at_human_scale(r.bound, r.extent)) << " mm at 1.8 m (" << number(r.bound)
    << " model units), virtual vertices "
    << number(millimetres_at_human_scale(r.distance, r.extent) / 10) << " cm ("
    << number(r.distance) << ")";
  return s.str();
}

std::vector<float> measurement_times(const Clip& clip, const CompiledClip& compiled) {
  const float duration = clip.duration();
  std::vector<float> keys;
  for (const Track& track : clip.tracks()) {
    const auto ts = clip.times().subspan(track.first_key, track.key_count);
    keys.insert(keys.end(), ts.begin(), ts.end());
  }
  const CompiledClipLayout& d = compiled.layout();
  std::vector<float> frames(d.frame_times.begin(), d.frame_times.end());
  std::vector<float> times{0.0f, duration, duration * (1 - 1e-5f), duration * 1e-5f};
  // Between consecutive distinct times of each set: where nlerp strays furthest from slerp
  // (1/2 -+ 1/(2 sqrt 3)) and the middle, where a cubic's error peaks.
  for (std::vector<float>* set : {&keys, &frames}) {
    std::sort(set->begin(), set->end());
    set->erase(std::unique(set->begin(), set->end()), set->end());
    for (std::size_t i = 0; i < set->size(); ++i) {
      times.push_back((*set)[i]);
      if (i + 1 == set->size()) break;
      const float a = (*set)[i], b = (*set)[i + 1];
      for (float u : {0.2113249f, 0.5f, 0.7886751f}) times.push_back(a + (b - a) * u);
    }
  }
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> anywhere(0.0f, duration);
  for (int i = 0; i < 256; ++i) times.push_back(anywhere(rng));
  for (float& t : times) t = std::clamp(t, 0.0f, duration);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

MeasuredError measure_compiled_error(const Clip& clip, const CompiledClip& compiled,
                                     const Skeleton& skeleton, float distance,
                                     std::span<const float> times) {
  const std::size_t n = skeleton.size();
  // The virtual vertices sit `distance` from each joint in model space: in the joint's own
  // units that is distance over its rest model scale.
  std::vector<Mat4> rest(n);
  (void)local_to_model(skeleton, skeleton.rest_pose(), rest);
  std::vector<float> local_distance(n);
  for (std::size_t j = 0; j < n; ++j) {
    const float s =
        std::max({length(rest[j].column(0)), length(rest[j].column(1)), length(rest[j].column(2))});
    local_distance[j] = s > 1e-20f ? distance / s : distance;
  }
  std::vector<Transform> exact(n), fast(n);
  std::vector<SoaTransform> soa(soa_group_count(n));
  std::vector<Mat4> exact_model(n), fast_model(n);
  SamplingCursor cursor(clip);
  CompiledSamplingContext context(compiled);
  MeasuredError m;
  m.times = times.size();
  for (float t : times) {
    (void)sample(clip, skeleton.rest_pose(), t, cursor, exact);
    sample_compiled(compiled, skeleton, t, context, soa, fast);
    (void)local_to_model(skeleton, exact, exact_model);
    (void)local_to_model(skeleton, fast, fast_model);
    for (std::size_t j = 0; j < n; ++j) {
      const float dl = local_distance[j];
      for (const Vec3 p : {Vec3{0, 0, 0}, Vec3{dl, 0, 0}, Vec3{0, dl, 0}, Vec3{0, 0, dl}}) {
        const float e =
            length(transform_point(exact_model[j], p) - transform_point(fast_model[j], p));
        // A NaN anywhere is the worst error there is, not one to skip.
        const float err = std::isnan(e) ? INFINITY : e;
        if (err > m.max_error) {
          m.max_error = err;
          m.time = t;
          m.joint = static_cast<JointIndex>(j);
        }
      }
    }
  }
  return m;
}

Result<CompiledClip> compiled_clip_for(const Asset& asset, std::size_t clip,
                                       const BoundOptions& options, bool* from_archive) {
  if (from_archive) *from_archive = false;
  if (!options.given) {
    if (const CompiledClip* stored = asset.compiled_clip(clip)) {
      if (from_archive) *from_archive = true;
      return *stored;
    }
  }
  Result<CompileOptions> compile_options = to_compile_options(options);
  if (!compile_options) return compile_options.error();
  Result<CompiledClip> compiled =
      CompiledClip::compile(asset.clips[clip], asset.skeleton, *compile_options);
  if (!compiled) return make_error(asset.source, compiled.error().message);
  return compiled;
}

PoseSamples sample_world_compiled(const Asset& asset, std::size_t clip_index,
                                  const CompiledClip& compiled, std::span<const float> times,
                                  WrapMode wrap) {
  const Clip& clip = asset.clips.at(clip_index);
  const Skeleton& skeleton = asset.skeleton;
  const std::size_t n = skeleton.size();
  PoseSamples samples;
  samples.times.assign(times.begin(), times.end());
  std::vector<Transform> local(n);
  std::vector<SoaTransform> soa(soa_group_count(n));
  CompiledSamplingContext context(compiled);
  SamplingCursor cursor(clip);
  const MorphLayout morphs = MorphLayout::build(asset.meshes);
  for (float t : times) {
    const float wrapped = wrap_time(t, clip.duration(), wrap);
    sample_compiled(compiled, skeleton, wrapped, context, soa, local);
    std::vector<Mat4> world(n);
    (void)local_to_model(skeleton, local, world);
    samples.world.push_back(std::move(world));
    std::vector<float> weights(morphs.default_weights().begin(), morphs.default_weights().end());
    if (clip.weight_count() <= weights.size())
      (void)sample_weight_tracks(clip, wrapped, cursor, weights);
    samples.weights.push_back(std::move(weights));
  }
  return samples;
}

}  // namespace marrow::cli
