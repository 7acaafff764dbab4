/// @file
/// Blending a stack of local poses into one (DESIGN.md §4), in the ozz job style: a struct of
/// input spans, parameters and an output span, with validate() and run(). run() allocates
/// nothing, takes no lock and makes no virtual call; it needs no scratch buffer because it walks
/// joint by joint and keeps each joint's accumulators in registers.
///
/// The stack, per joint j (docs/blending.md has the details and the reasons):
///  1. normal layers: weighted average with w = layer.weight * mask[j], normalized per joint;
/// @code
///     where the summed weight is below `threshold` the rest pose makes up the difference.
/// @endcode
///  2. override layers: their own weighted average, then lerped over step 1 by their summed
/// @code
///     weight at j clamped to 1.
/// @endcode
///  3. additive layers: delta poses applied on top, each raised to the power w (additive.h).
/// Forced joints (force.h) and local-to-model come after.
///
/// Morph-target weights go through the same three steps, slot by slot, when the job is given
/// rest_morph_weights: a normal weighted average (the default weights making up a summed weight
/// below the threshold), override layers lerped over it, and additive layers adding their weight
/// differences times their weight. Weights are plain numbers: averaged, never normalized.
#pragma once

#include <cstddef>
#include <span>

#include "marrow/base/error.h"
#include "marrow/math/transform.h"

namespace marrow {

/// One pose of a blend stack.
struct BlendLayer {
  /// One local transform per joint (at least as many as the rest pose). For additive layers, a
  /// delta pose: translation difference, rotation delta, scale ratio (additive.h).
  std::span<const Transform> pose{};
  /// Normal and override layers: a weight <= 0 takes no part. Additive layers: any finite
  /// weight, 0 takes no part; see apply_additive for weights outside [0, 1].
  float weight = 1;
  /// Empty: every joint at weight 1. Otherwise one weight per joint, clamped to [0, 1] (NaN
  /// reads as 0).
  std::span<const float> mask{};
  /// Morph-target weights, one per slot of the character's weight array (additive layers: weight
  /// differences, make_additive_clip). Empty: the layer takes no part in the weight blend.
  std::span<const float> morph_weights{};
  /// Empty: every slot at 1. Otherwise one weight per slot, clamped to [0, 1] (NaN reads as 0);
  /// mask.h builds one from a joint mask (morph_mask_from_joint_mask) or from a clip.
  std::span<const float> morph_mask{};
};

/// The most layers of each kind a job takes: run() gathers the live ones on its stack.
inline constexpr std::size_t kMaxBlendLayers = 64;
inline constexpr float kDefaultBlendThreshold = 0.1f;
/// Below this the normalization could divide by a denormal.
inline constexpr float kMinBlendThreshold = 1e-6f;

struct BlendJob {
  std::span<const Transform> rest_pose{};  ///< sets the joint count
  std::span<const BlendLayer> layers{};    ///< normal layers
  std::span<const BlendLayer> overrides{};
  std::span<const BlendLayer> additives{};
  /// Where a joint's summed normal weight w is below this, the rest pose joins the average with
  /// weight threshold - w, so the result slides continuously to the rest pose as w goes to 0.
  float threshold = kDefaultBlendThreshold;
  /// One per joint, written. May be the very same buffer as rest_pose or any layer's pose (each
  /// joint is read before it is written), but not a shifted overlap of one.
  std::span<Transform> output{};
  /// The default morph weights (sets the slot count; empty: no weight blend) and where the
  /// blended weights go, one per slot. The output may be the very same buffer as an input.
  std::span<const float> rest_morph_weights{};
  std::span<float> morph_output{};

  /// An error naming the first wrong input, checked in this order ("BlendJob: layers[2].pose:
  /// is shorter than rest_pose"), or ok:
  /// - `output`: shorter than rest_pose;
  /// - `morph_output`: shorter than rest_morph_weights;
  /// - `threshold`: not finite, or below kMinBlendThreshold;
  /// - then `layers`, `overrides` and `additives` in turn: the list holds more than
  ///   kMaxBlendLayers; a layer's `weight` is not finite; its `pose` is shorter than rest_pose;
  ///   its `mask` is neither empty nor one weight per joint; its `morph_weights` or `morph_mask`
  ///   is neither empty nor as long as rest_morph_weights.
  Status validate() const;
  /// Returns false, writing nothing, when validate() fails.
  bool run() const;
};

/// Per-channel interpolation: translation and scale lerped, rotation nlerped along the shortest
/// arc. t = 0 gives `a` and t = 1 gives `b` exactly.
Transform lerp(const Transform& a, const Transform& b, float t);

}  // namespace marrow
