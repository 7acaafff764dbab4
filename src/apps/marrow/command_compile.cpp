// `marrow compile FILE [--error MM] [--distance CM] [--absolute] [--clip NAME]... [--out F.marrow]
// [--format text|json] [--metric marrow|acl]`: compiles every clip (clip/compiled_clip.h),
// measures each against the exact sampler itself (compiled_clips.h) and reports sizes, ratios
// (to raw float samples and to the exact clip) and the largest error; with
// --out, writes an archive holding the compiled clips beside the exact ones. A clip measured
// over its bound is an error and nothing is written.
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "commands.h"
#include "compiled_clips.h"
#include "marrow/io/asset.h"
#include "marrow/io/save.h"
#include "progress.h"

namespace marrow::cli {
namespace {

struct CompileCommandOptions {
  std::string file;
  std::vector<std::string> clips;
  std::string out;
  std::string format = "text";
  std::string metric = "marrow";
  BoundOptions bound;
  LoadOptions load;
};

struct ClipResult {
  std::size_t index = 0;
  std::size_t raw_bytes = 0;  // the exact clip as raw float samples (raw_sample_bytes)
  CompiledClip compiled;
  MeasuredError measured;
  std::optional<MeasuredError> acl;  // with --metric acl: vertices at ACL's shell distance
};

// ACL's default error metric: vertices 3 cm from each joint (its shell distance), here on the
// character scaled to 1.8 m like marrow's own options, so files in any unit compare alike.
constexpr float kAclShellCmAtHumanScale = 3.0f;

float acl_shell(const CompiledClipReport& report) {
  return kAclShellCmAtHumanScale / 180.0f * report.extent;
}

std::string bytes_text(std::size_t bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1);
  if (bytes < 10 * 1024)
    s << bytes << " B";
  else if (bytes < 10 * 1024 * 1024)
    s << bytes / 1024.0 << " KB";
  else
    s << bytes / (1024.0 * 1024.0) << " MB";
  return s.str();
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

// What the progress bar counts for a clip: the key count of its densest channel, at least 1.
std::uint64_t frames_of(const Clip& clip) {
  std::uint64_t frames = 1;
  for (const Track& t : clip.tracks()) frames = std::max<std::uint64_t>(frames, t.key_count);
  return frames;
}

double ratio(const ClipResult& r) {
  const std::size_t compiled = r.compiled.size_bytes();
  return compiled > 0 ? static_cast<double>(r.compiled.report().exact_bytes) / compiled : 0.0;
}

// Against raw float samples, the ratio ACL and most compression reports quote.
double raw_ratio(const ClipResult& r) {
  const std::size_t compiled = r.compiled.size_bytes();
  return compiled > 0 ? static_cast<double>(r.raw_bytes) / compiled : 0.0;
}

void print_text(const Asset& asset, const std::vector<ClipResult>& results,
                const std::string& out) {
  const CompiledClipReport& first = results.front().compiled.report();
  std::cout << asset.source << ": " << asset.skeleton.size() << " joints, extent " << first.extent
            << " model units; bound " << describe_bound(first) << "\n";
  std::size_t width = 4;
  for (const ClipResult& r : results) width = std::max(width, r.compiled.name().size());
  std::cout << std::left << std::setw(static_cast<int>(width) + 2) << "clip" << std::right
            << std::setw(11) << "raw" << std::setw(11) << "exact" << std::setw(11) << "compiled"
            << std::setw(8) << "raw:c" << std::setw(8) << "ratio"
            << "  max error (measured against the exact clip)\n";
  for (const ClipResult& r : results) {
    const CompiledClipReport& rep = r.compiled.report();
    std::cout << std::left << std::setw(static_cast<int>(width) + 2) << r.compiled.name()
              << std::right << std::setw(11) << bytes_text(r.raw_bytes) << std::setw(11)
              << bytes_text(rep.exact_bytes) << std::setw(11) << bytes_text(r.compiled.size_bytes())
              << std::setw(7) << fixed(raw_ratio(r), 1) << "x" << std::setw(7) << fixed(ratio(r), 2)
              << "x"
              << "  " << fixed(millimetres_at_human_scale(r.measured.max_error, rep.extent), 4)
              << " mm at 1.8 m (" << r.measured.max_error << " model units) at "
              << fixed(r.measured.time, 3) << " s, '" << asset.skeleton.name(r.measured.joint)
              << "', over " << r.measured.times << " times\n";
  }
  if (results.front().acl) {
    std::cout << "ACL's metric (vertices " << fixed(kAclShellCmAtHumanScale, 0)
              << " cm from each joint at 1.8 m; ACL's default precision is 0.01 cm):\n";
    for (const ClipResult& r : results) {
      const float cm = millimetres_at_human_scale(r.acl->max_error, first.extent) / 10;
      std::cout << "  " << std::left << std::setw(static_cast<int>(width)) << r.compiled.name()
                << std::right << "  " << fixed(cm, 4) << " cm at 1.8 m (" << r.acl->max_error
                << " model units) at " << fixed(r.acl->time, 3) << " s, '"
                << asset.skeleton.name(r.acl->joint) << "'\n";
    }
  }
  if (!out.empty()) std::cout << "wrote " << out << "\n";
}

void print_json(const Asset& asset, const std::vector<ClipResult>& results,
                const std::string& out) {
  const CompiledClipReport& first = results.front().compiled.report();
  nlohmann::json j;
  j["file"] = asset.source;
  j["joints"] = asset.skeleton.size();
  j["extent"] = first.extent;
  j["bound"] = first.bound;
  j["bound_mm_at_1_8_m"] = millimetres_at_human_scale(first.bound, first.extent);
  j["distance"] = first.distance;
  j["out"] = out.empty() ? nlohmann::json(nullptr) : nlohmann::json(out);
  j["clips"] = nlohmann::json::array();
  for (const ClipResult& r : results) {
    const CompiledClipReport& rep = r.compiled.report();
    j["clips"].push_back({
        {"index", r.index},
        {"name", r.compiled.name()},
        {"raw_bytes", r.raw_bytes},
        {"raw_ratio", raw_ratio(r)},
        {"exact_bytes", rep.exact_bytes},
        {"compiled_bytes", r.compiled.size_bytes()},
        {"ratio", ratio(r)},
        {"max_error", r.measured.max_error},
        {"max_error_mm_at_1_8_m", millimetres_at_human_scale(r.measured.max_error, rep.extent)},
        {"max_error_time", r.measured.time},
        {"max_error_joint", asset.skeleton.name(r.measured.joint)},
        {"measured_times", r.measured.times},
        {"compiler_max_error", rep.max_error},
    });
    if (r.acl) {
      j["clips"].back()["acl_metric"] = {
          {"shell", acl_shell(rep)},
          {"max_error", r.acl->max_error},
          {"max_error_cm_at_1_8_m", millimetres_at_human_scale(r.acl->max_error, rep.extent) / 10},
          {"max_error_time", r.acl->time},
          {"max_error_joint", asset.skeleton.name(r.acl->joint)},
      };
    }
  }
  std::cout << j.dump(1) << "\n";
}

int run_compile(const CompileCommandOptions& o) {
  // Everything a user can get wrong is checked before the file is read.
  Result<CompileOptions> options = to_compile_options(o.bound);
  if (!options) return report_error(options.error().message);
  if (!o.out.empty() && std::filesystem::path(o.out).extension() != ".marrow") {
    return report_error("--out " + o.out +
                        ": compiled clips are kept in marrow's archive only; name a .marrow file");
  }
  Result<Asset> asset = load_input(o.file, o.load);
  if (!asset) return report_error(asset.error().message);
  if (asset->clips.empty()) return report_error(o.file + ": has no clip to compile");
  Result<std::vector<std::size_t>> chosen_clips = asset->require_clips(o.clips);
  if (!chosen_clips) return report_error(chosen_clips.error().message);
  const std::vector<std::size_t>& chosen = *chosen_clips;

  std::vector<ClipResult> results;
  // Compiling and measuring a long clip takes seconds: a bar on a terminal, never in JSON,
  // counting frames (one per key of a clip's densest channel) so one long clip moves it too.
  std::uint64_t total_frames = 0;
  for (std::size_t c : chosen) total_frames += frames_of(asset->clips[c]);
  ProgressBar progress("compiling", total_frames, "frames", o.format != "json");
  std::uint64_t frames_before = 0;
  for (std::size_t c : chosen) {
    const Clip& clip = asset->clips[c];
    const std::uint64_t frames = frames_of(clip);
    // The compiler's own measurement is most of the work; the one below is one more pass.
    CompileOptions clip_options = *options;
    clip_options.progress = [&](float done) {
      progress.set(frames_before + static_cast<std::uint64_t>(done * 0.9f * frames));
    };
    Result<CompiledClip> compiled = CompiledClip::compile(clip, asset->skeleton, clip_options);
    if (!compiled) return report_error(o.file + ": " + compiled.error().message);
    ClipResult r;
    r.index = c;
    r.raw_bytes = raw_sample_bytes(clip, asset->skeleton.size());
    r.measured =
        measure_compiled_error(clip, *compiled, asset->skeleton, compiled->report().distance,
                               measurement_times(clip, *compiled));
    const float bound = compiled->report().bound;
    if (!(r.measured.max_error <= bound)) {
      return report_error(o.file + ": clip '" + clip.name() + "': the compiled clip is " +
                          std::to_string(r.measured.max_error) + " from the exact one at " +
                          std::to_string(r.measured.time) + " s (joint '" +
                          asset->skeleton.name(r.measured.joint) + "'), over the bound " +
                          std::to_string(bound) + "; nothing written");
    }
    if (o.metric == "acl") {
      r.acl =
          measure_compiled_error(clip, *compiled, asset->skeleton, acl_shell(compiled->report()),
                                 measurement_times(clip, *compiled));
    }
    r.compiled = std::move(compiled).value();
    results.push_back(std::move(r));
    frames_before += frames;
    progress.set(frames_before);
  }
  progress.clear();

  if (!o.out.empty()) {
    // Clips not compiled now keep what the input held (an archive's compiled clips).
    asset->compiled_clips.resize(asset->clips.size());
    for (const ClipResult& r : results) asset->compiled_clips[r.index] = r.compiled;
    std::vector<std::string> notes;  // what the archive could not keep as given
    if (Status st = save_asset(*asset, o.out, &notes); !st) return report_error(st.error().message);
    for (const std::string& n : notes) std::cerr << "marrow: note: " << o.out << ": " << n << "\n";
  }
  if (o.format == "json")
    print_json(*asset, results, o.out);
  else
    print_text(*asset, results, o.out);
  return 0;
}

}  // namespace

void add_compile_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<CompileCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Compile clips into the runtime's compact form under one error bound; report sizes and "
      "the error measured against the exact clips; write them into a .marrow archive");
  cmd->add_option("file", options->file, "Any file marrow reads")->required();
  add_load_options(cmd, options->load);
  add_bound_options(cmd, options->bound);
  cmd->add_option("--clip", options->clips,
                  "Compile this clip (name or index; repeatable); the others are left as they are");
  cmd->add_option("--out", options->out,
                  "Write the asset with its compiled clips to this .marrow archive");
  cmd->add_option("--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--metric", options->metric,
                  "acl: also measure each clip as ACL does (vertices 3 cm from each joint at "
                  "1.8 m), for comparing with ACL's figures")
      ->check(CLI::IsMember({"marrow", "acl"}));
  set_example(*cmd, "marrow compile Soldier.glb --error 0.1 --out soldier.marrow");
  cmd->callback([options, &run] { run = [options] { return run_compile(*options); }; });
}

}  // namespace marrow::cli
