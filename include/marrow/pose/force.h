/// @file
/// Forced joints (Cipher's ANIMTYPE_FORCE): transforms that replace joints of a local pose after
/// all blending and before local-to-model.
///
/// A model-space force is converted to local space through the parent's model matrix, which is
/// built from the (already forced) local pose along the parent chain:
/// @code
///   local = decompose(inverse(model(parent)) * matrix(target))
/// @endcode
/// so the pose stays a local pose that local-to-model, IK and anything else downstream read as
/// usual, and the descendants follow the forced joint by construction. This is exact when the
/// parent chain carries no non-uniform scale; otherwise inverse(parent) * target may hold shear
/// that TRS cannot, and the closest TRS (shear dropped, as decompose() does) is used.
#pragma once

#include <cstdint>
#include <span>

#include "marrow/base/error.h"
#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

enum class ForceSpace : std::uint8_t {
  kLocal,  ///< `transform` is the joint's new local transform
  kModel,  ///< `transform` is the joint's new model transform (its model matrix is the TRS)
};

struct ForcedJoint {
  JointIndex joint = 0;
  ForceSpace space = ForceSpace::kLocal;
  Transform transform{};
  /// In [0, 1]: how far the joint moves from its blended local transform to the forced one
  /// (lerp in local space, for fading a force in and out). 1 replaces it exactly.
  float weight = 1;
};

struct ForceJob {
  const Skeleton* skeleton = nullptr;
  /// In strictly increasing joint order, so that a parent is forced before its children and a
  /// model-space force on a child sees its parent's final place.
  std::span<const ForcedJoint> forces{};
  /// Placed above every root joint: the same matrix LocalToModelJob::root is given.
  Mat4 root = Mat4::identity();
  /// The local pose, one per joint, changed in place.
  std::span<Transform> pose{};

  /// An error naming the first wrong input, checked in this order ("ForceJob: forces[1].joint:
  /// is not above the previous force's joint"), or ok:
  /// - `skeleton`: null;
  /// - `pose`: shorter than the skeleton's joint count;
  /// - `root`: not finite;
  /// - then force by force: its `joint` is not a joint of the skeleton, or not above the previous
  ///   force's; its `space` is neither kLocal nor kModel; its `transform` is not finite; its
  ///   `weight` is not in [0, 1] (NaN is not).
  Status validate() const;
  /// Returns false, changing nothing, when validate() fails. A model-space force under a
  /// singular parent matrix (a zero scale) cannot be placed and is skipped.
  bool run() const;
};

/// The model matrix of `joint` computed from a local pose by walking its parent chain
/// (O(depth), no buffer). `pose` must hold every ancestor of `joint`.
Mat4 model_matrix_of(const Skeleton& skeleton, std::span<const Transform> pose, JointIndex joint,
                     const Mat4& root = Mat4::identity());

}  // namespace marrow
