#include "marrow/pose/blend.h"

#include <array>
#include <cmath>

#include "hemisphere.h"
#include "marrow/pose/additive.h"

namespace marrow {

namespace {

// Joint weights at or below this take no part: far above the denormals, far below anything
// visible, so sums and their reciprocals stay in normal float range.
constexpr float kTinyWeight = 1e-20f;

inline float mask_weight(std::span<const float> mask, std::size_t j) {
  if (mask.empty()) return 1;
  const float m = mask[j];
  return m > 0 ? (m < 1 ? m : 1) : 0;  // NaN reads as 0
}

// Running weighted sums of one joint. Each quaternion is flipped into the hemisphere of the sum
// so far (detail::align), so q and -q add up instead of cancelling: a term is never more than
// a hair (|cos| 1e-4) against the sum, the sum never collapses towards zero, and normalizing it
// never divides by zero.
struct Accumulator {
  Vec3 translation{0, 0, 0};
  Quat rotation{0, 0, 0, 0};
  Vec3 scale{0, 0, 0};
  float weight = 0;
  int count = 0;
  const Transform* last = nullptr;

  void add(const Transform& x, float w) {
    if (count == 0) {
      // The first term sets the hemisphere: nothing to align to yet.
      translation = x.translation * w;
      rotation = marrow::scale(x.rotation, w);
      scale = x.scale * w;
      weight = w;
    } else {
      translation += x.translation * w;
      Quat q = x.rotation;
      detail::align(rotation, q);
      rotation = marrow::add(rotation, marrow::scale(q, w));
      scale += x.scale * w;
      weight += w;
    }
    ++count;
    last = &x;
  }

  // The normalized average. The quaternion is divided by the weight before normalize() so its
  // squared length stays near 1 whatever the weights' magnitude.
  Transform average() const {
    if (count == 1) return *last;  // exact: one pose averages to itself
    const float inv = 1.0f / weight;
    return {translation * inv, normalize(marrow::scale(rotation, inv)), scale * inv};
  }
};

// Collects the layers that can contribute, so dead layers cost nothing per joint.
template <typename Live>
std::size_t gather(std::span<const BlendLayer> layers, Live live,
                   std::array<const BlendLayer*, kMaxBlendLayers>& out) {
  std::size_t n = 0;
  for (const BlendLayer& layer : layers) {
    if (live(layer.weight)) out[n++] = &layer;
  }
  return n;
}

bool layers_valid(std::span<const BlendLayer> layers, std::size_t joints, std::size_t slots) {
  if (layers.size() > kMaxBlendLayers) return false;
  for (const BlendLayer& layer : layers) {
    if (!std::isfinite(layer.weight) || layer.pose.size() < joints) return false;
    if (!layer.mask.empty() && layer.mask.size() < joints) return false;
    if (!layer.morph_weights.empty() && layer.morph_weights.size() < slots) return false;
    if (!layer.morph_mask.empty() && layer.morph_mask.size() < slots) return false;
  }
  return true;
}

// The weight-blend counterpart of the joint loop in BlendJob::run, slot by slot: the same
// normal average with the default filling in below the threshold, override lerp and additive
// steps, on plain numbers. Layers without morph weights take no part.
void blend_morph_weights(const BlendJob& job, std::span<const BlendLayer* const> normal,
                         std::span<const BlendLayer* const> over,
                         std::span<const BlendLayer* const> add) {
  const std::span<const float> rest = job.rest_morph_weights;
  for (std::size_t m = 0; m < rest.size(); ++m) {
    float sum = 0, acc = 0;
    int count = 0;
    float single = 0;
    for (const BlendLayer* layer : normal) {
      if (layer->morph_weights.empty()) continue;
      const float w = layer->weight * mask_weight(layer->morph_mask, m);
      if (!(w > kTinyWeight)) continue;
      single = layer->morph_weights[m];
      acc += w * single;
      sum += w;
      ++count;
    }
    float result = rest[m];
    if (count == 1 && sum >= job.threshold) {
      result = single;  // exact: one layer averages to itself
    } else if (count > 0) {
      if (sum < job.threshold) {
        acc += (job.threshold - sum) * rest[m];
        sum = job.threshold;
      }
      result = acc / sum;
    }
    float o_sum = 0, o_acc = 0;
    for (const BlendLayer* layer : over) {
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
    for (const BlendLayer* layer : add) {
      if (layer->morph_weights.empty()) continue;
      const float w = layer->weight * mask_weight(layer->morph_mask, m);
      if (std::fabs(w) > kTinyWeight) result += w * layer->morph_weights[m];
    }
    job.morph_output[m] = result;
  }
}

}  // namespace

Transform lerp(const Transform& a, const Transform& b, float t) {
  if (t <= 0) return a;
  if (t >= 1) return b;
  Quat qa = a.rotation, qb = b.rotation;
  detail::align(qa, qb);
  return {lerp(a.translation, b.translation, t), normalize(add(scale(qa, 1 - t), scale(qb, t))),
          lerp(a.scale, b.scale, t)};
}

bool BlendJob::validate() const {
  const std::size_t n = rest_pose.size();
  const std::size_t slots = rest_morph_weights.size();
  return output.size() >= n && morph_output.size() >= slots && std::isfinite(threshold) &&
         threshold >= kMinBlendThreshold && layers_valid(layers, n, slots) &&
         layers_valid(overrides, n, slots) && layers_valid(additives, n, slots);
}

bool BlendJob::run() const {
  if (!validate()) return false;
  std::array<const BlendLayer*, kMaxBlendLayers> normal, over, add;
  const auto positive = [](float w) { return w > 0; };
  const std::size_t normal_count = gather(layers, positive, normal);
  const std::size_t over_count = gather(overrides, positive, over);
  const std::size_t add_count = gather(
      additives, [](float w) { return w != 0; }, add);

  for (std::size_t j = 0; j < rest_pose.size(); ++j) {
    // 1. Normal layers, with the rest pose making up a summed weight below the threshold.
    Accumulator acc;
    for (std::size_t i = 0; i < normal_count; ++i) {
      const float w = normal[i]->weight * mask_weight(normal[i]->mask, j);
      if (w > kTinyWeight) acc.add(normal[i]->pose[j], w);
    }
    Transform result;
    if (acc.count == 0) {
      result = rest_pose[j];
    } else {
      if (acc.weight < threshold) acc.add(rest_pose[j], threshold - acc.weight);
      result = acc.average();
    }

    // 2. Override layers: their own average, over the result by their summed weight (max 1).
    if (over_count > 0) {
      Accumulator o;
      for (std::size_t i = 0; i < over_count; ++i) {
        const float w = over[i]->weight * mask_weight(over[i]->mask, j);
        if (w > kTinyWeight) o.add(over[i]->pose[j], w);
      }
      if (o.count > 0) result = lerp(result, o.average(), o.weight);
    }

    // 3. Additive layers, in order.
    for (std::size_t i = 0; i < add_count; ++i) {
      const float w = add[i]->weight * mask_weight(add[i]->mask, j);
      if (std::fabs(w) > kTinyWeight) result = apply_additive(result, add[i]->pose[j], w);
    }

    output[j] = result;
  }
  if (!rest_morph_weights.empty()) {
    blend_morph_weights(*this, std::span(normal).first(normal_count),
                        std::span(over).first(over_count), std::span(add).first(add_count));
  }
  return true;
}

}  // namespace marrow
