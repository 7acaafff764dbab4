/// @file
/// Additive animation. A delta is reference⁻¹ · pose, taken channel by channel:
/// @code
///   rotation     delta.rotation    = conjugate(reference.rotation) * pose.rotation
///   translation  delta.translation = pose.translation - reference.translation
///   scale        delta.scale       = pose.scale / reference.scale (per component)
/// @endcode
/// and applied on top of a base pose as base · delta^w:
/// @code
///   rotation     base.rotation * delta.rotation^w   (the delta's angle times w, same axis)
///   translation  base.translation + w * delta.translation
///   scale        base.scale * delta.scale^w         (per component)
/// @endcode
/// so applying the delta of `pose` against `reference` at w = 1 onto `reference` gives `pose`.
/// Weights outside [0, 1] extrapolate along the same curves (w = 2 doubles the angle, w = -1
/// undoes the delta); see apply_additive.
///
/// Additive clips can be built once (make_additive_clip): they hold delta tracks, so the frame
/// costs one sample and one compose per joint. Sample them over an identity pose, not over the
/// rest pose, since a channel without a track must read as "no change":
/// @code
///   std::vector<Transform> identity(skeleton.size());  // Transform{} is the identity
///   sample(additive_clip, identity, t, cursor, delta_pose);
/// @endcode
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

/// q^w: the same axis, the angle (taken along the shortest arc) times w. Equals
/// slerp(identity, q, w) for w in [0, 1] and extends it beyond.
Quat quat_pow(Quat q, float w);

/// The delta of one joint. A reference scale component of 0 gives a ratio of 1 (the pose's
/// scale on that axis cannot be expressed relative to a collapsed reference).
Transform additive_delta(const Transform& reference, const Transform& pose);

/// base · delta^w for one joint. A scale ratio r > 0 becomes r^w; a ratio <= 0 (a mirror or a
/// collapse) cannot be raised to a fractional power, so it is interpolated linearly,
/// 1 + w (r - 1), which still gives 1 at w = 0 and r at w = 1. The scaled ratio is clamped to
/// ±1e6 so that extrapolation never reaches infinity. w = 0 returns `base` exactly.
Transform apply_additive(const Transform& base, const Transform& delta, float w);

/// delta[j] = additive_delta(reference[j], pose[j]) for every joint of `delta`. Returns false,
/// writing nothing, when an input is shorter than `delta`.
bool make_additive_pose(std::span<const Transform> reference, std::span<const Transform> pose,
                        std::span<Transform> delta);

/// pose[j] = apply_additive(pose[j], delta[j], weight * mask[j]) in place, for every joint of
/// `pose`; an empty mask weighs every joint 1. Returns false, writing nothing, when `delta` or a
/// non-empty mask is shorter than `pose` or the weight is not finite. Per-frame safe.
bool apply_additive(std::span<Transform> pose, std::span<const Transform> delta, float weight,
                    std::span<const float> mask = {});

/// The full local pose of `clip` at `time` (rest pose plus the clip's channels): a reference for
/// additive deltas, such as "frame 0 of the clip". Allocates; setup-time.
Result<std::vector<Transform>> sample_reference_pose(const Skeleton& skeleton, const Clip& clip,
                                                     float time);

/// A new clip holding the deltas of `clip` against `reference` (one transform per joint of the
/// skeleton, e.g. skeleton.rest_pose() or sample_reference_pose(...)). Every track keeps its key
/// times and interpolation, and its deltas sample exactly to the deltas of the samples, for step,
/// linear and cubic-spline tracks alike. A channel `clip` does not animate holds its rest value;
/// where that differs from the reference it gets a one-key constant delta track. Name, duration,
/// ticks per second and events are kept. Setup-time.
/// Morph-weight tracks become tracks of weight differences, clip minus `reference_weights` (one
/// per slot of the weight array, e.g. the default weights, or the clip's weights at a frame); an
/// empty `reference_weights` takes the weights themselves as deltas (a reference of zero).
/// Weights the clip does not animate get no track: blended additively, they add nothing.
Result<Clip> make_additive_clip(const Clip& clip, const Skeleton& skeleton,
                                std::span<const Transform> reference,
                                std::span<const float> reference_weights = {});

}  // namespace marrow
