// `marrow pose FILE [--clip NAME|INDEX] --times T1,T2,... [--format text|json]
// [--compiled [--error MM] [--distance CM] [--absolute]]`
#include <cmath>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "compiled_clips.h"
#include "layers.h"
#include "marrow/io/asset.h"
#include "marrow/io/pose_dump.h"

namespace marrow::cli {
namespace {

struct PoseOptions {
  std::string file;
  std::string clip;
  std::string clip_file;
  std::string times = "0";
  std::string format = "text";
  std::string wrap = "clamp";
  std::vector<std::string> layers;
  bool compiled = false;
  BoundOptions bound;
  LoadOptions load;
};

bool parse_times(const std::string& text, std::vector<float>& times, std::string& bad) {
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const float t = std::strtof(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !std::isfinite(t)) {
      bad = item;
      return false;
    }
    times.push_back(t);
  }
  return !times.empty();
}

int run_pose(const PoseOptions& o) {
  std::vector<float> times;
  std::string bad;
  if (!parse_times(o.times, times, bad))
    return report_error("--times: '" + bad + "' is not a time in seconds");
  WrapMode wrap = WrapMode::kClamp;
  if (o.wrap == "loop")
    wrap = WrapMode::kLoop;
  else if (o.wrap == "pingpong")
    wrap = WrapMode::kPingPong;

  Result<Asset> asset = load_input(o.file, o.load);
  if (!asset) return report_error(asset.error().message);
  if (!o.clip_file.empty()) {
    Status st = use_clips_of(*asset, o.clip_file, o.load, clips_named(o.clip, o.layers));
    if (!st) return report_error(st.error().message);
  }
  Result<PoseSource> source = PoseSource::create(*asset, o.clip, o.layers);
  if (!source) return report_error(source.error().message);
  const int clip_index = source->clip_index();
  PoseSamples samples;
  if (o.compiled) {
    // The compiled clip an archive holds, or one compiled now; said with its bound and the
    // largest error at the printed times, measured against the exact clip.
    if (!o.layers.empty())
      return report_error("--compiled plays one clip; it does not combine with --layer");
    if (clip_index < 0) return report_error(o.file + ": has no clip to compile");
    const auto clip = static_cast<std::size_t>(clip_index);
    bool from_archive = false;
    Result<CompiledClip> compiled = compiled_clip_for(*asset, clip, o.bound, &from_archive);
    if (!compiled) return report_error(compiled.error().message);
    samples = sample_world_compiled(*asset, clip, *compiled, times, wrap);
    std::vector<float> wrapped;
    for (float t : times) wrapped.push_back(wrap_time(t, compiled->duration(), wrap));
    const CompiledClipReport& report = compiled->report();
    const MeasuredError measured = measure_compiled_error(
        asset->clips[clip], *compiled, asset->skeleton, report.distance, wrapped);
    samples.compiled =
        PoseSamples::Compiled{.bound = report.bound,
                              .distance = report.distance,
                              .max_error = measured.max_error,
                              .origin = from_archive ? "stored in the archive" : "compiled now",
                              .description = describe_bound(report)};
  } else {
    samples = source->sample(times, wrap);
  }
  std::ostringstream out;  // printed whole, so an error never leaves half a document
  if (o.format == "json")
    write_pose_json(out, *asset, clip_index, samples);
  else
    write_pose_text(out, *asset, clip_index, samples);
  std::cout << out.str();
  return 0;
}

}  // namespace

void add_pose_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<PoseOptions>();
  CLI::App* cmd =
      app.add_subcommand("pose", "Print every node's global transform at given times of a clip");
  cmd->add_option("file", options->file, "Any file marrow reads")->required();
  add_load_options(cmd, options->load);
  cmd->add_option("--clip", options->clip, "Clip name or index (default: the first clip)");
  cmd->add_option("--clip-file", options->clip_file,
                  "Take the clips from this file instead, bound to FILE's skeleton by joint name");
  cmd->add_option("--times", options->times, "Comma-separated times in seconds (default 0)");
  cmd->add_option("--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--wrap", options->wrap, "Times past the clip: clamp, loop or pingpong")
      ->check(CLI::IsMember({"clamp", "loop", "pingpong"}));
  cmd->add_option("--layer", options->layers,
                  "Blend layer CLIP[:weight=W][:mode=normal|override|additive]"
                  "[:mask=ROOT|!ROOT|auto][:time=T][:ref=rest|T] (repeatable)");
  CLI::Option* compiled = cmd->add_flag(
      "--compiled", options->compiled,
      "Sample the clip's compiled form (the archive's, or compiled now under the bound below) "
      "instead of the exact clip, and say the bound");
  add_bound_options(cmd, options->bound);
  for (const char* name : {"--error", "--distance", "--absolute"})
    cmd->get_option(name)->needs(compiled);
  set_example(*cmd, "marrow pose Soldier.glb --clip Walk --times 0,0.25,0.5 --format json");
  cmd->callback([options, &run] { run = [options] { return run_pose(*options); }; });
}

}  // namespace marrow::cli
