/// @file
/// Local-to-model: one forward pass over joints stored parent-before-child.
#pragma once

#include <span>

#include "marrow/math/mat4.h"
#include "marrow/math/soa_transform.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

struct LocalToModelJob {
  const Skeleton* skeleton = nullptr;
  std::span<const Transform> local;  ///< one per joint
  std::span<Mat4> model;             ///< one per joint, written
  Mat4 root = Mat4::identity();      ///< placed above every root joint

  bool validate() const;
  /// Returns false, writing nothing, when validate() fails.
  bool run() const;
};

/// The same from a structure-of-arrays local pose, with the TRS-to-matrix conversion done 8 joints
/// at a time and the products by the parents' matrices in SIMD registers (the SIMD level is chosen
/// at run time, simd.h), taken in Skeleton::depth_order() so that independent joints overlap. The
/// local matrices wait in a 16 KiB block on the stack (skeletons of up to 256 joints; larger ones
/// use `model` for it): mind it on small fiber or job stacks. Tested against LocalToModelJob, its
/// scalar reference.
///
/// `from` limits the work to one sub-hierarchy: with from = j, only j and its descendants are
/// recomputed (the other model matrices must already be in `model`, as after IK changed the local
/// transforms below j); kNoParent (the default) recomputes every joint.
struct SoaLocalToModelJob {
  const Skeleton* skeleton = nullptr;
  std::span<const SoaTransform> local;  ///< soa_group_count(skeleton->size()) groups
  std::span<Mat4> model;                ///< one per joint, written
  Mat4 root = Mat4::identity();         ///< placed above every root joint
  JointIndex from = kNoParent;
  /// Write `model` with non-temporal stores, which fill whole cache lines without reading them
  /// first and without evicting anything: for crowds whose model matrices are out of cache from one
  /// frame to the next and are read next by skinning or an upload, not now. The matrices are made
  /// in a stack block first, so this needs at most 256 joints and `model` aligned to 16 bytes (as
  /// std::vector's storage is); otherwise, and with `from`, the job writes as usual. The results
  /// are the same either way, bit for bit.
  bool streaming = false;

  bool validate() const;
  /// Returns false, writing nothing, when validate() fails.
  bool run() const;
};

/// The same as a call: model[j] = model[parent(j)] * matrix(local[j]).
bool local_to_model(const Skeleton& skeleton, std::span<const Transform> local,
                    std::span<Mat4> model);

}  // namespace marrow
