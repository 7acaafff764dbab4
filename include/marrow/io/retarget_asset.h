/// @file
/// Retargeting between two loaded files, as `marrow retarget` and Python's marrow.retarget do it:
/// the reference poses chosen (a T-pose clip, the rest pose, or a clip's first frame), the map
/// made (humanoid profile, or a JSON map's parts and joints), the clips played on the target
/// skeleton and handed back in a copy of the target asset. Errors name the file and the cause.
#pragma once

#include <string>
#include <vector>

#include "marrow/io/asset.h"
#include "marrow/io/retarget_map_json.h"
#include "marrow/retarget/retargeter.h"

namespace marrow {

struct AssetRetargetOptions {
  std::vector<std::string> clips;  ///< names or indices; empty: every clip of the source
  /// Each side's reference pose: "auto" (a clip named like a T-pose, else the rest pose, else
  /// when the rest pose does not stand the first clip's first frame), "rest", or a clip (name or
  /// index) whose first frame is taken.
  std::string source_pose = "auto";
  std::string target_pose = "auto";
  RetargetMapSpec map;             ///< empty: the humanoid profile by names and shape
  std::string map_where;           ///< names the map in errors (its file); empty: the two files
  RetargetOptions retarget;        ///< method and root scale; the reference poses are set here
  bool keep_target_clips = false;  ///< keep the target file's own clips before the new ones
};

struct AssetRetargetResult {
  Asset asset;  ///< the target with the retargeted clips (after its own when kept)
  RetargetMap map;
  std::string source_reference, target_reference;  ///< "rest pose", "clip 'TPose' at t = 0"
  float root_scale = 1;
  Quat axes;                       ///< source -> target model axes
  std::vector<std::size_t> clips;  ///< the source clips played, in order
};

/// The reference pose `choice` names on `asset` ("auto", "rest" or a clip), and in `described`
/// which it was.
Result<std::vector<Transform>> retarget_reference_pose(const Asset& asset,
                                                       const std::string& choice,
                                                       std::string& described);

Result<AssetRetargetResult> retarget_asset(const Asset& source, const Asset& target,
                                           const AssetRetargetOptions& options);

}  // namespace marrow
