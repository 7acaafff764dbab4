/// @file
/// Aim / look-at IK: turns one joint (a head, an eye, a gun arm) so that an axis of it points at a
/// target, keeping another of its axes towards an up direction, within a cone limit. An
/// ozz-style job: validate() then run(); run() allocates nothing and throws nothing.
///
/// In model space, with p the joint's position and R its model rotation:
///  1. Aim: the ray from p + R*offset along R*forward must pass through the target. Without an
/// @code
///     offset that is the smallest rotation taking R*forward to target - p; with one (eyes ahead
///     of the head joint) the ray's length s is solved from |offset + s forward| = |target - p|.
/// @endcode
///  2. Twist: the joint turns about the line from p to the target (which keeps the target on the
/// @code
///     ray) so that R*up comes as close as it can to pole_vector.
/// @endcode
///  3. Limit: the aimed forward axis is kept within max_angle of the direction forward would
/// @code
///     have with the joint's rest local rotation under its current parent (a head cannot look
///     behind itself); a clamped aim misses the target by that much.
/// @endcode
/// The correction is written into the joint's local rotation (model matrices are left stale for
/// its subtree: see two_bone_ik.h). Exact for uniform scales.
#pragma once

#include <numbers>
#include <span>

#include "marrow/base/error.h"
#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

struct AimIkJob {
  const Skeleton* skeleton = nullptr;
  JointIndex joint = 0;
  Vec3 target{0, 0, 0};       ///< model space
  Vec3 forward{0, 0, 1};      ///< the aiming axis in the joint's local frame; any non-zero length
  Vec3 offset{0, 0, 0};       ///< where the aiming ray starts, in the joint's local frame
  Vec3 up{0, 0, 0};           ///< a local axis kept towards pole_vector; zero: no twist control
  Vec3 pole_vector{0, 1, 0};  ///< model space
  /// In [0, pi]: the widest angle between the aimed forward axis and its rest direction.
  float max_angle = std::numbers::pi_v<float>;
  float weight = 1;  ///< in [0, 1]

  std::span<const Mat4> model{};  ///< current; `joint`'s must agree with `local`; read only
  std::span<Transform> local{};   ///< `joint`'s rotation is rewritten
  /// Optional: whether the ray now passes through the target (within 1e-5 rad seen from the
  /// joint); false when limited, when the target lies inside the offset's reach (no ray from the
  /// offset can hit it) or when weight < 1.
  bool* reached = nullptr;

  /// An error naming the first wrong input, checked in this order ("AimIkJob: forward: is not
  /// finite or is zero"), or ok:
  /// - `skeleton`: null;
  /// - `model`, then `local`: shorter than the skeleton's joint count;
  /// - `joint`: not a joint of the skeleton;
  /// - `target`: not finite; `forward`: not finite or zero; `offset`, `up`, `pole_vector`: not
  ///   finite;
  /// - `max_angle`: not in [0, pi]; `weight`: not in [0, 1] (NaN is in neither);
  /// - `model`: the joint's matrix is not finite.
  Status validate() const;
  /// Returns false, changing nothing, when validate() fails. A target on the joint itself, or
  /// one the offset makes unreachable, aims as well as it can without NaN (see `reached`).
  bool run() const;
};

}  // namespace marrow
