// What `marrow compile` and `marrow pose --compiled` share: the error-bound options, compiling
// an asset's clip (or taking the compiled form an archive holds), and measuring a compiled clip
// against the exact sampler on the virtual-vertex metric (clip/compiled_clip.h). The measurement
// here is the command line's own, on times of its own choosing; it does not repeat the
// compiler's report but checks it.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/compiled_clip.h"
#include "marrow/io/asset.h"
#include "marrow/io/pose_dump.h"

namespace marrow::cli {

// The bound as a user gives it. Relative (the default): millimetres and centimetres on the
// character scaled to 1.8 m tall (the skeleton's extent), so files in centimetres or under a
// scaled root are treated alike. Absolute: model-space units of the file.
struct BoundOptions {
  float error = 0.1f;     // mm at 1.8 m, or model units with `absolute`
  float distance = 10.f;  // cm at 1.8 m, or model units with `absolute`
  bool absolute = false;
  bool pack = true;  // --no-pack: 8/16-bit groups only (CompileOptions::pack)
  // Whether any of the four was given (then a compiled clip an archive holds is not reused).
  bool given = false;
};

// --error MM, --distance CM, --absolute, --no-pack.
void add_bound_options(CLI::App* cmd, BoundOptions& options);

// The library's options for `options`; a bound of 0, below 0 or not a number, and a distance
// below 0 or not a number, are errors naming the option.
Result<CompileOptions> to_compile_options(const BoundOptions& options);

// "0.1 mm at 1.8 m (0.0001017 model units), virtual vertices 10 cm (0.1017)" for a report.
std::string describe_bound(const CompiledClipReport& report);
// A model-space length as millimetres on the character scaled to 1.8 m.
float millimetres_at_human_scale(float model_units, float extent);

// The largest virtual-vertex distance between the exact and the compiled clip over `times`.
struct MeasuredError {
  float max_error = 0;  // model units
  float time = 0;       // where it was found
  JointIndex joint = 0;
  std::size_t times = 0;  // how many times were measured
};

// Times that cover a clip: both ends and just inside them, every key time, three points inside
// every interval between key times and between the compiled clip's frames, and 256 random times.
std::vector<float> measurement_times(const Clip& clip, const CompiledClip& compiled);

// Samples both clips at each time (the exact one with sampling.h, the compiled one with
// CompiledSamplingJob), poses the hierarchy of each, and measures each joint and the points
// `distance` (model units) along its three axes.
MeasuredError measure_compiled_error(const Clip& clip, const CompiledClip& compiled,
                                     const Skeleton& skeleton, float distance,
                                     std::span<const float> times);

// A clip's compiled form: the one `asset` holds (from an archive) unless `options.given`, else
// compiled now. `from_archive` says which.
Result<CompiledClip> compiled_clip_for(const Asset& asset, std::size_t clip,
                                       const BoundOptions& options, bool* from_archive = nullptr);

// Global transforms of the compiled clip at each time (wrapped by `wrap`), like sample_world
// (io/pose_dump.h) for the exact clip. Morph weights come from the exact clip: a compiled clip
// holds joint channels only.
PoseSamples sample_world_compiled(const Asset& asset, std::size_t clip,
                                  const CompiledClip& compiled, std::span<const float> times,
                                  WrapMode wrap);

}  // namespace marrow::cli
