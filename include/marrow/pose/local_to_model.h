/// @file
/// Local-to-model: one forward pass over joints stored parent-before-child.
#pragma once

#include <span>

#include "marrow/base/error.h"
#include "marrow/math/mat4.h"
#include "marrow/math/soa_transform.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

/// The exact path, over an array-of-Transform pose: model[j] = model[parent(j)] * matrix(local[j])
/// (root * matrix(local[j]) for a root joint), one joint at a time in index order. The reference
/// SoaLocalToModelJob is tested against, and what the IK jobs use.
///
/// Which joints are recomputed (SoaLocalToModelJob takes the same fields with the same meaning,
/// as ozz-animation's LocalToModelJob does):
/// - `from`: kNoParent (the default) recomputes every joint; a joint index recomputes that joint
///   and its descendants only, and the other model matrices must already be in `model` (as after
///   IK changed the local transforms below `from`).
/// - `to`: kNoParent (the default) goes to the last joint; a joint index stops after that index.
///   Joints are stored parent-before-child, so a chain from `from` down to `to` is complete.
/// - `from_excluded`: with a `from`, leaves `from`'s own model matrix as it is and recomputes
///   its descendants from it (as after an IK job wrote that joint's model matrix directly).
/// Nothing outside the chosen joints is written.
///
/// validate() returns an error naming the first wrong input, in this order, and run() then
/// writes nothing ("LocalToModelJob: model: is shorter than the skeleton's joint count"):
/// - `skeleton`: null;
/// - `local`: shorter than the skeleton's joint count;
/// - `model`: shorter than the skeleton's joint count;
/// - `from`: neither kNoParent nor a joint of the skeleton;
/// - `to`: neither kNoParent nor a joint of the skeleton, or, with a `from`, below `from`.
///
/// Costs one matrix product per recomputed joint; with a `from`, also a walk up the parents of
/// each joint after it until an index at or below `from` (subtree membership, without a buffer).
/// Allocates nothing.
struct LocalToModelJob {
  const Skeleton* skeleton = nullptr;
  std::span<const Transform> local;  ///< one per joint
  std::span<Mat4> model;             ///< one per joint, written (only the joints chosen)
  Mat4 root = Mat4::identity();      ///< placed above every root joint
  JointIndex from = kNoParent;       ///< kNoParent: every joint; else this one and below
  JointIndex to = kNoParent;         ///< kNoParent: to the last joint; else stop after it
  bool from_excluded = false;        ///< with `from`: keep from's own model matrix

  Status validate() const;
  /// Returns false, writing nothing, when validate() fails.
  bool run() const;
};

/// The same from a structure-of-arrays local pose, with the TRS-to-matrix conversion done 8 joints
/// at a time and the products by the parents' matrices in SIMD registers (the SIMD level is chosen
/// at run time, simd.h), taken in Skeleton::depth_order() so that independent joints overlap. The
/// local matrices wait in a 16 KiB block on the stack (skeletons of up to 256 joints; larger ones
/// use `model` for it): mind it on small fiber or job stacks. Tested against LocalToModelJob, its
/// scalar reference. `from`, `to` and `from_excluded` as LocalToModelJob's; validate() refuses
/// the same cases in the same order (`local` counting groups: soa_group_count of the joints).
struct SoaLocalToModelJob {
  const Skeleton* skeleton = nullptr;
  std::span<const SoaTransform> local;  ///< soa_group_count(skeleton->size()) groups
  std::span<Mat4> model;                ///< one per joint, written (only the joints chosen)
  Mat4 root = Mat4::identity();         ///< placed above every root joint
  JointIndex from = kNoParent;          ///< LocalToModelJob::from
  JointIndex to = kNoParent;            ///< LocalToModelJob::to
  bool from_excluded = false;           ///< LocalToModelJob::from_excluded
  /// Write `model` with non-temporal stores, which fill whole cache lines without reading them
  /// first and without evicting anything: for crowds whose model matrices are out of cache from
  /// one frame to the next and are read next by skinning or an upload, not now. The matrices are
  /// made in a stack block first, so this needs at most 256 joints and `model` aligned to 16 bytes
  /// (as std::vector's storage is); otherwise, and with `from` or `to`, the job writes as usual.
  /// The results are the same either way, bit for bit.
  bool streaming = false;

  Status validate() const;
  /// Returns false, writing nothing, when validate() fails.
  bool run() const;
};

/// LocalToModelJob as a call: every joint, or with `from`, that joint and its descendants.
bool local_to_model(const Skeleton& skeleton, std::span<const Transform> local,
                    std::span<Mat4> model, JointIndex from = kNoParent);

}  // namespace marrow
