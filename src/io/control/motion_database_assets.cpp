// build_motion_database: the clips of loaded files, the locomotion schema, and the mirror map
// from the humanoid match.
#include "marrow/io/motion_database_assets.h"

#include <algorithm>

#include "marrow/io/retarget_asset.h"
#include "marrow/retarget/mirror.h"

namespace marrow {
namespace {

constexpr const char* kWhere = "motion database";

// The clips chosen (all, or those named), each clip's start kept out of the search, and the
// actions in whole but never searched.
Result<std::vector<MotionClipDesc>> chosen_clips(std::span<const Asset* const> assets,
                                                 const MotionDatabaseRecipe& recipe) {
  const auto named = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  std::vector<MotionClipDesc> clips;
  std::string names;
  for (const Asset* a : assets) {
    if (a->clips.empty()) return Error{a->source + ": has no clips"};
    for (const Clip& c : a->clips) {
      names += (names.empty() ? "" : ", ") + c.name();
      if (named(recipe.actions, c.name())) {
        clips.push_back({&c, {{0, c.duration()}}});
      } else if (recipe.clips.empty() || named(recipe.clips, c.name())) {
        clips.push_back({&c, {{0, recipe.exclude_start}}});
      }
    }
  }
  for (const std::vector<std::string>* list : {&recipe.clips, &recipe.actions}) {
    for (const std::string& name : *list) {
      const bool found = std::any_of(clips.begin(), clips.end(), [&](const MotionClipDesc& d) {
        return d.clip->name() == name;
      });
      if (!found) return make_error(kWhere, "no clip '" + name + "' (clips: " + names + ")");
    }
  }
  return clips;
}

}  // namespace

Result<std::shared_ptr<const MotionDatabase>> build_motion_database(
    std::span<const Asset* const> assets, const MotionDatabaseRecipe& recipe) {
  if (assets.empty() || std::find(assets.begin(), assets.end(), nullptr) != assets.end())
    return make_error(kWhere, "give at least one asset, and no null one");
  Result<std::vector<MotionClipDesc>> clips = chosen_clips(assets, recipe);
  if (!clips) return clips.error();
  const Asset& first = *assets[0];
  MotionSchema schema = MotionSchema::locomotion(recipe.root, recipe.left_foot, recipe.right_foot);
  schema.sample_rate = recipe.sample_rate;
  for (MotionFeatureDesc& f : schema.features) {
    if (f.kind == MotionFeature::kTrajectoryPosition ||
        f.kind == MotionFeature::kTrajectoryDirection)
      f.weight = recipe.trajectory_weight;
  }
  if (recipe.mirror) {
    // The sides from a pose the character stands in (a T-pose clip, the rest pose, or the first
    // clip's first frame, as marrow retarget picks it).
    std::string described;
    Result<std::vector<Transform>> pose = retarget_reference_pose(first, "auto", described);
    if (!pose) return pose.error();
    HumanoidMatchOptions match;
    match.pose = *pose;
    Result<HumanoidRig> rig = match_humanoid(first.skeleton, match, first.source);
    if (!rig) return rig.error();
    schema.mirror = mirror_joints(first.skeleton, *rig);
  }
  return MotionDatabase::build(first.skeleton, *clips, schema);
}

}  // namespace marrow
