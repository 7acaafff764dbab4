/// @file
/// Which source joint drives which target joint. Built from the humanoid profile matched on both
/// skeletons (humanoid.h), from explicit parts and joint pairs (a JSON map: io/retarget_map_json.h
/// reads one), or both. Setup-time: allocates.
///
/// A map holds
///  - pairs: one source joint drives one target joint (the hips, each limb part, the head, and
/// @code
///    explicit pairs such as tails or props);
/// @endcode
///  - chains: the spine and the neck, whose joint counts may differ between the skeletons (a
/// @code
///    3-joint spine onto a 2-joint one); their motion is distributed along the chain by arc
///    length (retargeter.h);
/// @endcode
///  - with the automatic profile, also joints the profile does not know (fingers, twist bones)
/// @code
///    whose names agree on both sides once namespaces are cut ("mixamorig:LeftHandIndex1"), when
///    they hang below joints the map pairs with each other;
/// @endcode
///  - what stays unmapped on each side, listed for the user.
///
/// Bad maps are errors naming the place: a joint name the skeleton lacks, two source joints
/// driving one target joint (many-to-one), a pair that inverts the hierarchy (source A above B
/// while target(A) lies below target(B): following the hierarchy and the map around gives a
/// cycle), a skeleton without hips when the profile is used.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/retarget/humanoid.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

struct JointPairName {
  std::string source;
  std::string target;
};

/// What a map file (or code) says.
struct RetargetMapSpec {
  /// Match the humanoid profile on both skeletons (names, then shape) for whatever is not given.
  bool automatic = true;
  std::vector<HumanoidPartNames> source_parts;  ///< parts named explicitly on the source
  std::vector<HumanoidPartNames> target_parts;  ///< and on the target
  /// Direct pairs, any joints; a pair's target joint is taken out of the profile's mapping.
  std::vector<JointPairName> joints;
};

struct RetargetChain {
  std::string name;  ///< "spine", "neck"
  /// The mapped joint below the chain (the hips for the spine) and the one after its tip (the
  /// neck's first joint or the head; kNoParent when there is none), per side.
  JointIndex source_base = kNoParent, target_base = kNoParent;
  JointIndex source_end = kNoParent, target_end = kNoParent;
  std::vector<JointIndex> source, target;  ///< root first; either may be empty
};

struct RetargetPair {
  JointIndex source = 0;
  JointIndex target = 0;
};

struct RetargetMap {
  bool humanoid = false;  ///< the rigs below are matched
  HumanoidRig source_rig, target_rig;
  JointIndex source_hips = kNoParent, target_hips = kNoParent;  ///< the root the translation drives
  std::vector<RetargetPair> pairs;                              ///< hips first when there are hips
  /// Target joints of pairs found by equal names outside the profile (fingers, twist bones).
  std::vector<JointIndex> matched_by_name;
  std::vector<RetargetChain> chains;  ///< spine, then neck
  /// Joints nothing drives (target: they keep their rest rotation) or nothing reads (source).
  std::vector<JointIndex> unmapped_target, unmapped_source;
};

/// `source_pose` / `target_pose`: the reference poses positions are read from (for the shape
/// matching); empty: each skeleton's rest pose. `where` prefixes error messages (a file name).
Result<RetargetMap> make_retarget_map(const Skeleton& source, const Skeleton& target,
                                      const RetargetMapSpec& spec = {},
                                      std::span<const Transform> source_pose = {},
                                      std::span<const Transform> target_pose = {},
                                      std::string_view where = "retarget map");

}  // namespace marrow
