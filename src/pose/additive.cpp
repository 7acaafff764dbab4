#include "marrow/pose/additive.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "clip_reference_check.h"
#include "hemisphere.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/sampling.h"

namespace marrow {

namespace {

constexpr float kMaxScaleRatio = 1e6f;

// Below this a reference scale component counts as collapsed.
constexpr float kTinyScale = 1e-30f;

inline float ratio(float value, float reference) {
  return std::fabs(reference) > kTinyScale ? value / reference : 1.0f;
}

inline float scale_pow(float r, float w) {
  if (r == 1) return 1;  // most joints of most additive clips: skip the pow
  const float s = r > 0 ? std::pow(r, w) : 1.0f + w * (r - 1.0f);
  return std::clamp(s, -kMaxScaleRatio, kMaxScaleRatio);
}

}  // namespace

Quat quat_pow(Quat q, float w) {
  // The shortest arc: half angle in [0, pi/2]. Near half a turn the sign of w is rounding
  // noise, so the sign of the axis decides instead (see hemisphere.h).
  const bool undecided = q.w * q.w <= detail::kUndecidedDot * detail::kUndecidedDot * dot(q, q);
  if (undecided ? detail::largest_component({q.x, q.y, q.z, 0}) < 0 : q.w < 0) q = negate(q);
  const float s = length(Vec3{q.x, q.y, q.z});
  if (!(s > 0)) return Quat::identity();
  const float half = std::atan2(s, q.w);
  // For small angles half/s tends to 1/q.w, so this stays accurate down to s = 0.
  const float k = std::sin(w * half) / s;
  return {q.x * k, q.y * k, q.z * k, std::cos(w * half)};
}

Transform additive_delta(const Transform& reference, const Transform& pose) {
  const Vec3& rs = reference.scale;
  return {pose.translation - reference.translation,
          normalize(conjugate(reference.rotation) * pose.rotation),
          {ratio(pose.scale.x, rs.x), ratio(pose.scale.y, rs.y), ratio(pose.scale.z, rs.z)}};
}

Transform apply_additive(const Transform& base, const Transform& delta, float w) {
  if (w == 0) return base;
  if (w == 1) {
    return {base.translation + delta.translation, normalize(base.rotation * delta.rotation),
            mul(base.scale, delta.scale)};
  }
  const Vec3 s{scale_pow(delta.scale.x, w), scale_pow(delta.scale.y, w),
               scale_pow(delta.scale.z, w)};
  return {base.translation + delta.translation * w,
          normalize(base.rotation * quat_pow(delta.rotation, w)), mul(base.scale, s)};
}

bool make_additive_pose(std::span<const Transform> reference, std::span<const Transform> pose,
                        std::span<Transform> delta) {
  if (reference.size() < delta.size() || pose.size() < delta.size()) return false;
  for (std::size_t j = 0; j < delta.size(); ++j) delta[j] = additive_delta(reference[j], pose[j]);
  return true;
}

bool apply_additive(std::span<Transform> pose, std::span<const Transform> delta, float weight,
                    std::span<const float> mask) {
  if (delta.size() < pose.size() || (!mask.empty() && mask.size() < pose.size()) ||
      !std::isfinite(weight)) {
    return false;
  }
  if (weight == 0) return true;
  for (std::size_t j = 0; j < pose.size(); ++j) {
    float w = weight;
    if (!mask.empty()) {
      const float m = mask[j];
      w *= m > 0 ? (m < 1 ? m : 1) : 0;  // NaN reads as 0
    }
    pose[j] = apply_additive(pose[j], delta[j], w);
  }
  return true;
}

Result<std::vector<Transform>> sample_reference_pose(const Skeleton& skeleton, const Clip& clip,
                                                     float time) {
  if (clip.joint_count() > skeleton.size()) {
    return make_error("sample_reference_pose(" + clip.name() + ")",
                      "clip is for " + std::to_string(clip.joint_count()) +
                          " joints, the skeleton has " + std::to_string(skeleton.size()));
  }
  if (!std::isfinite(time)) {
    return make_error("sample_reference_pose(" + clip.name() + ")", "time is not finite");
  }
  std::vector<Transform> pose(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
  if (!sample_tracks(clip, time, pose)) {
    return make_error("sample_reference_pose(" + clip.name() + ")", "sampling failed");
  }
  return pose;
}

namespace {

// A joint track's keys as deltas from `ref`. Each key holds one value, or in-tangent, value,
// out-tangent for cubic splines. Every map is affine in the key's floats (a constant offset, a
// per-axis ratio, a left product with a fixed quaternion), so interpolating the mapped keys gives
// the mapped samples: tangents take the linear part only (no offset).
void to_deltas(const Track& track, const Transform& ref, std::vector<float>& values) {
  const std::uint32_t c = components_of(track.target);
  const bool cubic = track.interpolation == Interpolation::kCubicSpline;
  for (std::size_t part = 0; part < values.size() / c; ++part) {
    float* v = values.data() + part * c;
    const bool is_value = !cubic || part % 3 == 1;
    switch (track.target) {
      case TrackTarget::kTranslation:
        if (is_value) {
          v[0] -= ref.translation.x, v[1] -= ref.translation.y, v[2] -= ref.translation.z;
        }
        break;
      case TrackTarget::kRotation: {
        const Quat q = conjugate(ref.rotation) * Quat{v[0], v[1], v[2], v[3]};
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        break;
      }
      case TrackTarget::kScale: {
        const float r[3] = {ref.scale.x, ref.scale.y, ref.scale.z};
        for (int k = 0; k < 3; ++k) {
          // A collapsed reference axis keeps a constant ratio of 1 (zero tangent).
          v[k] = std::fabs(r[k]) > kTinyScale ? v[k] / r[k] : (is_value ? 1.0f : 0.0f);
        }
        break;
      }
    }
  }
}

// Weight deltas are differences (weights add): values minus the reference, tangents as they are.
Status add_weight_deltas(const Clip& clip, std::span<const float> reference_weights,
                         const std::string& where, ClipBuilder& builder) {
  std::vector<float> values;
  const std::span<const WeightTrack> weight_tracks = clip.weight_tracks();
  for (std::size_t i = 0; i < weight_tracks.size(); ++i) {
    const WeightTrack& track = weight_tracks[i];
    const std::uint32_t w = track.weight_count;
    const bool cubic = track.interpolation == Interpolation::kCubicSpline;
    const std::span<const float> src = clip.values().subspan(
        track.first_value, std::size_t{floats_per_key(track)} * track.key_count);
    values.assign(src.begin(), src.end());
    if (!reference_weights.empty()) {
      for (std::size_t part = 0; part < values.size() / w; ++part) {
        if (cubic && part % 3 != 1) continue;
        for (std::uint32_t c = 0; c < w; ++c)
          values[part * w + c] -= reference_weights[track.first_weight + c];
      }
    }
    const std::span<const float> times = clip.times().subspan(track.first_key, track.key_count);
    Status status =
        builder.add_weight_track(track.node, clip.weight_track_node_names()[i], track.first_weight,
                                 w, track.interpolation, times, values, where);
    if (!status) return status;
  }
  builder.set_weight_count(clip.weight_count());
  return {};
}

// Channels without a track hold the rest value: their delta is constant, and only worth a track
// where the reference is not the rest pose there. `animated` has a bit per joint and target.
Status add_constant_deltas(const Skeleton& skeleton, std::span<const Transform> reference,
                           const std::vector<std::uint8_t>& animated, const std::string& where,
                           ClipBuilder& builder) {
  const std::span<const Transform> rest = skeleton.rest_pose();
  const float zero[1] = {0.0f};
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    const Transform d = additive_delta(reference[j], rest[j]);
    const auto joint = static_cast<JointIndex>(j);
    const auto add_constant = [&](TrackTarget target, std::span<const float> value) {
      return builder.add_track(joint, skeleton.name(j), target, Interpolation::kLinear, zero, value,
                               where);
    };
    Status status;
    if (!(animated[j] & 1u) && rest[j].translation != reference[j].translation) {
      const float v[3] = {d.translation.x, d.translation.y, d.translation.z};
      status = add_constant(TrackTarget::kTranslation, v);
    }
    if (status && !(animated[j] & 2u) && rest[j].rotation != reference[j].rotation) {
      const float v[4] = {d.rotation.x, d.rotation.y, d.rotation.z, d.rotation.w};
      status = add_constant(TrackTarget::kRotation, v);
    }
    if (status && !(animated[j] & 4u) && rest[j].scale != reference[j].scale) {
      const float v[3] = {d.scale.x, d.scale.y, d.scale.z};
      status = add_constant(TrackTarget::kScale, v);
    }
    if (!status) return status;
  }
  return {};
}

}  // namespace

Result<Clip> make_additive_clip(const Clip& clip, const Skeleton& skeleton,
                                std::span<const Transform> reference,
                                std::span<const float> reference_weights) {
  const std::size_t n = skeleton.size();
  const std::string where = "make_additive_clip(" + clip.name() + ")";
  if (auto error = detail::check_clip_and_reference(skeleton, clip, reference, where)) {
    return *error;
  }
  if (!reference_weights.empty() && reference_weights.size() < clip.weight_count()) {
    return make_error(where, std::to_string(reference_weights.size()) +
                                 " reference weights for a clip of " +
                                 std::to_string(clip.weight_count()) + " weights");
  }
  for (std::size_t j = 0; j < n; ++j) {
    if (!is_finite(reference[j])) {
      return make_error(where, "reference pose of joint " + std::to_string(j) + " ('" +
                                   skeleton.name(j) + "') is not finite");
    }
  }

  ClipBuilder builder(clip.name());
  builder.set_ticks_per_second(clip.ticks_per_second());
  builder.set_duration(clip.duration());
  for (const ClipEvent& e : clip.events()) builder.add_event(e.time, e.name);

  std::vector<std::uint8_t> animated(n, 0);
  std::vector<float> values;
  const std::span<const Track> tracks = clip.tracks();
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    const Track& track = tracks[i];
    const std::uint32_t per_key = floats_per_key(track.target, track.interpolation);
    animated[track.joint] |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(track.target));
    const std::span<const float> src =
        clip.values().subspan(track.first_value, std::size_t{per_key} * track.key_count);
    values.assign(src.begin(), src.end());
    to_deltas(track, reference[track.joint], values);
    const std::span<const float> times = clip.times().subspan(track.first_key, track.key_count);
    Status status = builder.add_track(track.joint, clip.track_joint_names()[i], track.target,
                                      track.interpolation, times, values, where);
    if (!status) return status.error();
  }
  if (Status s = add_weight_deltas(clip, reference_weights, where, builder); !s) return s.error();
  if (Status s = add_constant_deltas(skeleton, reference, animated, where, builder); !s) {
    return s.error();
  }
  return builder.build(n, where);
}

}  // namespace marrow
