#include "marrow/pose/soa_blend.h"

#include <array>
#include <cmath>

#include "base/job_problem.h"
#include "pose/blend_common.h"
#include "pose/soa/soa_dispatch.h"

namespace marrow {
namespace {

// The layers that can contribute, so dead ones cost nothing.
template <typename Live>
std::size_t gather(std::span<const SoaBlendLayer> layers, Live live,
                   std::array<soa_detail::LayerArg, kMaxBlendLayers>& out) {
  std::size_t n = 0;
  for (const SoaBlendLayer& layer : layers) {
    if (live(layer.weight)) {
      out[n++] = {layer.pose.data(), layer.weight,
                  layer.mask.empty() ? nullptr : layer.mask.data()};
    }
  }
  return n;
}

// The layers that take part in the morph-weight blend, as BlendJob gathers them.
template <typename Live>
std::size_t gather_morph(std::span<const SoaBlendLayer> layers, Live live,
                         std::array<const SoaBlendLayer*, kMaxBlendLayers>& out) {
  std::size_t n = 0;
  for (const SoaBlendLayer& layer : layers) {
    if (live(layer.weight) && !layer.morph_weights.empty()) out[n++] = &layer;
  }
  return n;
}

detail::JobProblem find_problem(const SoaBlendJob& job) {
  const std::size_t groups = soa_group_count(job.joint_count);
  if (job.rest_pose.size() < groups) {
    return {"rest_pose", "is shorter than soa_group_count(joint_count)"};
  }
  return blend_detail::find_blend_problem(job, groups, job.joint_count);
}

void blend_morph_weights(const SoaBlendJob& job) {
  std::array<const SoaBlendLayer*, kMaxBlendLayers> normal, over, add;
  const auto positive = [](float w) { return w > 0; };
  const std::size_t normal_count = gather_morph(job.layers, positive, normal);
  const std::size_t over_count = gather_morph(job.overrides, positive, over);
  const std::size_t add_count = gather_morph(
      job.additives, [](float w) { return w != 0; }, add);
  blend_detail::blend_morph_weights<SoaBlendLayer>(
      job.rest_morph_weights, job.threshold, std::span(normal).first(normal_count),
      std::span(over).first(over_count), std::span(add).first(add_count), job.morph_output);
}

}  // namespace

Status SoaBlendJob::validate() const {
  return detail::to_status("SoaBlendJob", find_problem(*this));
}

bool SoaBlendJob::run() const {
  if (find_problem(*this)) return false;
  std::array<soa_detail::LayerArg, kMaxBlendLayers> normal, over, add;
  // An unmasked layer weighing kTinyWeight or less takes no part in any joint (blend_common.h).
  const auto positive = [](float w) { return w > blend_detail::kTinyWeight; };
  soa_detail::BlendArgs args;
  args.group_count = soa_group_count(joint_count);
  args.joint_count = joint_count;
  args.rest = rest_pose.data();
  args.normal = normal.data();
  args.normal_count = gather(layers, positive, normal);
  args.overrides = over.data();
  args.override_count = gather(overrides, positive, over);
  args.additives = add.data();
  args.additive_count = gather(
      additives, [](float w) { return w != 0; }, add);
  args.threshold = threshold;
  args.output = output.data();
  soa_detail::soa_kernels().blend(args);
  if (!rest_morph_weights.empty()) blend_morph_weights(*this);
  return true;
}

}  // namespace marrow
