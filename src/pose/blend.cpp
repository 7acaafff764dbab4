#include "marrow/pose/blend.h"

#include <array>
#include <cmath>

#include "base/job_problem.h"
#include "hemisphere.h"
#include "marrow/pose/additive.h"
#include "pose/blend_common.h"

namespace marrow {

namespace {

using blend_detail::kTinyWeight;
using blend_detail::mask_weight;

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

detail::JobProblem find_problem(const BlendJob& job) {
  return blend_detail::find_blend_problem(job, job.rest_pose.size(), job.rest_pose.size());
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

Status BlendJob::validate() const {
  return detail::to_status("BlendJob", find_problem(*this));
}

bool BlendJob::run() const {
  if (find_problem(*this)) return false;
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
    blend_detail::blend_morph_weights<BlendLayer>(
        rest_morph_weights, threshold, std::span(normal).first(normal_count),
        std::span(over).first(over_count), std::span(add).first(add_count), morph_output);
  }
  return true;
}

}  // namespace marrow
