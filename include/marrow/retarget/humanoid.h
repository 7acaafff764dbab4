// The humanoid profile: which joint of a skeleton is the hips, the spine, the left forearm...
// found from the joint names of the common naming schemes (Mixamo "mixamorig:", the CMU BVH
// names, 3ds Max Biped "Bip01 L Thigh", ProAnimationBank's FBX/Collada, "LeftCollar"/"LeftHip"
// BVH exports) and, where names fail, from the hierarchy's shape. Setup-time: allocates.
//
// Parts: hips; the spine chain (the joints strictly between the hips and the neck); the neck
// chain (from the neck to the head, possibly empty); head; and per side shoulder (clavicle),
// upper arm, forearm, hand, thigh, shin, foot, toe. The hips and both legs' thigh, shin and foot
// are required; every other part may be missing.
//
// Names. A name is cut at its last ':' (namespaces such as "mixamorig:"), loses a leading
// "Bip01"/"Bip001", and is split into words at separators and case changes ("LHipJoint" is
// L Hip Joint). A word "left"/"l" or "right"/"r" (or a leading "Left"/"Right" glued to the next
// word, as ProAnimationBank's "Lefthand") gives the side; the rest, lower-cased with trailing
// digits dropped, is looked up: "upleg", "upperleg", "thigh" or a sided "hip" are thighs; "leg",
// "lowerleg", "calf", "shin", "knee" shins; "foot", "ankle" feet; "toebase", "toe", "toes",
// "ball", "footthumb" toes; "shoulder", "clavicle", "collar" shoulders; "arm", "upperarm" upper
// arms; "forearm", "lowerarm", "elbow" forearms; "hand", "wrist" hands; a sideless "hips",
// "hip", "pelvis" the hips; "spine", "lowerback", "chest", "upperchest", "ab", "abdomen",
// "torso" the spine; "neck" the neck; "head" the head. Names ending in "end", "nub", "tip" or
// "top" are markers, never parts.
//
// Hierarchy. Candidates are then checked against each other: a forearm must lie below its upper
// arm, and so on. The hips is the deepest hips candidate above both thighs; a limb missing a
// named part takes the parent of the part below it (a BVH "LeftShoulder" under "LeftCollar" is
// an upper arm, since "LeftElbow" is the forearm below it).
//
// Shape. When names do not give the hips and both legs, the skeleton is read by its shape
// alone: the hips is a joint with two mirror-image subtrees (legs: same joint count and depth,
// lengths within 15%) and a third one (the spine) holding a joint with two more mirror-image
// subtrees (arms) and a third (neck and head). Along a leg's longest path the two longest
// consecutive bones are the thigh and the shin, then come the foot and, if it has a child, the
// toe. Along an arm's, the hand is the first joint where the path branches (fingers), or where
// none does, the end of the two longest consecutive bones; before it come the forearm, the upper
// arm and, if any, the shoulder.
// Left is told from right by the feet's forward direction (ankle to the joint after it) and the
// up direction (hips to head); with nothing after the ankles, +z is taken as forward (glTF's
// convention).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/math/transform.h"
#include "marrow/math/vec3.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

enum class HumanoidPart : std::uint8_t {
  kHips,
  kSpine,  // a chain
  kNeck,   // a chain
  kHead,
  kLeftShoulder,
  kLeftUpperArm,
  kLeftForearm,
  kLeftHand,
  kRightShoulder,
  kRightUpperArm,
  kRightForearm,
  kRightHand,
  kLeftThigh,
  kLeftShin,
  kLeftFoot,
  kLeftToe,
  kRightThigh,
  kRightShin,
  kRightFoot,
  kRightToe,
};
inline constexpr std::size_t kHumanoidPartCount = 20;

// "hips", "spine", "neck", "head", "left_shoulder", "left_upper_arm", "left_forearm",
// "left_hand", "left_thigh", "left_shin", "left_foot", "left_toe" and the right_ ones: the names
// used by JSON maps.
std::string_view to_string(HumanoidPart part);
std::optional<HumanoidPart> humanoid_part_from_string(std::string_view name);
constexpr bool is_chain(HumanoidPart part) {
  return part == HumanoidPart::kSpine || part == HumanoidPart::kNeck;
}

enum class PartSource : std::uint8_t { kMissing, kName, kShape, kExplicit };

// A skeleton's humanoid parts.
struct HumanoidRig {
  // Per part: one joint, or for the chains the joints root first; empty when missing.
  std::array<std::vector<JointIndex>, kHumanoidPartCount> parts;
  std::array<PartSource, kHumanoidPartCount> found_by{};

  const std::vector<JointIndex>& operator[](HumanoidPart p) const {
    return parts[static_cast<std::size_t>(p)];
  }
  // The part's joint (a chain's first), or kNoParent when missing.
  JointIndex joint(HumanoidPart p) const {
    const std::vector<JointIndex>& j = (*this)[p];
    return j.empty() ? kNoParent : j.front();
  }
  bool has(HumanoidPart p) const { return !(*this)[p].empty(); }
  // Every joint of every part, sorted.
  std::vector<JointIndex> mapped_joints() const;
};

// Parts named by the caller (a JSON map's "source" or "target" section): joint names per part.
// A chain takes its joints root first; any other part exactly one.
struct HumanoidPartNames {
  HumanoidPart part = HumanoidPart::kHips;
  std::vector<std::string> joints;
};

struct HumanoidMatchOptions {
  bool use_names = true;  // false: the hierarchy's shape alone (for tests and odd rigs)
  // Parts given explicitly; the rest is matched around them.
  std::vector<HumanoidPartNames> explicit_parts;
  // The pose to read positions from (one per joint); empty: the skeleton's rest pose.
  std::span<const Transform> pose{};
};

// The humanoid parts of `skeleton`. Errors name `where` and what is missing or wrong: no hips
// ("no hips: no joint is named like hips and no joint has two leg-like subtrees"), a leg without
// its thigh, shin or foot, an explicit part naming a joint the skeleton lacks, an explicit chain
// whose joints are not one parent chain, a joint given to two parts.
Result<HumanoidRig> match_humanoid(const Skeleton& skeleton,
                                   const HumanoidMatchOptions& options = {},
                                   std::string_view where = "skeleton");

// The joints no part took, in skeleton order (fingers, end markers, helper joints...).
std::vector<JointIndex> unmapped_joints(const Skeleton& skeleton, const HumanoidRig& rig);

}  // namespace marrow
