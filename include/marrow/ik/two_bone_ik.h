/// @file
/// Two-bone IK (legs, arms): turns a start joint (hip, shoulder) and a middle joint (knee, elbow)
/// so that an end joint (ankle, wrist) reaches a target, with the middle joint bending towards a
/// pole vector. An ozz-style job: input spans, parameters, output span, validate() then run();
/// run() allocates nothing, throws nothing and makes no virtual call.
///
/// Everything is in model space (the space of `model`). The solution is analytic:
///  1. the distance d from start to target is clamped to what the chain can reach,
/// @code
///     [|l1 - l2|, l1 + l2], and softened near full extension (soft_limit);
/// @endcode
///  2. the middle joint turns about its hinge so that |end - start| = d;
///  3. the start joint turns the end onto the line towards the target, then twists about that
/// @code
///     line so the middle joint lies in the half-plane of the pole vector.
/// @endcode
/// Both corrections are written back into the local rotations of `start` and `mid`, so that
/// local-to-model of `local` puts the end joint at the target: the hierarchy stays valid and the
/// joints between start and mid, and below end, follow. The model matrices are left as they were
/// (stale for start's subtree): run LocalToModelJob with `from` = `start`
/// (marrow/pose/local_to_model.h) before reading them again.
///
/// Exact when the chain's scales are uniform (any uniform scale, such as a 0.01 armature); with a
/// non-uniform scale above the chain the rotations are right but the reach is approximate.
#pragma once

#include <span>

#include "marrow/base/error.h"
#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

struct TwoBoneIkJob {
  const Skeleton* skeleton = nullptr;
  /// `mid` must lie below `start` and `end` below `mid` (other joints may sit between them, such
  /// as twist bones; they turn with their parents).
  JointIndex start = 0, mid = 0, end = 0;
  /// Where the end joint should go, in model space.
  Vec3 target{0, 0, 0};
  /// Model-space direction the middle joint bends towards (a knee's forward). Only its part
  /// perpendicular to the start-target line counts. Zero, or parallel to that line: the chain
  /// keeps the plane it bends in now.
  Vec3 pole_vector{0, 0, 0};
  /// Optional hinge of the middle joint in its own local frame (a knee's axis); positive rotation
  /// about it must bend the chain. Zero: the hinge is the normal of the plane the chain bends in
  /// now, or, for a straight chain, the one that bends it towards the pole vector.
  Vec3 mid_axis{0, 0, 0};
  /// How much of the correction is applied, in [0, 1] (slerp from the input pose).
  float weight = 1;
  /// In (0, 1]: the fraction of the chain's length l1 + l2 from which the reach is eased so the
  /// chain approaches full extension smoothly instead of snapping straight. 1: no easing, the
  /// chain straightens exactly at l1 + l2.
  float soft_limit = 1;

  /// Current model matrices: start's, mid's and end's must agree with `local` (as
  /// LocalToModelJob makes them). Read only; a separate buffer from `local` (other types, so they
  /// cannot alias).
  std::span<const Mat4> model{};
  /// The local pose, one per joint: the rotations of `start` and `mid` are rewritten.
  std::span<Transform> local{};
  /// Optional: set to whether the end joint reached the target (within 1e-4 of the chain length);
  /// false when it was out of reach, eased by the soft limit, or weight < 1.
  bool* reached = nullptr;

  /// An error naming the first wrong input, checked in this order ("TwoBoneIkJob: mid: is not a
  /// joint below start"), or ok:
  /// - `skeleton`: null;
  /// - `model`, then `local`: shorter than the skeleton's joint count;
  /// - `start`: not a joint of the skeleton;
  /// - `mid`: not a joint below `start`; `end`: not a joint below `mid`;
  /// - `target`, `pole_vector`, `mid_axis`: not finite;
  /// - `weight`: not in [0, 1]; `soft_limit`: not in (0, 1] (NaN is in neither);
  /// - `model`: start's, mid's or end's matrix is not finite.
  Status validate() const;
  /// Returns false, changing nothing, when validate() fails (a target at NaN or infinity is a
  /// no-op). Degenerate chains never produce NaN: a zero-length bone leaves the middle joint
  /// alone and only aims the start joint; a target on the start joint keeps the chain's current
  /// direction.
  bool run() const;
};

}  // namespace marrow
