#include "marrow/pose/mask.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "clip_reference_check.h"
#include "marrow/clip/sampling.h"

namespace marrow {

namespace {

bool is_unit_weight(float w) {
  return std::isfinite(w) && w >= 0 && w <= 1;
}

// NaN and out-of-range weights read as the nearest valid weight (NaN as 0), like the blend does.
float clamp_weight(float w) {
  return w > 0 ? (w < 1 ? w : 1) : 0;
}

Result<std::vector<float>> combine(std::span<const float> a, std::span<const float> b,
                                   std::string_view what, float (*op)(float, float)) {
  if (a.size() != b.size()) {
    return make_error(what, "masks of " + std::to_string(a.size()) + " and " +
                                std::to_string(b.size()) + " joints");
  }
  std::vector<float> out(a.size());
  for (std::size_t j = 0; j < a.size(); ++j) out[j] = op(clamp_weight(a[j]), clamp_weight(b[j]));
  return out;
}

struct Reach {
  float translation = 0, rotation = 0, scale = 0;
};

// Keeps the largest distance; a NaN distance sticks, so a non-finite reference counts as moved.
void grow(float& reach, float distance) {
  if (!(distance <= reach)) reach = distance;
}

void measure(Reach& reach, TrackTarget target, const float* v, const Transform& ref) {
  switch (target) {
    case TrackTarget::kTranslation:
      grow(reach.translation, length(Vec3{v[0], v[1], v[2]} - ref.translation));
      break;
    case TrackTarget::kRotation:
      grow(reach.rotation, rotation_angle(ref.rotation, Quat{v[0], v[1], v[2], v[3]}));
      break;
    case TrackTarget::kScale:
      grow(reach.scale, std::fabs(v[0] - ref.scale.x));
      grow(reach.scale, std::fabs(v[1] - ref.scale.y));
      grow(reach.scale, std::fabs(v[2] - ref.scale.z));
      break;
  }
}

void measure(Reach& reach, TrackTarget target, const Transform& rest, const Transform& ref) {
  const Quat& q = rest.rotation;
  const float t[3] = {rest.translation.x, rest.translation.y, rest.translation.z};
  const float r[4] = {q.x, q.y, q.z, q.w};
  const float s[3] = {rest.scale.x, rest.scale.y, rest.scale.z};
  measure(reach, target,
          target == TrackTarget::kTranslation ? t : (target == TrackTarget::kRotation ? r : s),
          ref);
}

}  // namespace

float rotation_angle(Quat a, Quat b) {
  const Quat r = conjugate(a) * b;
  const float s = length(Vec3{r.x, r.y, r.z});
  return 2.0f * std::atan2(s, std::fabs(r.w));
}

std::vector<float> mask_uniform(const Skeleton& skeleton, float weight) {
  return std::vector<float>(skeleton.size(), clamp_weight(weight));
}

Result<std::vector<float>> mask_from_names(const Skeleton& skeleton,
                                           std::span<const std::string_view> names, float weight) {
  if (!is_unit_weight(weight)) {
    return make_error("mask_from_names", "weight " + std::to_string(weight) + " is not in [0, 1]");
  }
  std::vector<float> mask(skeleton.size(), 0.0f);
  for (std::string_view name : names) {
    const std::optional<JointIndex> joint = skeleton.find(name);
    if (!joint) return make_error("mask_from_names", "no joint named '" + std::string(name) + "'");
    mask[*joint] = weight;
  }
  return mask;
}

Result<std::vector<float>> mask_from_names(const Skeleton& skeleton,
                                           std::initializer_list<std::string_view> names,
                                           float weight) {
  return mask_from_names(skeleton, std::span<const std::string_view>(names.begin(), names.size()),
                         weight);
}

Result<std::vector<float>> mask_from_subtree(const Skeleton& skeleton, JointIndex root,
                                             const SubtreeFalloff& falloff) {
  if (root >= skeleton.size()) {
    return make_error("mask_from_subtree",
                      "joint " + std::to_string(root) + " of " + std::to_string(skeleton.size()));
  }
  if (!is_unit_weight(falloff.root_weight) || !is_unit_weight(falloff.end_weight)) {
    return make_error("mask_from_subtree", "falloff weights must lie in [0, 1]");
  }
  // Parents come before children, so one forward pass finds the subtree and each joint's depth
  // below the root. Joints before `root` cannot be under it.
  constexpr std::uint32_t kOutside = ~0u;
  std::vector<std::uint32_t> depth(skeleton.size(), kOutside);
  std::vector<float> mask(skeleton.size(), 0.0f);
  depth[root] = 0;
  for (std::size_t j = root; j < skeleton.size(); ++j) {
    if (j != root) {
      const JointIndex p = skeleton.parent(j);
      if (p == kNoParent || depth[p] == kOutside) continue;
      depth[j] = depth[p] + 1;
    }
    if (falloff.length == 0 || depth[j] >= falloff.length) {
      mask[j] = falloff.end_weight;
    } else {
      const float t = static_cast<float>(depth[j]) / static_cast<float>(falloff.length);
      mask[j] = falloff.root_weight + (falloff.end_weight - falloff.root_weight) * t;
    }
  }
  return mask;
}

Result<std::vector<float>> mask_from_subtree(const Skeleton& skeleton, std::string_view root,
                                             const SubtreeFalloff& falloff) {
  const std::optional<JointIndex> joint = skeleton.find(root);
  if (!joint) return make_error("mask_from_subtree", "no joint named '" + std::string(root) + "'");
  return mask_from_subtree(skeleton, *joint, falloff);
}

std::vector<float> mask_inverse(std::span<const float> mask) {
  std::vector<float> out(mask.size());
  for (std::size_t j = 0; j < mask.size(); ++j) out[j] = 1.0f - clamp_weight(mask[j]);
  return out;
}

Result<std::vector<float>> mask_union(std::span<const float> a, std::span<const float> b) {
  return combine(a, b, "mask_union", [](float x, float y) { return std::max(x, y); });
}

Result<std::vector<float>> mask_intersection(std::span<const float> a, std::span<const float> b) {
  return combine(a, b, "mask_intersection", [](float x, float y) { return std::min(x, y); });
}

Result<std::vector<float>> mask_from_clip(const Skeleton& skeleton, const Clip& clip,
                                          std::span<const Transform> reference,
                                          const MaskTolerance& tolerance) {
  const std::size_t n = skeleton.size();
  const std::string where = "mask_from_clip(" + clip.name() + ")";
  if (auto error = detail::check_clip_and_reference(skeleton, clip, reference, where)) {
    return *error;
  }
  if (!(tolerance.translation >= 0) || !(tolerance.rotation >= 0) || !(tolerance.scale >= 0)) {
    return make_error(where, "tolerances must be >= 0");
  }

  std::vector<Reach> reach(n);
  // Which channels of each joint a track drives; the others hold the rest value.
  std::vector<std::uint8_t> animated(n, 0);
  float v[4];
  for (const Track& track : clip.tracks()) {
    const std::span<const float> times = clip.times().subspan(track.first_key, track.key_count);
    const Transform& ref = reference[track.joint];
    animated[track.joint] |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(track.target));
    for (std::uint32_t k = 0; k < track.key_count; ++k) {
      evaluate_track(clip, track, times[k], k, v);
      measure(reach[track.joint], track.target, v, ref);
      if (k + 1 == track.key_count) break;
      for (const float f : {0.25f, 0.5f, 0.75f}) {
        evaluate_track(clip, track, times[k] + (times[k + 1] - times[k]) * f, k, v);
        measure(reach[track.joint], track.target, v, ref);
      }
    }
  }

  std::vector<float> mask(n, 0.0f);
  const std::span<const Transform> rest = skeleton.rest_pose();
  for (std::size_t j = 0; j < n; ++j) {
    for (const TrackTarget target :
         {TrackTarget::kTranslation, TrackTarget::kRotation, TrackTarget::kScale}) {
      if (!(animated[j] & (1u << static_cast<unsigned>(target)))) {
        measure(reach[j], target, rest[j], reference[j]);
      }
    }
    // Written so that a NaN distance counts as moved.
    const bool still = reach[j].translation <= tolerance.translation &&
                       reach[j].rotation <= tolerance.rotation && reach[j].scale <= tolerance.scale;
    mask[j] = still ? 0.0f : 1.0f;
  }
  return mask;
}

}  // namespace marrow

namespace marrow {

std::vector<float> morph_mask_from_joint_mask(std::span<const float> joint_mask,
                                              std::span<const MorphSlots> slots,
                                              std::size_t weight_count) {
  std::vector<float> mask(weight_count, 0.0f);
  for (const MorphSlots& s : slots) {
    const float m = s.node < joint_mask.size() ? joint_mask[s.node] : 0.0f;
    const float clamped = m > 0 ? (m < 1 ? m : 1) : 0;  // NaN reads as 0
    for (std::uint32_t i = 0; i < s.count && s.first + i < weight_count; ++i)
      mask[s.first + i] = clamped;
  }
  return mask;
}

Result<std::vector<float>> morph_mask_from_clip(const Clip& clip,
                                                std::span<const float> reference_weights,
                                                float tolerance) {
  const std::string where = "morph_mask_from_clip(" + clip.name() + ")";
  if (reference_weights.size() < clip.weight_count()) {
    return make_error(where, std::to_string(reference_weights.size()) +
                                 " reference weights for a clip of " +
                                 std::to_string(clip.weight_count()) + " weights");
  }
  if (!(tolerance >= 0)) return make_error(where, "the tolerance must be >= 0");
  std::vector<float> mask(reference_weights.size(), 0.0f);
  std::vector<float> v;
  for (const WeightTrack& track : clip.weight_tracks()) {
    v.resize(track.weight_count);
    const std::span<const float> times = clip.times().subspan(track.first_key, track.key_count);
    auto measure = [&](float t, std::uint32_t k) {
      evaluate_weight_track(clip, track, t, k, v.data());
      for (std::uint32_t c = 0; c < track.weight_count; ++c) {
        // Written so that a NaN difference counts as moved.
        if (!(std::fabs(v[c] - reference_weights[track.first_weight + c]) <= tolerance))
          mask[track.first_weight + c] = 1.0f;
      }
    };
    for (std::uint32_t k = 0; k < track.key_count; ++k) {
      measure(times[k], k);
      if (k + 1 == track.key_count) break;
      for (const float f : {0.25f, 0.5f, 0.75f})
        measure(times[k] + (times[k + 1] - times[k]) * f, k);
    }
  }
  return mask;
}

}  // namespace marrow
