/// @file
/// Chain IK for tails, spines, tentacles: FABRIK (Aristidou and Lasenby, "FABRIK: A fast,
/// iterative solver for the Inverse Kinematics problem", 2011). An ozz-style job: validate()
/// then run(); run() allocates nothing (the chain lives on the stack, at most kMaxChainJoints
/// joints) and throws nothing.
///
/// Why FABRIK rather than CCD: it works on positions, so each iteration is two passes of
/// normalizations with no trigonometry; it spreads a bend over the whole chain, where CCD curls
/// the joints near the tip first and needs many more iterations on long chains (a tail of ten
/// bones); and an unreachable target gives the straight chain pointing at it in one step. It
/// does not know joint limits, which tails and spines rarely need; use TwoBoneIkJob where a
/// hinge matters.
///
/// Model space in, local rotations out: the solved joint positions become, joint by joint from
/// the root, the smallest rotation taking each bone to its new direction (so the twist about a
/// bone is kept), written into the local rotations of every joint of the chain but the tip.
/// Model matrices are left stale for the chain's subtree (see two_bone_ik.h).
#pragma once

#include <cstddef>
#include <span>

#include "marrow/base/error.h"
#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

inline constexpr std::size_t kMaxChainJoints = 64;

struct ChainIkJob {
  const Skeleton* skeleton = nullptr;
  /// The chain is `tip` and its parents up to `root` (both included): 2 to kMaxChainJoints
  /// joints. `root` stays in place; `tip` is the end effector.
  JointIndex root = 0;
  JointIndex tip = 0;
  Vec3 target{0, 0, 0};  ///< model space
  /// At most this many forward-and-backward passes...
  int max_iterations = 16;
  /// ...stopping as soon as the tip is this close to the target (model units).
  float tolerance = 1e-4f;
  float weight = 1;  ///< in [0, 1]: the solved positions are blended with the current ones

  std::span<const Mat4> model{};  ///< current; the chain's must agree with `local`; read only
  std::span<Transform> local{};   ///< the rotations of root .. tip's parent are rewritten
  /// Optional outputs: passes made, and whether the tip ended within `tolerance`.
  int* iterations = nullptr;
  bool* reached = nullptr;

  /// An error naming the first wrong input, checked in this order ("ChainIkJob: tip: is not a
  /// joint below root"), or ok:
  /// - `skeleton`: null;
  /// - `model`, then `local`: shorter than the skeleton's joint count;
  /// - `root`: not a joint of the skeleton;
  /// - `tip`: not a joint below `root`, or more than kMaxChainJoints joints below it;
  /// - `target`: not finite; `max_iterations`: negative; `tolerance`: not finite or negative;
  ///   `weight`: not in [0, 1] (NaN is not);
  /// - `model`: a matrix of the chain is not finite.
  Status validate() const;
  /// Returns false, changing nothing, when validate() fails. Zero-length bones keep their joints
  /// together and turn nothing.
  bool run() const;
};

}  // namespace marrow
