// The argument check shared by the setup functions that compare a clip with a reference pose
// (additive clips, masks from clips). Private to src/pose.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::detail {

// An error naming `where` when the clip animates more joints than the skeleton has or the
// reference pose has fewer; nothing when they fit.
inline std::optional<Error> check_clip_and_reference(const Skeleton& skeleton, const Clip& clip,
                                                     std::span<const Transform> reference,
                                                     const std::string& where) {
  const std::size_t n = skeleton.size();
  if (clip.joint_count() > n) {
    return make_error(where, "clip is for " + std::to_string(clip.joint_count()) +
                                 " joints, the skeleton has " + std::to_string(n));
  }
  if (reference.size() < n) {
    return make_error(where, "reference pose has " + std::to_string(reference.size()) +
                                 " joints, the skeleton has " + std::to_string(n));
  }
  return std::nullopt;
}

}  // namespace marrow::detail
