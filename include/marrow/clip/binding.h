/// @file
/// Whether a clip fits a skeleton, by joint name, and retargeting a clip to another skeleton that
/// names its joints the same way (the clip's tracks remember their joint names for this).
/// A track of an unnamed joint (glTF nodes may have no name) binds by place instead: to the
/// skeleton's joint of the same index, when that joint is unnamed too and the clip was made for a
/// skeleton with as many joints (a clip read with its own skeleton).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

struct ClipBindingReport {
  /// Joint names the clip animates that the skeleton lacks (each once, in track order). A track
  /// without a joint name that does not bind by place is listed as "#<joint index>".
  std::vector<std::string> missing_joints;
  /// Skeleton joints no track of the clip animates (they keep their rest pose), in skeleton order.
  std::vector<std::string> unanimated_joints;
  /// Tracks whose joint the skeleton has.
  std::size_t bound_tracks = 0;
  std::size_t total_tracks = 0;

  /// True when every track finds its joint.
  bool complete() const { return missing_joints.empty(); }
};

ClipBindingReport check_binding(const Clip& clip, const Skeleton& skeleton);

/// The clip with its tracks moved to the joints of `skeleton` that carry the same names; tracks
/// whose joint the skeleton lacks are dropped, and their joint names are written to `dropped`
/// when it is given. Duration, ticks per second and events are kept. Fails only when the result
/// would be invalid (two tracks of the clip land on the same joint channel).
/// Weight tracks move to the slots `morph_slots` gives the node of the same name (for instance
/// MorphLayout::slots(), skin/morph.h) in a weight array of `weight_count`; a weight track whose
/// node is missing, or has another number of targets there, is dropped and named in `dropped`
/// as "morph weights of 'NODE'".
Result<Clip> rebind_clip(const Clip& clip, const Skeleton& skeleton,
                         std::vector<std::string>* dropped = nullptr,
                         std::span<const MorphSlots> morph_slots = {},
                         std::size_t weight_count = 0);

}  // namespace marrow
