/// @file
/// The humanoid profile: which joint of a skeleton is the hips, the spine, the left forearm...
/// found from the joint names of the common rig families and, where names fail, from the
/// hierarchy's shape. Setup-time: allocates.
///
/// Parts: hips; the spine chain (the joints strictly between the hips and the neck); the neck
/// chain (from the neck to the head, possibly empty); head; and per side shoulder (clavicle),
/// upper arm, forearm, hand, thigh, shin, foot, toe. The hips and both legs' thigh, shin and foot
/// are required; every other part may be missing.
///
/// Names. A name is cut at its last ':' or '|' (namespaces such as "mixamorig:", Maya paths),
/// loses a leading "Bip01"/"Bip001", and is split into words at separators and case changes
/// ("LHipJoint" is l hip joint); numbers are dropped ("spine_01", "Toe0"). A word "left", "l",
/// "lt" (or "right", "r", "rt") in any position gives the side, as does "left"/"right" glued to a
/// part word at either end ("Lefthand", "thighleft") or a glued "l"/"r" ("lhand"). The part word
/// is the longest run of words that spells one (the rightmost on ties): "upleg", "upperleg",
/// "thigh" or a sided "hip" are thighs; "leg", "lowerleg", "calf", "shin", "knee" shins; "foot",
/// "ankle" feet; "toebase", "toe", "toes", "ball", "footthumb" toes; "shoulder", "clavicle",
/// "collar", "collarbone", "scapula" shoulders; "arm", "upperarm", "uparm" upper arms;
/// "forearm", "lowerarm", "elbow" forearms; "hand", "wrist" hands; a sideless "hips", "hip",
/// "pelvis" the hips; "spine", "lowerback", "chest", "upperchest", "ab", "abdomen", "torso",
/// "waist" the spine; "neck" the neck; "head" the head. Any words may come before the part word
/// (prefixes: "CC_Base_", "B_", "null_", "DEF-", "Character1_"); after it only words such as
/// "jnt", "joint", "bone", "bind", "def". A name is no part when it ends in "end", "nub", "tip" or
/// "top" (an end marker); when a word marks a rig helper ("ik", "fk", "pole", "target", "ctrl",
/// "mch", "org", "socket", "prop", ...), a digit ("thumb", "index", "middle", "ring", "pinky",
/// "finger", "big", ...: fingers and toes), or for limb parts a bone segment ("twist", "roll",
/// "share", "bend", "corrective": twist and share bones; a neck or spine twist joint stays in its
/// chain).
///
/// Hierarchy. Each limb is filled from its named end upwards: the lower part is the closest joint
/// above the end named like it, else the end's parent unless that is named as another part; the
/// upper part likewise above the lower; among several named ends the chain with the most named
/// parts wins. A part named in a run ("thigh.L" above "thigh.L.001": a bone split in two) is the
/// run's top. An end parented away from its limb (a foot under the root, for IK) is matched by
/// geometry: the joint named like it nearest to where a named lower part's bone ends, within 1.5
/// upper-part lengths. The shoulder is the closest named one above the upper arm; the toe the
/// named one nearest below the foot. A joint claimed by both sides, or by an arm and a leg, is
/// no match. The hips is the deepest joint named like hips above both thighs and the upper body
/// (the named head, else where the arms meet): Character Creator's "CC_Base_Hip" above
/// "CC_Base_Pelvis", which holds only the legs. Without such a name, the common ancestor of the
/// thighs and the upper body. The head is the named one below the hips, else the end of the
/// longest path up from where the arms meet that holds no limb (less an end marker); the spine
/// and neck are the joints between, the neck from the first joint named like one.
///
/// Shape. When names do not give the hips and both legs, the skeleton is read by its shape
/// alone: the hips is a joint with two mirror-image subtrees (legs: same joint count and depth,
/// lengths within 15%), or a level or two above such a joint, and another subtree (the spine)
/// holding a joint with two more mirror-image subtrees (arms) and a third one (neck and head).
/// Along a leg's longest path the two longest consecutive bones are the thigh and the shin, then
/// come the foot and, if it has a child, the toe. Along an arm's, the hand is the first joint
/// where the path branches (fingers), or where none does, the end of the two longest consecutive
/// bones; before it come the forearm, the upper arm and, if any, the shoulder. Left is told from
/// right by the feet's forward direction (ankle to the joint after it) and the up direction (hips
/// to head); with nothing after the ankles, +z is taken as forward (glTF's convention).
///
/// Stance. A match is refused as no humanoid when, in the reference pose, the spine (hips to
/// head) leans more than 45 degrees from the up the legs give (feet to hips), or both hands lie
/// within a quarter leg length of the feet's height: a four-legged animal.
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
  kSpine,  ///< a chain
  kNeck,   ///< a chain
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

/// "hips", "spine", "neck", "head", "left_shoulder", "left_upper_arm", "left_forearm",
/// "left_hand", "left_thigh", "left_shin", "left_foot", "left_toe" and the right_ ones: the names
/// used by JSON maps.
std::string_view to_string(HumanoidPart part);
std::optional<HumanoidPart> humanoid_part_from_string(std::string_view name);
constexpr bool is_chain(HumanoidPart part) {
  return part == HumanoidPart::kSpine || part == HumanoidPart::kNeck;
}

enum class PartSource : std::uint8_t { kMissing, kName, kShape, kExplicit };

/// A skeleton's humanoid parts.
struct HumanoidRig {
  /// Per part: one joint, or for the chains the joints root first; empty when missing.
  std::array<std::vector<JointIndex>, kHumanoidPartCount> parts;
  std::array<PartSource, kHumanoidPartCount> found_by{};

  const std::vector<JointIndex>& operator[](HumanoidPart p) const {
    return parts[static_cast<std::size_t>(p)];
  }
  /// The part's joint (a chain's first), or kNoParent when missing.
  JointIndex joint(HumanoidPart p) const {
    const std::vector<JointIndex>& j = (*this)[p];
    return j.empty() ? kNoParent : j.front();
  }
  bool has(HumanoidPart p) const { return !(*this)[p].empty(); }
  /// Every joint of every part, sorted.
  std::vector<JointIndex> mapped_joints() const;
};

/// Parts named by the caller (a JSON map's "source" or "target" section): joint names per part.
/// A chain takes its joints root first; any other part exactly one.
struct HumanoidPartNames {
  HumanoidPart part = HumanoidPart::kHips;
  std::vector<std::string> joints;
};

struct HumanoidMatchOptions {
  bool use_names = true;  ///< false: the hierarchy's shape alone (for tests and odd rigs)
  /// Parts given explicitly; the rest is matched around them.
  std::vector<HumanoidPartNames> explicit_parts;
  /// The pose to read positions from (one per joint); empty: the skeleton's rest pose.
  std::span<const Transform> pose{};
  bool check_stance = true;  ///< refuse four-legged and lying skeletons (see Stance above)
  /// The section of a JSON map ("source" or "target") the error's map template is written for.
  std::string map_section;
};

/// The humanoid parts of `skeleton`. Explicit parts name joints as find_joint reads them. Errors
/// name `where` and the cause: what names found missing or contradictory ("no left foot below
/// the hips 'Hips' ('foot.L' is named like a left foot but has no left shin and left thigh above
/// it, ...)") and what the shape found; a joint given to two parts; the stance of a non-humanoid;
/// an explicit part naming a joint the skeleton lacks (or several), or a chain that is not one
/// parent chain. A failed match ends its message with a JSON map template (the parts found
/// filled in, "?" for the rest) the user can complete and pass back as a map.
Result<HumanoidRig> match_humanoid(const Skeleton& skeleton,
                                   const HumanoidMatchOptions& options = {},
                                   std::string_view where = "skeleton");

/// A joint by a map's reference: its name when one joint has it; "#12", the joint's index; or a
/// path of names separated by '/', a tail of the joint's ancestry ("Hips/Torso") or, with a
/// leading '/', all of it from the root. Errors: no such joint, an index out of range, a name or
/// path that several joints share (listing them with references that tell them apart).
Result<JointIndex> find_joint(const Skeleton& skeleton, std::string_view reference,
                              std::string_view where);

/// The shortest reference find_joint reads back as `joint`: its name when unique, else the
/// shortest unique tail of its path, else "#index".
std::string joint_reference(const Skeleton& skeleton, JointIndex joint);

/// A JSON map with one section ("source" or "target") naming every part of `rig`, "?" for parts
/// it lacks.
std::string humanoid_map_template(const Skeleton& skeleton, const HumanoidRig& rig,
                                  std::string_view section);

/// The joints no part took, in skeleton order (fingers, end markers, helper joints...).
std::vector<JointIndex> unmapped_joints(const Skeleton& skeleton, const HumanoidRig& rig);

}  // namespace marrow
