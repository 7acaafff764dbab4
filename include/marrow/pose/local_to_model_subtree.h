/// @file
/// Local-to-model for one subtree: after IK (or anything else) changes the local transform of a
/// joint, only that joint and the joints below it need new model matrices (ozz's LocalToModelJob
/// with `from`). The rest of `model` must already be current. This is the array-of-Transform form
/// the IK jobs use; SoaLocalToModelJob::from (local_to_model.h) does the same for SoA poses.
#pragma once

#include <span>

#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

struct LocalToModelSubtreeJob {
  const Skeleton* skeleton = nullptr;
  std::span<const Transform> local;  ///< one per joint (read; other types than model: no aliasing)
  /// One per joint. Read: the model matrix of `from`'s parent. Written: `from` and every joint
  /// below it up to index `to`; every other matrix is left as it was.
  std::span<Mat4> model;
  Mat4 root = Mat4::identity();  ///< above every root joint, as LocalToModelJob::root
  JointIndex from = 0;
  /// The last joint index updated (joints are parent-before-child, so a chain from `from` down
  /// to `to` is complete with this bound). kNoParent: to the end of the skeleton.
  JointIndex to = kNoParent;

  /// Skeleton set, spans long enough, `from` in range, `to` >= `from` (or kNoParent).
  bool validate() const;
  /// Returns false, writing nothing, when validate() fails. Allocates nothing. Costs one matrix
  /// product per updated joint plus, for each joint after `from`, a walk up its parents until an
  /// index below `from` (membership of the subtree, found without a buffer).
  bool run() const;
};

/// The same as a call: model of `from` and its subtree, from `local`.
bool local_to_model_subtree(const Skeleton& skeleton, std::span<const Transform> local,
                            std::span<Mat4> model, JointIndex from);

}  // namespace marrow
