#include "marrow/pose/soa_blend.h"

#include <array>
#include <cmath>

#include "pose/soa/soa_dispatch.h"

namespace marrow {
namespace {

bool layers_valid(std::span<const SoaBlendLayer> layers, std::size_t groups, std::size_t joints) {
  if (layers.size() > kMaxBlendLayers) return false;
  for (const SoaBlendLayer& layer : layers) {
    if (!std::isfinite(layer.weight) || layer.pose.size() < groups) return false;
    if (!layer.mask.empty() && layer.mask.size() < joints) return false;
  }
  return true;
}

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

}  // namespace

bool SoaBlendJob::validate() const {
  const std::size_t groups = soa_group_count(joint_count);
  return rest_pose.size() >= groups && output.size() >= groups && std::isfinite(threshold) &&
         threshold >= kMinBlendThreshold && layers_valid(layers, groups, joint_count) &&
         layers_valid(overrides, groups, joint_count) &&
         layers_valid(additives, groups, joint_count);
}

bool SoaBlendJob::run() const {
  if (!validate()) return false;
  std::array<soa_detail::LayerArg, kMaxBlendLayers> normal, over, add;
  // An unmasked layer weighing kTinyWeight or less takes no part in any joint (blend.cpp).
  constexpr float kTinyWeight = 1e-20f;
  const auto positive = [](float w) { return w > kTinyWeight; };
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
  return true;
}

}  // namespace marrow
