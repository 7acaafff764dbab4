// `marrow check SKELETON_FILE CLIP_FILE [--clip NAME|INDEX] [--strict]`: whether the clips of one
// file fit the skeleton of another, by joint name (the seeds' compatibility check).
#include <iostream>
#include <sstream>

#include "commands.h"
#include "marrow/clip/binding.h"
#include "marrow/io/asset.h"

namespace marrow::cli {
namespace {

struct CheckOptions {
  std::string skeleton_file;
  std::string clip_file;
  std::string clip;
  bool strict = false;
  LoadOptions load;
};

void print_names(std::ostream& out, const std::vector<std::string>& names) {
  for (const std::string& n : names) out << "    " << (n.empty() ? "(unnamed)" : n) << "\n";
}

int run_check(const CheckOptions& o) {
  Result<Asset> skeleton_asset = load_input(o.skeleton_file, o.load);
  if (!skeleton_asset) return report_error(skeleton_asset.error().message);
  Result<Asset> clip_asset = load_input(o.clip_file, o.load);
  if (!clip_asset) return report_error(clip_asset.error().message);

  std::vector<std::size_t> clips;
  if (!o.clip.empty()) {
    Result<std::size_t> found = clip_asset->require_clip(o.clip);
    if (!found) return report_error(found.error().message);
    clips.push_back(*found);
  } else {
    for (std::size_t c = 0; c < clip_asset->clips.size(); ++c) clips.push_back(c);
  }
  if (clips.empty()) return report_error(o.clip_file + ": has no clips to check");

  const Skeleton& skeleton = skeleton_asset->skeleton;
  bool compatible = true;
  std::ostringstream out;
  out << "skeleton: " << o.skeleton_file << " (" << skeleton.size() << " joints)\n";
  for (std::size_t c : clips) {
    const Clip& clip = clip_asset->clips[c];
    const ClipBindingReport r = check_binding(clip, skeleton);
    const bool ok = r.complete() && (!o.strict || r.unanimated_joints.empty());
    compatible = compatible && ok;
    out << "clip '" << clip.name() << "' from " << o.clip_file << ": " << r.bound_tracks << " of "
        << r.total_tracks << " tracks bind: " << (ok ? "compatible" : "NOT compatible") << "\n";
    out << "  clip joints the skeleton lacks: " << r.missing_joints.size() << "\n";
    print_names(out, r.missing_joints);
    out << "  skeleton joints the clip does not animate (rest pose): " << r.unanimated_joints.size()
        << "\n";
    print_names(out, r.unanimated_joints);
  }
  std::cout << out.str();
  return compatible ? 0 : 2;
}

}  // namespace

void add_check_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Whether a file's clips fit another file's skeleton by joint name. Exit code 0: every "
      "track finds its joint; 2: some clip animates joints the skeleton lacks; 1: error");
  cmd->add_option("skeleton_file", options->skeleton_file, "The file whose skeleton is used")
      ->required();
  cmd->add_option("clip_file", options->clip_file, "The file whose clips are checked")->required();
  cmd->add_option("--clip", options->clip, "Check only this clip (name or index)");
  add_load_options(cmd, options->load);
  cmd->add_flag("--strict", options->strict,
                "Also fail (exit 2) when skeleton joints are left unanimated");
  set_example(*cmd, "marrow check Xbot.glb Soldier.glb --clip Walk");
  cmd->callback([options, &run] { run = [options] { return run_check(*options); }; });
}

}  // namespace marrow::cli
