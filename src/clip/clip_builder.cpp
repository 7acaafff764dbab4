#include "marrow/clip/clip_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "marrow/math/quat.h"

namespace marrow {

ClipBuilder::ClipBuilder(std::string name) {
  clip_.name_ = std::move(name);
}

Status ClipBuilder::add_track(JointIndex joint, std::string_view joint_name, TrackTarget target,
                              Interpolation interpolation, std::span<const float> times,
                              std::span<const float> values, std::string_view where) {
  if (times.empty()) return make_error(where, "track has no keys");
  const std::size_t per_key = floats_per_key(target, interpolation);
  if (values.size() != times.size() * per_key) {
    return make_error(where, std::to_string(times.size()) + " key times but " +
                                 std::to_string(values.size()) + " values (expected " +
                                 std::to_string(times.size() * per_key) + ")");
  }
  constexpr std::size_t kLimit = std::numeric_limits<std::uint32_t>::max() / 16;
  if (clip_.times_.size() + times.size() > kLimit ||
      clip_.values_.size() + values.size() > kLimit) {
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
      const Quat n = normalize(Quat{q[0], q[1], q[2], q[3]});
      q[0] = n.x, q[1] = n.y, q[2] = n.z, q[3] = n.w;
    }
  }
  clip_.tracks_.push_back(track);
  clip_.track_joint_names_.emplace_back(joint_name);
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

}  // namespace marrow
