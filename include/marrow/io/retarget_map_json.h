/// @file
/// Retarget maps as JSON files (docs/retargeting.md), read into a RetargetMapSpec:
///
/// @code
///   {
///     "automatic": true,
///     "source": {"hips": "Hips", "spine": ["LowerBack", "Spine", "Spine1"], "left_hand": "LHand"},
///     "target": {"left_toe": "mixamorig:LeftToeBase"},
///     "joints": {"Tail1": "tail_01", "Tail2": "tail_02"}
///   }
/// @endcode
///
/// Every member is optional. "automatic" (default true) lets the humanoid profile match what the
/// file does not say. "source" and "target" name humanoid parts (humanoid.h: "hips", "spine",
/// "neck", "head", "left_shoulder", "left_upper_arm", "left_forearm", "left_hand", "left_thigh",
/// "left_shin", "left_foot", "left_toe" and the right_ ones); a chain ("spine", "neck") takes an
/// array of joint names root first, any other part one name. "joints" pairs any source joint
/// with a target joint. A joint name may also be a path ("Hips/Torso", "/Body/Torso") or an
/// index ("#12") where names repeat (marrow/retarget/humanoid.h, find_joint).
///
/// Errors name the file and the JSON place: not JSON (with line and column), an unknown member
/// or part, a value of the wrong type, an empty name, a member given twice, JSON nested deeper
/// than 1,024 levels. Whether the names exist in the skeletons is checked by make_retarget_map.
#pragma once

#include <string>
#include <string_view>

#include "marrow/base/error.h"
#include "marrow/retarget/retarget_map.h"

namespace marrow {

Result<RetargetMapSpec> parse_retarget_map(std::string_view json, std::string_view where);
Result<RetargetMapSpec> read_retarget_map(const std::string& path);

}  // namespace marrow
