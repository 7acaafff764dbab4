// `marrow retarget SOURCE_CLIP_FILE TARGET_FILE [--map M.json] -o OUT.glb`: plays the source
// file's clips on the target file's skeleton (docs/retargeting.md) and writes the target with
// them. The mapping, what stays unmapped and the root scale are printed; a failure leaves no
// output file behind.
#include <algorithm>
#include <cctype>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/io/retarget_asset.h"
#include "marrow/io/retarget_map_json.h"
#include "marrow/io/save.h"
#include "marrow/retarget/retargeter.h"

namespace marrow::cli {
namespace {

struct RetargetCommandOptions {
  LoadOptions load;
  std::string source_file;
  std::string target_file;
  std::string output;
  std::string map_file;
  std::vector<std::string> clips;
  std::string source_pose = "auto";
  std::string target_pose = "auto";
  std::string root_scale = "hip-height";
  std::string method = "rest-relative";
  bool keep_clips = false;
  bool quiet = false;
};

std::string names(const Skeleton& s, const std::vector<JointIndex>& joints) {
  std::string out;
  for (JointIndex j : joints) out += (out.empty() ? "" : " ") + s.name(j);
  return out.empty() ? "-" : out;
}

// ": a, b, c" wrapped at 100 columns, then a newline.
void list(std::ostream& out, const Skeleton& s, const std::vector<JointIndex>& joints) {
  std::size_t column = 100;  // forces the first name onto a new line
  const char* separator = ":";
  for (JointIndex j : joints) {
    const std::string& n = s.name(j).empty() ? std::string("(unnamed)") : s.name(j);
    if (column + n.size() + 2 > 100) {
      out << separator << "\n    ";
      column = 4;
    } else {
      out << separator << " ";
      column += 2;
    }
    out << n;
    column += n.size();
    separator = ",";
  }
  out << "\n";
}

int run_retarget(const RetargetCommandOptions& o) {
  Result<Asset> source = load_input(o.source_file, o.load);
  if (!source) return report_error(source.error().message);
  Result<Asset> target = load_input(o.target_file, o.load);
  if (!target) return report_error(target.error().message);
  AssetRetargetOptions options;
  options.clips = o.clips;
  options.source_pose = o.source_pose;
  options.target_pose = o.target_pose;
  options.keep_target_clips = o.keep_clips;
  if (!o.map_file.empty()) {
    Result<RetargetMapSpec> read = read_retarget_map(o.map_file);
    if (!read) return report_error(read.error().message);
    options.map = std::move(read).value();
    options.map_where = o.map_file;
  }
  if (o.method == "copy-local") {
    options.retarget.method = RetargetMethod::kCopyLocal;
  } else if (o.method != "rest-relative") {
    return report_error("--method: '" + o.method + "' is not rest-relative or copy-local");
  }
  if (o.root_scale == "leg-length") {
    options.retarget.root_scale = RootScale::kLegLength;
  } else if (o.root_scale != "hip-height") {
    std::istringstream in(o.root_scale);
    float factor = 0;
    if (!(in >> factor) || !in.eof() || !(factor > 0) || !std::isfinite(factor)) {
      return report_error("--root-scale: '" + o.root_scale +
                          "' is not hip-height, leg-length or a positive number");
    }
    options.retarget.root_scale_factor = factor;
  }
  Result<AssetRetargetResult> retargeted = retarget_asset(*source, *target, options);
  if (!retargeted) return report_error(retargeted.error().message);
  const Asset& result = retargeted->asset;
  const RetargetMap* map = &retargeted->map;
  const RetargetMapSpec& spec = options.map;
  const std::vector<std::size_t>& clips = retargeted->clips;
  const std::string& source_ref_text = retargeted->source_reference;
  const std::string& target_ref_text = retargeted->target_reference;
  std::vector<std::string> notes;
  const Status st = save_asset(result, o.output, &notes);
  if (!st) return report_error(st.error().message);
  if (o.quiet) return 0;

  std::ostringstream report;
  const Skeleton& ss = source->skeleton;
  const Skeleton& ts = result.skeleton;
  report << "source: " << o.source_file << " (" << ss.size()
         << " joints, reference: " << source_ref_text << ")\n";
  report << "target: " << o.target_file << " (" << ts.size()
         << " joints, reference: " << target_ref_text << ")\n";
  if (map->humanoid) {
    report << "humanoid parts (source -> target):\n";
    for (std::size_t p = 0; p < kHumanoidPartCount; ++p) {
      const std::vector<JointIndex>& s = map->source_rig.parts[p];
      const std::vector<JointIndex>& t = map->target_rig.parts[p];
      if (s.empty() && t.empty()) continue;
      report << "  " << to_string(static_cast<HumanoidPart>(p)) << ": " << names(ss, s) << " -> "
             << names(ts, t) << "\n";
    }
  }
  for (const JointPairName& p : spec.joints) {
    report << "  joint: " << p.source << " -> " << p.target << "\n";
  }
  if (!map->matched_by_name.empty()) {
    report << "paired by equal names outside the profile: " << map->matched_by_name.size();
    list(report, ts, map->matched_by_name);
  }
  report << "target joints left at rest (unmapped): " << map->unmapped_target.size();
  list(report, ts, map->unmapped_target);
  report << "source joints not read: " << map->unmapped_source.size();
  list(report, ss, map->unmapped_source);
  const Quat a = retargeted->axes;
  report << "root scale: " << retargeted->root_scale << " (" << o.root_scale
         << "); axes source -> target: quaternion (" << a.x << ", " << a.y << ", " << a.z << ", "
         << a.w << ")\n";
  for (std::size_t i = 0; i < clips.size(); ++i) {
    report << "clip '" << source->clips[clips[i]].name()
           << "': " << result.clips[result.clips.size() - clips.size() + i].tracks().size()
           << " tracks\n";
  }
  for (const std::string& n : notes) std::cerr << "marrow: note: " << o.output << ": " << n << "\n";
  report << "wrote " << o.output << "\n";
  std::cout << report.str();
  return 0;
}

}  // namespace

void add_retarget_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<RetargetCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "retarget",
      "Play a file's clips on another file's skeleton (different names, rest poses and "
      "proportions) and write the target with them");
  cmd->add_option("source", options->source_file, "The file whose clips are retargeted")
      ->required();
  cmd->add_option("target", options->target_file, "The file whose skeleton receives them")
      ->required();
  cmd->add_option("-o,--out", options->output, "Output file (.glb, .gltf or .marrow)")->required();
  cmd->add_option("--map", options->map_file,
                  "JSON joint map overriding the automatic humanoid matching");
  cmd->add_option("--clip", options->clips, "Retarget only this clip (name or index; repeatable)");
  cmd->add_option("--source-pose", options->source_pose,
                  "Source reference pose: auto (a T-pose clip if any, else rest), rest, or a "
                  "clip whose first frame is used");
  cmd->add_option("--target-pose", options->target_pose, "Target reference pose, likewise");
  cmd->add_option("--root-scale", options->root_scale,
                  "Root translation scale: hip-height (default), leg-length or a number");
  cmd->add_option("--method", options->method,
                  "rest-relative (default) or copy-local (the naive name copy, for comparison)");
  cmd->add_flag("--keep-clips", options->keep_clips, "Keep the target file's own clips too");
  add_load_options(cmd, options->load, &options->quiet,
                   "Print nothing on success, reader notes included");
  set_example(*cmd, "marrow retarget Soldier.glb Xbot.glb -o xbot_walk.glb --clip Walk");
  cmd->callback([options, &run] { run = [options] { return run_retarget(*options); }; });
}

}  // namespace marrow::cli
