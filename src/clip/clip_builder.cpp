#include "marrow/clip/clip_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "marrow/math/quat.h"

namespace marrow {

ClipBuilder::ClipBuilder(std::string name) {
  clip_.name_ = std::move(name);
}

namespace {

// How far a rotation key's squared length may be from 1 and count as normalized: a few float
// rounding steps, more than normalizing in float leaves.
constexpr float kUnitLengthSlack = 8 * std::numeric_limits<float>::epsilon();

// Checks that are the same for joint and weight tracks: key counts, value counts, room in the
// clip's arrays, finite and increasing times, finite values.
Status check_keys(std::size_t times_held, std::size_t values_held, std::size_t per_key,
                  std::span<const float> times, std::span<const float> values,
                  std::string_view where) {
  if (times.empty()) return make_error(where, "track has no keys");
  if (values.size() != times.size() * per_key) {
    return make_error(where, std::to_string(times.size()) + " key times but " +
                                 std::to_string(values.size()) + " values (expected " +
                                 std::to_string(times.size() * per_key) + ")");
  }
  constexpr std::size_t kLimit = std::numeric_limits<std::uint32_t>::max() / 16;
  if (times_held + times.size() > kLimit || values_held + values.size() > kLimit) {
    return make_error(where, "clip holds too many keys");
  }
  for (std::size_t k = 0; k < times.size(); ++k) {
    if (!std::isfinite(times[k])) {
      return make_error(where, "key " + std::to_string(k) + " has a non-finite time");
    }
    if (times[k] < 0) {
      return make_error(
          where, "key " + std::to_string(k) + " has a negative time " + std::to_string(times[k]));
    }
    if (k > 0 && !(times[k] > times[k - 1])) {
      return make_error(where, "key times not strictly increasing at key " + std::to_string(k) +
                                   " (" + std::to_string(times[k - 1]) + " then " +
                                   std::to_string(times[k]) + ")");
    }
  }
  for (std::size_t v = 0; v < values.size(); ++v) {
    if (!std::isfinite(values[v])) {
      return make_error(where, "key " + std::to_string(v / per_key) + " has a non-finite value");
    }
  }
  return {};
}

}  // namespace

Status ClipBuilder::add_track(JointIndex joint, std::string_view joint_name, TrackTarget target,
                              Interpolation interpolation, std::span<const float> times,
                              std::span<const float> values, std::string_view where) {
  const std::size_t per_key = floats_per_key(target, interpolation);
  if (Status st =
          check_keys(clip_.times_.size(), clip_.values_.size(), per_key, times, values, where);
      !st)
    return st;

  Track track;
  track.joint = joint;
  track.target = target;
  track.interpolation = interpolation;
  track.first_key = static_cast<std::uint32_t>(clip_.times_.size());
  track.key_count = static_cast<std::uint32_t>(times.size());
  track.first_value = static_cast<std::uint32_t>(clip_.values_.size());
  clip_.times_.insert(clip_.times_.end(), times.begin(), times.end());
  clip_.values_.insert(clip_.values_.end(), values.begin(), values.end());
  if (target == TrackTarget::kRotation && interpolation != Interpolation::kCubicSpline) {
    for (std::size_t k = 0; k < times.size(); ++k) {
      float* q = clip_.values_.data() + track.first_value + k * 4;
      // Keys already of unit length within float rounding stay as given: normalizing again moves
      // their last bits, so a clip built from another clip's keys (an archive read back, a
      // compiled clip's exact keys) would not be the same clip.
      const Quat given{q[0], q[1], q[2], q[3]};
      if (std::abs(dot(given, given) - 1.0f) <= kUnitLengthSlack) continue;
      const Quat n = normalize(given);
      q[0] = n.x, q[1] = n.y, q[2] = n.z, q[3] = n.w;
    }
  }
  clip_.tracks_.push_back(track);
  clip_.track_joint_names_.emplace_back(joint_name);
  return {};
}

Status ClipBuilder::add_weight_track(JointIndex node, std::string_view node_name,
                                     std::uint32_t first_weight, std::uint32_t weight_count,
                                     Interpolation interpolation, std::span<const float> times,
                                     std::span<const float> values, std::string_view where) {
  if (weight_count == 0) return make_error(where, "a weight track drives no weights");
  if (weight_count > (1u << 20) || first_weight > (1u << 24))
    return make_error(where, "weight slots [" + std::to_string(first_weight) + ", +" +
                                 std::to_string(weight_count) + ") are out of any sane range");
  WeightTrack track;
  track.node = node;
  track.interpolation = interpolation;
  track.first_weight = first_weight;
  track.weight_count = weight_count;
  if (Status st = check_keys(clip_.times_.size(), clip_.values_.size(), floats_per_key(track),
                             times, values, where);
      !st)
    return st;
  track.first_key = static_cast<std::uint32_t>(clip_.times_.size());
  track.key_count = static_cast<std::uint32_t>(times.size());
  track.first_value = static_cast<std::uint32_t>(clip_.values_.size());
  clip_.times_.insert(clip_.times_.end(), times.begin(), times.end());
  clip_.values_.insert(clip_.values_.end(), values.begin(), values.end());
  clip_.weight_tracks_.push_back(track);
  clip_.weight_track_names_.emplace_back(node_name);
  return {};
}

void ClipBuilder::add_event(float time, std::string name) {
  clip_.events_.push_back({time, std::move(name)});
}

Result<Clip> ClipBuilder::build(std::size_t joint_count, std::string_view where) {
  Clip clip = clip_;
  clip.joint_count_ = joint_count;
  float last = 0;
  for (const Track& t : clip.tracks_) {
    if (t.joint >= joint_count) {
      return make_error(where, "track targets joint " + std::to_string(t.joint) + " of " +
                                   std::to_string(joint_count));
    }
    last = std::max(last, clip.times_[t.first_key + t.key_count - 1]);
  }
  // Sort tracks by joint, then channel: sampling walks the pose in order.
  std::vector<std::size_t> order(clip.tracks_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Track& ta = clip.tracks_[a];
    const Track& tb = clip.tracks_[b];
    return ta.joint != tb.joint ? ta.joint < tb.joint : ta.target < tb.target;
  });
  std::vector<Track> tracks;
  std::vector<std::string> names;
  tracks.reserve(order.size());
  names.reserve(order.size());
  for (std::size_t i : order) {
    if (!tracks.empty() && tracks.back().joint == clip.tracks_[i].joint &&
        tracks.back().target == clip.tracks_[i].target) {
      return make_error(where, "joint '" + clip.track_joint_names_[i] + "' has two " +
                                   std::string(to_string(clip.tracks_[i].target)) + " tracks");
    }
    tracks.push_back(clip.tracks_[i]);
    names.push_back(clip.track_joint_names_[i]);
  }
  clip.tracks_ = std::move(tracks);
  clip.track_joint_names_ = std::move(names);

  // Weight tracks: sorted by slot, inside the weight array, no slot driven twice.
  std::size_t weight_end = 0;
  for (const WeightTrack& t : clip.weight_tracks_) {
    if (t.node >= joint_count) {
      return make_error(where, "weight track drives node " + std::to_string(t.node) + " of " +
                                   std::to_string(joint_count));
    }
    weight_end = std::max<std::size_t>(weight_end, std::size_t{t.first_weight} + t.weight_count);
    last = std::max(last, clip.times_[t.first_key + t.key_count - 1]);
  }
  if (has_explicit_weight_count_) {
    if (weight_end > explicit_weight_count_) {
      return make_error(where, "a weight track drives slot " + std::to_string(weight_end - 1) +
                                   " of a weight array of " +
                                   std::to_string(explicit_weight_count_));
    }
    weight_end = explicit_weight_count_;
  }
  clip.weight_count_ = weight_end;
  order.resize(clip.weight_tracks_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return clip.weight_tracks_[a].first_weight < clip.weight_tracks_[b].first_weight;
  });
  std::vector<WeightTrack> weight_tracks;
  std::vector<std::string> weight_names;
  weight_tracks.reserve(order.size());
  weight_names.reserve(order.size());
  for (std::size_t i : order) {
    const WeightTrack& t = clip.weight_tracks_[i];
    if (!weight_tracks.empty() &&
        weight_tracks.back().first_weight + weight_tracks.back().weight_count > t.first_weight) {
      return make_error(where, "node '" + clip.weight_track_names_[i] +
                                   "': its weight track overlaps the slots of node '" +
                                   weight_names.back() + "'");
    }
    weight_tracks.push_back(t);
    weight_names.push_back(clip.weight_track_names_[i]);
  }
  clip.weight_tracks_ = std::move(weight_tracks);
  clip.weight_track_names_ = std::move(weight_names);

  clip.duration_ = std::max(last, explicit_duration_);
  for (const ClipEvent& e : clip.events_) {
    if (!std::isfinite(e.time) || e.time < 0) {
      return make_error(where, "event '" + e.name + "' has an invalid time");
    }
  }
  std::stable_sort(clip.events_.begin(), clip.events_.end(),
                   [](const ClipEvent& a, const ClipEvent& b) { return a.time < b.time; });
  return clip;
}

namespace {

// `count` key times from `first`, times `scale`.
std::vector<float> scaled_times(const Clip& clip, std::uint32_t first, std::uint32_t count,
                                double scale) {
  std::vector<float> times(count);
  for (std::uint32_t k = 0; k < count; ++k)
    times[k] = static_cast<float>(clip.times()[first + k] * scale);
  return times;
}

// The values of `keys` keys of `width` floats each from `first`; a cubic spline's in- and
// out-tangents (the first and last third of each key) divided by `scale`.
std::vector<float> scaled_values(const Clip& clip, Interpolation interpolation, std::uint32_t first,
                                 std::uint32_t keys, std::uint32_t width, double scale) {
  const std::uint32_t stride = interpolation == Interpolation::kCubicSpline ? 3 * width : width;
  std::vector<float> values(clip.values().begin() + first,
                            clip.values().begin() + first + std::size_t{keys} * stride);
  if (interpolation != Interpolation::kCubicSpline) return values;
  for (std::uint32_t k = 0; k < keys; ++k)
    for (std::uint32_t c = 0; c < width; ++c) {
      float* key = values.data() + std::size_t{k} * stride;
      key[c] = static_cast<float>(key[c] / scale);
      key[2 * width + c] = static_cast<float>(key[2 * width + c] / scale);
    }
  return values;
}

}  // namespace

Result<Clip> rescale_clip_time(const Clip& clip, double scale, double ticks_per_second,
                               std::string_view where) {
  if (!(std::isfinite(scale) && scale > 0))
    return make_error(where, "time scale " + std::to_string(scale) + " is not positive");
  ClipBuilder builder(clip.name());
  builder.set_ticks_per_second(ticks_per_second);
  builder.set_duration(static_cast<float>(clip.duration() * scale));
  const std::span<const std::string> joint_names = clip.track_joint_names();
  for (std::size_t t = 0; t < clip.tracks().size(); ++t) {
    const Track& track = clip.tracks()[t];
    const std::vector<float> times = scaled_times(clip, track.first_key, track.key_count, scale);
    const std::vector<float> values =
        scaled_values(clip, track.interpolation, track.first_value, track.key_count,
                      components_of(track.target), scale);
    if (Status st = builder.add_track(track.joint,
                                      t < joint_names.size() ? joint_names[t] : std::string_view{},
                                      track.target, track.interpolation, times, values, where);
        !st)
      return st.error();
  }
  const std::span<const std::string> node_names = clip.weight_track_node_names();
  for (std::size_t t = 0; t < clip.weight_tracks().size(); ++t) {
    const WeightTrack& track = clip.weight_tracks()[t];
    const std::vector<float> times = scaled_times(clip, track.first_key, track.key_count, scale);
    const std::vector<float> values = scaled_values(clip, track.interpolation, track.first_value,
                                                    track.key_count, track.weight_count, scale);
    if (Status st = builder.add_weight_track(
            track.node, t < node_names.size() ? node_names[t] : std::string_view{},
            track.first_weight, track.weight_count, track.interpolation, times, values, where);
        !st)
      return st.error();
  }
  builder.set_weight_count(clip.weight_count());
  for (const ClipEvent& e : clip.events())
    builder.add_event(static_cast<float>(e.time * scale), e.name);
  return builder.build(clip.joint_count(), where);
}

}  // namespace marrow
