/// @file
/// Masks: a weight in [0, 1] per joint saying how much of each joint a layer owns. A mask is a
/// plain std::vector<float> indexed by joint; blend layers read it as a span. The builders here
/// run at setup time and allocate; nothing per frame does.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

/// How a subtree mask's weight changes along the chain below its root. The root gets
/// `root_weight`, joints `length` or more levels below it get `end_weight`, and joints between
/// are interpolated linearly by depth. With length 0 every joint of the subtree gets end_weight.
/// Example: {.root_weight = 0.25f, .end_weight = 1, .length = 3} on "Spine" gives Spine 0.25,
/// Spine1 0.5, Spine2 0.75 and 1 from there down (a spine that hands over to an upper-body
/// layer gradually). A fade towards the leaves is root_weight 1, end_weight 0.
struct SubtreeFalloff {
  float root_weight = 1;
  float end_weight = 1;
  std::uint32_t length = 0;
};

/// When a clip "moves" a joint (mask_from_clip): any channel further from the reference than
/// these, at any time of the clip.
struct MaskTolerance {
  float translation = 1e-4f;  ///< distance, in the skeleton's units
  float rotation = 1e-3f;     ///< angle in radians (the double cover is ignored)
  float scale = 1e-4f;        ///< largest absolute difference of a scale component
};

/// Every joint at `weight` (0 gives an all-zero mask).
std::vector<float> mask_uniform(const Skeleton& skeleton, float weight = 1);

/// The named joints at `weight`, every other joint at 0. An unknown name or a weight outside
/// [0, 1] is an error naming it.
Result<std::vector<float>> mask_from_names(const Skeleton& skeleton,
                                           std::span<const std::string_view> names,
                                           float weight = 1);
Result<std::vector<float>> mask_from_names(const Skeleton& skeleton,
                                           std::initializer_list<std::string_view> names,
                                           float weight = 1);

/// The joint and everything below it, weighted along the chain by `falloff`; 0 elsewhere.
Result<std::vector<float>> mask_from_subtree(const Skeleton& skeleton, JointIndex root,
                                             const SubtreeFalloff& falloff = {});
Result<std::vector<float>> mask_from_subtree(const Skeleton& skeleton, std::string_view root,
                                             const SubtreeFalloff& falloff = {});

/// 1 - w per joint (weights are clamped to [0, 1] first).
std::vector<float> mask_inverse(std::span<const float> mask);
/// The larger / smaller weight per joint. Masks of different sizes are an error.
Result<std::vector<float>> mask_union(std::span<const float> a, std::span<const float> b);
Result<std::vector<float>> mask_intersection(std::span<const float> a, std::span<const float> b);

/// 1 for every joint whose local transform, anywhere in `clip`, differs from `reference` beyond
/// `tolerance` in translation, rotation or scale; 0 for the others. Tracks are checked at each
/// key and at three points inside every key interval (a cubic spline can leave and come back
/// between keys). A channel the clip does not animate holds the skeleton's rest value, so it
/// counts as moved when the rest value differs from the reference. `reference` has one transform
/// per joint of the skeleton (for instance skeleton.rest_pose()).
Result<std::vector<float>> mask_from_clip(const Skeleton& skeleton, const Clip& clip,
                                          std::span<const Transform> reference,
                                          const MaskTolerance& tolerance = {});

/// Morph masks: a weight in [0, 1] per slot of a character's morph-weight array, read by blend
/// layers as BlendLayer::morph_mask.
///
/// Each slot takes the (clamped) joint-mask weight of the node whose meshes it drives, so a mask
/// built from names or a subtree selects the face's weights when it selects the face's node.
std::vector<float> morph_mask_from_joint_mask(std::span<const float> joint_mask,
                                              std::span<const MorphSlots> slots,
                                              std::size_t weight_count);
/// 1 for every slot `clip` moves further than `tolerance` from `reference_weights` (one per slot,
/// e.g. the default weights), checked at each key and three points inside every key interval;
/// 0 elsewhere.
Result<std::vector<float>> morph_mask_from_clip(const Clip& clip,
                                                std::span<const float> reference_weights,
                                                float tolerance = 1e-4f);

/// Angle in radians (0..pi) of the rotation taking `a` to `b`, precise near 0 (unlike an acos of
/// the dot product, which cannot resolve angles below ~1e-3 in float).
float rotation_angle(Quat a, Quat b);

}  // namespace marrow
