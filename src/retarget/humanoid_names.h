// How a joint name reads as a humanoid part: the naming schemes of Mixamo, CMU and other BVH
// exports, 3ds Max Biped, Character Creator / iClone, Unreal's mannequin, HumanIK, Blender and
// Rigify, AdvancedSkeleton, and names with a prefix of their own ("B_", "null_", "DEF-",
// "Character1_"). The rules are documented in marrow/retarget/humanoid.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "marrow/retarget/humanoid.h"

namespace marrow::humanoid_detail {

enum class Side : std::uint8_t { kNone, kLeft, kRight };

struct ParsedName {
  Side side = Side::kNone;
  std::string keyword;   // the part word found ("thigh", "upleg", "spine"), empty if none
  bool marker = false;   // an end marker ("HeadTop_End", "Bip01 L Toe0Nub")
  bool helper = false;   // a rig helper: IK target, pole, control, socket, prop
  bool segment = false;  // a segment helper of a bone: twist, roll, share, corrective
  bool digit = false;    // a finger or a toe digit ("LeftHandIndex1", "CC_Base_L_BigToe1")
};

// Words of a name: cut at separators and case changes ("LHipJoint" is l hip joint), lower case.
std::vector<std::string> split_words(std::string_view name);

ParsedName parse_name(std::string_view full_name);

// The part a parsed name stands for, if any.
std::optional<HumanoidPart> part_of(const ParsedName& name);

}  // namespace marrow::humanoid_detail
