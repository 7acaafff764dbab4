// What BlendJob and SoaBlendJob share: the checks their validate() documents, layer by layer,
// and the morph-weight blend, which is plain numbers slot by slot in both layouts. Templates over
// the layer type: BlendLayer and SoaBlendLayer have the same weight, mask and morph fields.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <type_traits>

#include "base/job_problem.h"
#include "marrow/pose/blend.h"

namespace marrow::blend_detail {

// Joint weights at or below this take no part: far above the denormals, far below anything
// visible, so sums and their reciprocals stay in normal float range.
inline constexpr float kTinyWeight = 1e-20f;

inline float mask_weight(std::span<const float> mask, std::size_t j) {
  if (mask.empty()) return 1;
  const float m = mask[j];
  return m > 0 ? (m < 1 ? m : 1) : 0;  // NaN reads as 0
}

// The field names of one layer list, as the jobs' headers spell them, for validate()'s messages.
struct LayerNames {
  const char* list;
  const char* weight;
  const char* pose;
  const char* mask;
  const char* morph_weights;
  const char* morph_mask;
};
#define MARROW_BLEND_LAYER_NAMES(list)                                               \
  LayerNames {                                                                       \
    list, list "[].weight", list "[].pose", list "[].mask", list "[].morph_weights", \
        list "[].morph_mask"                                                         \
  }
inline constexpr std::array<LayerNames, 3> kLayerNames = {MARROW_BLEND_LAYER_NAMES("layers"),
                                                          MARROW_BLEND_LAYER_NAMES("overrides"),
                                                          MARROW_BLEND_LAYER_NAMES("additives")};
#undef MARROW_BLEND_LAYER_NAMES

// The first layer of a list that breaks a rule. `poses` is the pose length a layer needs (joints,
// or groups for structure-of-arrays poses), `joints` a mask's, `slots` a morph array's.
template <typename Layer>
detail::JobProblem find_layer_problem(std::span<const Layer> layers, const LayerNames& names,
                                      std::size_t poses, std::size_t joints, std::size_t slots) {
  if (layers.size() > kMaxBlendLayers) return {names.list, "holds more than kMaxBlendLayers"};
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    if (!std::isfinite(layer.weight)) return {names.weight, "is not finite", i};
    if (layer.pose.size() < poses) return {names.pose, "is shorter than rest_pose", i};
    if (!layer.mask.empty() && layer.mask.size() < joints) {
      return {names.mask, "is neither empty nor one weight per joint", i};
    }
    if (!layer.morph_weights.empty() && layer.morph_weights.size() < slots) {
      return {names.morph_weights, "is neither empty nor as long as rest_morph_weights", i};
    }
    if (!layer.morph_mask.empty() && layer.morph_mask.size() < slots) {
      return {names.morph_mask, "is neither empty nor as long as rest_morph_weights", i};
    }
  }
  return {};
}

// The checks both jobs' validate() document, in their order; `poses` as find_layer_problem's.
template <typename Job>
detail::JobProblem find_blend_problem(const Job& job, std::size_t poses, std::size_t joints) {
  const std::size_t slots = job.rest_morph_weights.size();
  if (job.output.size() < poses) return {"output", "is shorter than rest_pose"};
  if (job.morph_output.size() < slots) {
    return {"morph_output", "is shorter than rest_morph_weights"};
  }
  if (!std::isfinite(job.threshold) || job.threshold < kMinBlendThreshold) {
    return {"threshold", "is not finite or is below kMinBlendThreshold"};
  }
  const std::span<const std::remove_cvref_t<decltype(job.layers[0])>> lists[] = {
      job.layers, job.overrides, job.additives};
  for (std::size_t k = 0; k < 3; ++k) {
    if (auto problem = find_layer_problem(lists[k], kLayerNames[k], poses, joints, slots)) {
      return problem;
    }
  }
  return {};
}

// The weight-blend counterpart of BlendJob's joint loop, slot by slot: the normal average with
// the default filling in below the threshold, the override lerp and the additive steps, on plain
// numbers. Layers without morph weights take no part.
template <typename Layer>
void blend_morph_weights(std::span<const float> rest, float threshold,
                         std::span<const Layer* const> normal, std::span<const Layer* const> over,
                         std::span<const Layer* const> add, std::span<float> output) {
  for (std::size_t m = 0; m < rest.size(); ++m) {
    float sum = 0, acc = 0;
    int count = 0;
    float single = 0;
    for (const Layer* layer : normal) {
      if (layer->morph_weights.empty()) continue;
      const float w = layer->weight * mask_weight(layer->morph_mask, m);
      if (!(w > kTinyWeight)) continue;
      single = layer->morph_weights[m];
      acc += w * single;
      sum += w;
      ++count;
    }
    float result = rest[m];
    if (count == 1 && sum >= threshold) {
      result = single;  // exact: one layer averages to itself
    } else if (count > 0) {
      if (sum < threshold) {
        acc += (threshold - sum) * rest[m];
        sum = threshold;
      }
      result = acc / sum;
    }
    float o_sum = 0, o_acc = 0;
    for (const Layer* layer : over) {
      if (layer->morph_weights.empty()) continue;
      const float w = layer->weight * mask_weight(layer->morph_mask, m);
      if (!(w > kTinyWeight)) continue;
      o_acc += w * layer->morph_weights[m];
      o_sum += w;
    }
    if (o_sum > 0) {
      const float average = o_acc / o_sum;
      result = o_sum >= 1 ? average : result + (average - result) * o_sum;
    }
    for (const Layer* layer : add) {
      if (layer->morph_weights.empty()) continue;
      const float w = layer->weight * mask_weight(layer->morph_mask, m);
      if (std::fabs(w) > kTinyWeight) result += w * layer->morph_weights[m];
    }
    output[m] = result;
  }
}

}  // namespace marrow::blend_detail
