// Retargeting between two loaded files (io/retarget_asset.h): what `marrow retarget` and
// Python's marrow.retarget share.
#include "marrow/io/retarget_asset.h"

#include <cctype>
#include <optional>

#include "marrow/clip/sampling.h"
#include "marrow/retarget/humanoid.h"

namespace marrow {
namespace {

// A clip whose name reads as a T-pose ("TPose", "T-Pose", "t_pose"), the usual reference.
std::optional<std::size_t> t_pose_clip(const Asset& asset) {
  for (std::size_t c = 0; c < asset.clips.size(); ++c) {
    std::string n;
    for (char ch : asset.clips[c].name()) {
      if (std::isalnum(static_cast<unsigned char>(ch))) {
        n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
      }
    }
    if (n == "tpose" || n.ends_with("tpose")) return c;
  }
  return std::nullopt;
}

// "auto" without a T-pose clip: a rest pose that does not stand (BVH exports whose offsets lie
// in the rig's bone frames) gives way to the first clip's first frame when that one stands.
std::optional<std::size_t> first_frame_if_rest_does_not_stand(const Asset& asset) {
  const Skeleton& s = asset.skeleton;
  if (asset.clips.empty() || match_humanoid(s).ok()) return std::nullopt;
  std::vector<Transform> first(s.rest_pose().begin(), s.rest_pose().end());
  SamplingCursor cursor(asset.clips.front());
  HumanoidMatchOptions at_first;
  at_first.pose = first;
  if (sample(asset.clips.front(), s.rest_pose(), 0, cursor, first) &&
      match_humanoid(s, at_first).ok()) {
    return 0;
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<Transform>> retarget_reference_pose(const Asset& asset,
                                                       const std::string& choice,
                                                       std::string& described) {
  const Skeleton& s = asset.skeleton;
  std::vector<Transform> pose(s.rest_pose().begin(), s.rest_pose().end());
  std::optional<std::size_t> clip;
  if (choice == "auto") {
    clip = t_pose_clip(asset);
    if (!clip) clip = first_frame_if_rest_does_not_stand(asset);
  } else if (choice != "rest") {
    clip = asset.find_clip(choice);
    if (!clip) return make_error(asset.source, "no clip '" + choice + "' for the reference pose");
  }
  if (!clip) {
    described = "rest pose";
    return pose;
  }
  const Clip& c = asset.clips[*clip];
  SamplingCursor cursor(c);
  if (!sample(c, s.rest_pose(), 0, cursor, pose)) {
    return make_error(asset.source, "clip '" + c.name() + "' does not fit the skeleton");
  }
  described = "clip '" + c.name() + "' at t = 0";
  return pose;
}

Result<AssetRetargetResult> retarget_asset(const Asset& source, const Asset& target,
                                           const AssetRetargetOptions& options) {
  if (source.clips.empty()) return make_error(source.source, "has no clips to retarget");
  AssetRetargetResult result;
  Result<std::vector<std::size_t>> chosen = source.require_clips(options.clips);
  if (!chosen) return chosen.error();
  result.clips = *chosen;
  Result<std::vector<Transform>> source_ref =
      retarget_reference_pose(source, options.source_pose, result.source_reference);
  if (!source_ref) return source_ref.error();
  Result<std::vector<Transform>> target_ref =
      retarget_reference_pose(target, options.target_pose, result.target_reference);
  if (!target_ref) return target_ref.error();
  const std::string where =
      options.map_where.empty() ? source.source + " -> " + target.source : options.map_where;
  Result<RetargetMap> map = make_retarget_map(source.skeleton, target.skeleton, options.map,
                                              *source_ref, *target_ref, where);
  if (!map) return map.error();
  result.map = std::move(map).value();
  RetargetOptions retarget = options.retarget;
  retarget.source_reference = *source_ref;
  retarget.target_reference = *target_ref;
  Result<Retargeter> retargeter =
      Retargeter::create(source.skeleton, target.skeleton, result.map, retarget);
  if (!retargeter) return make_error(where, retargeter.error().message);
  result.root_scale = retargeter->root_scale();
  result.axes = retargeter->axes();

  result.asset = target;
  Asset& out = result.asset;
  if (!options.keep_target_clips) {
    out.clips.clear();
    out.compiled_clips.clear();  // they were made for the clips just dropped
    out.rate_sources.clear();
  }
  // Each retargeted clip keeps its source's rate and where that rate came from.
  out.rate_sources.resize(out.clips.size(), RateSource::kFile);
  for (std::size_t c : result.clips) {
    Result<Clip> clip = retarget_clip(*retargeter, source.clips[c]);
    if (!clip) return make_error(source.source, clip.error().message);
    out.clips.push_back(std::move(clip).value());
    out.rate_sources.push_back(source.rate_source(c));
  }
  return result;
}

}  // namespace marrow
