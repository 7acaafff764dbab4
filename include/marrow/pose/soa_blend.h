/// @file
/// The blend stack of blend.h on structure-of-arrays poses, 8 joints per SIMD register, with the
/// same semantics, per joint, as BlendJob (the scalar reference it is tested against): normal
/// layers averaged with weight * mask and the rest pose filling a summed weight below the
/// threshold, override layers lerped over that by their summed weight clamped to 1, additive layers
/// applied as delta^w. Morph-target weights go through the same stack as BlendJob's, slot by slot.
/// run() allocates nothing, takes no lock, makes no virtual call; the SIMD level is chosen at run
/// time (simd.h).
#pragma once

#include <cstddef>
#include <span>

#include "marrow/math/soa_transform.h"
#include "marrow/pose/blend.h"

namespace marrow {

struct SoaBlendLayer {
  /// soa_group_count(joint_count) groups. For additive layers, a delta pose (additive.h).
  std::span<const SoaTransform> pose{};
  /// As BlendLayer::weight.
  float weight = 1;
  /// Empty: every joint at weight 1. Otherwise one weight per joint (at least joint_count),
  /// clamped to [0, 1], NaN read as 0 — the same masks BlendJob takes (mask.h).
  std::span<const float> mask{};
  /// As BlendLayer::morph_weights: one weight per slot (additive layers: weight differences), or
  /// empty for a layer that takes no part in the weight blend.
  std::span<const float> morph_weights{};
  /// As BlendLayer::morph_mask: empty, or one weight per slot clamped to [0, 1].
  std::span<const float> morph_mask{};
};

struct SoaBlendJob {
  std::size_t joint_count = 0;
  std::span<const SoaTransform> rest_pose{};  ///< soa_group_count(joint_count) groups
  std::span<const SoaBlendLayer> layers{};    ///< normal layers
  std::span<const SoaBlendLayer> overrides{};
  std::span<const SoaBlendLayer> additives{};
  float threshold = kDefaultBlendThreshold;
  /// soa_group_count(joint_count) groups, written. May be the very same buffer as rest_pose or a
  /// layer's pose (each group is read before it is written), not a shifted overlap of one.
  std::span<SoaTransform> output{};
  /// As BlendJob's: the default morph weights (sets the slot count; empty: no weight blend) and
  /// where the blended weights go, one per slot; the output may be the very same buffer as an
  /// input.
  std::span<const float> rest_morph_weights{};
  std::span<float> morph_output{};

  /// As BlendJob::validate, in the same order and with the same names ("SoaBlendJob: output: ..."),
  /// with poses counted in groups (soa_group_count(joint_count)), masks in joints, and first:
  /// - `rest_pose`: shorter than soa_group_count(joint_count).
  Status validate() const;
  /// Returns false, writing nothing, when validate() fails.
  bool run() const;
};

}  // namespace marrow
