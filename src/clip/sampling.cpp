#include "marrow/clip/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace marrow {

float wrap_time(float time, float duration, WrapMode mode) {
  if (!(duration > 0) || !std::isfinite(time)) return 0;
  switch (mode) {
    case WrapMode::kClamp:
      return std::clamp(time, 0.0f, duration);
    case WrapMode::kLoop: {
      float t = std::fmod(time, duration);
      if (t < 0) t += duration;
      return t >= duration ? 0.0f : t;  // fmod of a negative can round up to duration
    }
    case WrapMode::kPingPong: {
      if (duration > std::numeric_limits<float>::max() / 2) {
        // Twice the duration overflows a float (a hostile file's clip, fuzz finding): in double,
        // and by ping-pong's symmetry from |time|, which a period this long would absorb.
        const double period = 2.0 * duration;
        const double t = std::fmod(std::fabs(static_cast<double>(time)), period);
        return std::min(static_cast<float>(t > duration ? period - t : t), duration);
      }
      float t = std::fmod(time, 2 * duration);
      if (t < 0) t += 2 * duration;
      return t > duration ? 2 * duration - t : t;
    }
  }
  return 0;
}

void SamplingCursor::bind(const Clip& clip) {
  clip_ = &clip;
  keys_.assign(clip.tracks().size() + clip.weight_tracks().size(), 0);
}

void SamplingCursor::rewind() {
  std::fill(keys_.begin(), keys_.end(), 0u);
}

std::uint32_t find_key(std::span<const float> times, float time, std::uint32_t hint) {
  const auto n = static_cast<std::uint32_t>(times.size());
  std::uint32_t k = hint < n ? hint : n - 1;
  if (time >= times[k]) {
    // Forward playback moves at most a key or two per frame: step, then give up and search.
    for (int step = 0; step < 4; ++step) {
      if (k + 1 >= n || time < times[k + 1]) return k;
      ++k;
    }
  }
  const auto it = std::upper_bound(times.begin(), times.end(), time);
  return it == times.begin() ? 0u : static_cast<std::uint32_t>(it - times.begin() - 1);
}

namespace {

// Hermite basis of the glTF cubic spline: tangents are scaled by the key interval.
inline void cubic(const float* v0, const float* out0, const float* in1, const float* v1, float s,
                  float dt, int n, float* out) {
  const float s2 = s * s, s3 = s2 * s;
  const float h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s;
  const float h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
  for (int c = 0; c < n; ++c) {
    out[c] = h00 * v0[c] + h10 * dt * out0[c] + h01 * v1[c] + h11 * dt * in1[c];
  }
}

}  // namespace

void evaluate_track(const Clip& clip, const Track& track, float time, std::uint32_t k, float* out) {
  const float* times = clip.times().data() + track.first_key;
  const float* values = clip.values().data() + track.first_value;
  const int n = static_cast<int>(components_of(track.target));
  const bool is_cubic = track.interpolation == Interpolation::kCubicSpline;
  const int stride = is_cubic ? 3 * n : n;
  const int value_offset = is_cubic ? n : 0;  // skip the in-tangent

  const std::uint32_t last = track.key_count - 1;
  if (time <= times[0] || k >= last || track.interpolation == Interpolation::kStep) {
    const std::uint32_t key = time <= times[0] ? 0 : std::min(k, last);
    std::copy_n(values + key * stride + value_offset, n, out);
    // The builder keeps cubic keys as given; normalize so the curve is continuous at its keys.
    if (is_cubic && track.target == TrackTarget::kRotation) {
      const Quat q = normalize(Quat{out[0], out[1], out[2], out[3]});
      out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
    }
    return;
  }
  const float t0 = times[k], t1 = times[k + 1];
  const float dt = t1 - t0;
  const float s = std::clamp((time - t0) / dt, 0.0f, 1.0f);
  const float* a = values + k * stride;
  const float* b = values + (k + 1) * stride;
  if (!is_cubic) {
    if (track.target == TrackTarget::kRotation) {
      const Quat q = slerp(Quat{a[0], a[1], a[2], a[3]}, Quat{b[0], b[1], b[2], b[3]}, s);
      out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
    } else {
      for (int c = 0; c < n; ++c) out[c] = a[c] + (b[c] - a[c]) * s;
    }
    return;
  }
  // Cubic key layout: in-tangent, value, out-tangent.
  cubic(a + n, a + 2 * n, b, b + n, s, dt, n, out);
  if (track.target == TrackTarget::kRotation) {
    const Quat q = normalize(Quat{out[0], out[1], out[2], out[3]});
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
  }
}

namespace {

inline void write_channel(const Track& track, const float* v, Transform& joint) {
  switch (track.target) {
    case TrackTarget::kTranslation:
      joint.translation = {v[0], v[1], v[2]};
      break;
    case TrackTarget::kRotation:
      joint.rotation = {v[0], v[1], v[2], v[3]};
      break;
    case TrackTarget::kScale:
      joint.scale = {v[0], v[1], v[2]};
      break;
  }
}

inline std::span<const float> track_times(const Clip& clip, const Track& track) {
  return clip.times().subspan(track.first_key, track.key_count);
}

}  // namespace

bool sample_tracks(const Clip& clip, float time, SamplingCursor& cursor,
                   std::span<Transform> pose) {
  if (pose.size() < clip.joint_count() || cursor.clip() != &clip) return false;
  const std::span<const Track> tracks = clip.tracks();
  std::uint32_t* keys = cursor.keys().data();
  float v[4];
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    const Track& track = tracks[i];
    keys[i] = find_key(track_times(clip, track), time, keys[i]);
    evaluate_track(clip, track, time, keys[i], v);
    write_channel(track, v, pose[track.joint]);
  }
  return true;
}

bool sample_tracks(const Clip& clip, float time, std::span<Transform> pose) {
  if (pose.size() < clip.joint_count()) return false;
  float v[4];
  for (const Track& track : clip.tracks()) {
    const std::span<const float> times = track_times(clip, track);
    const auto it = std::upper_bound(times.begin(), times.end(), time);
    const auto k = it == times.begin() ? 0u : static_cast<std::uint32_t>(it - times.begin() - 1);
    evaluate_track(clip, track, time, k, v);
    write_channel(track, v, pose[track.joint]);
  }
  return true;
}

void evaluate_weight_track(const Clip& clip, const WeightTrack& track, float time, std::uint32_t k,
                           float* out) {
  const float* times = clip.times().data() + track.first_key;
  const float* values = clip.values().data() + track.first_value;
  const std::uint32_t n = track.weight_count;
  const bool is_cubic = track.interpolation == Interpolation::kCubicSpline;
  const std::size_t stride = is_cubic ? 3 * std::size_t{n} : n;
  const std::size_t value_offset = is_cubic ? n : 0;  // skip the in-tangents
  const std::uint32_t last = track.key_count - 1;
  if (time <= times[0] || k >= last || track.interpolation == Interpolation::kStep) {
    const std::uint32_t key = time <= times[0] ? 0 : std::min(k, last);
    std::copy_n(values + key * stride + value_offset, n, out);
    return;
  }
  const float t0 = times[k], t1 = times[k + 1];
  const float dt = t1 - t0;
  const float s = std::clamp((time - t0) / dt, 0.0f, 1.0f);
  const float* a = values + k * stride;
  const float* b = values + (k + 1) * stride;
  if (!is_cubic) {
    for (std::uint32_t c = 0; c < n; ++c) out[c] = a[c] + (b[c] - a[c]) * s;
    return;
  }
  // Key layout: n in-tangents, n values, n out-tangents.
  cubic(a + n, a + 2 * n, b, b + n, s, dt, static_cast<int>(n), out);
}

namespace {

// Samples every weight track with key indices `keys` (advanced by find_key), or by binary search
// when `keys` is null.
void sample_weights_with(const Clip& clip, float time, std::uint32_t* keys,
                         std::span<float> weights) {
  const std::span<const WeightTrack> tracks = clip.weight_tracks();
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    const WeightTrack& track = tracks[i];
    const std::span<const float> times = clip.times().subspan(track.first_key, track.key_count);
    std::uint32_t k;
    if (keys) {
      k = keys[i] = find_key(times, time, keys[i]);
    } else {
      const auto it = std::upper_bound(times.begin(), times.end(), time);
      k = it == times.begin() ? 0u : static_cast<std::uint32_t>(it - times.begin() - 1);
    }
    evaluate_weight_track(clip, track, time, k, weights.data() + track.first_weight);
  }
}

}  // namespace

bool sample_weight_tracks(const Clip& clip, float time, SamplingCursor& cursor,
                          std::span<float> weights) {
  if (weights.size() < clip.weight_count() || cursor.clip() != &clip) return false;
  sample_weights_with(clip, time, cursor.keys().data() + clip.tracks().size(), weights);
  return true;
}

bool sample_weight_tracks(const Clip& clip, float time, std::span<float> weights) {
  if (weights.size() < clip.weight_count()) return false;
  sample_weights_with(clip, time, nullptr, weights);
  return true;
}

bool sample_weights(const Clip& clip, std::span<const float> default_weights, float time,
                    SamplingCursor& cursor, std::span<float> weights) {
  if (default_weights.size() < clip.weight_count() || weights.size() < default_weights.size())
    return false;
  if (cursor.clip() != &clip) return false;
  std::copy(default_weights.begin(), default_weights.end(), weights.begin());
  return sample_weight_tracks(clip, time, cursor, weights);
}

bool sample(const Clip& clip, std::span<const Transform> rest_pose, float time,
            SamplingCursor& cursor, std::span<Transform> pose) {
  if (rest_pose.size() < clip.joint_count() || pose.size() < rest_pose.size()) return false;
  if (cursor.clip() != &clip) return false;
  std::copy(rest_pose.begin(), rest_pose.end(), pose.begin());
  return sample_tracks(clip, time, cursor, pose);
}

}  // namespace marrow
