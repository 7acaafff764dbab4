/// @file
/// Left and right of a humanoid skeleton: which joint mirrors which, for mirroring motion across
/// the character's middle (docs/motion_matching.md, "Mirroring").
#pragma once

#include <vector>

#include "marrow/retarget/humanoid.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

/// Per joint, the joint on the other side: the humanoid parts pair left with right (shoulder,
/// upper arm, forearm, hand, thigh, shin, foot, toe); every other joint pairs with the joint whose
/// name is its own with the side swapped ("Left"/"Right", "left"/"right", "_L_"/"_R_", a "_L" or
/// ".L" or " L" ending, an "L_" beginning, and the same with R), when the skeleton has it and the
/// pairing goes both ways. Joints without a partner (the spine, the head) mirror onto themselves.
std::vector<JointIndex> mirror_joints(const Skeleton& skeleton, const HumanoidRig& rig);

}  // namespace marrow
