/// @file
/// A clip: immutable after build and shared by every player. Tracks of keys per joint channel;
/// a joint channel without a track keeps its rest-pose value when sampled. Morph-target weights
/// have tracks of their own (WeightTrack), kept apart so joint sampling is untouched by them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "marrow/skeleton/skeleton.h"

namespace marrow {

enum class Interpolation : std::uint8_t { kStep, kLinear, kCubicSpline };
enum class TrackTarget : std::uint8_t { kTranslation, kRotation, kScale };

std::string_view to_string(Interpolation interpolation);
std::string_view to_string(TrackTarget target);

/// Floats per key value: 3 for translation and scale, 4 for a rotation quaternion.
constexpr std::uint32_t components_of(TrackTarget target) {
  return target == TrackTarget::kRotation ? 4u : 3u;
}
/// Floats stored per key: cubic splines keep in-tangent, value and out-tangent (glTF order).
constexpr std::uint32_t floats_per_key(TrackTarget target, Interpolation interpolation) {
  return components_of(target) * (interpolation == Interpolation::kCubicSpline ? 3u : 1u);
}

struct Track {
  JointIndex joint = 0;
  TrackTarget target = TrackTarget::kTranslation;
  Interpolation interpolation = Interpolation::kLinear;
  std::uint32_t first_key = 0;    ///< index into Clip::times()
  std::uint32_t key_count = 0;    ///< at least 1
  std::uint32_t first_value = 0;  ///< index into Clip::values()
};

/// A track of morph-target weights (glTF's `weights` path): the weights of the targets of the
/// meshes on one node, `weight_count` floats per key value, written to slots [first_weight,
/// first_weight + weight_count) of a character's weight array (skin/morph.h lays that array out,
/// one range per node with morph targets). Weights are interpolated component by component and
/// never normalized; cubic-spline keys keep in-tangents, values and out-tangents, each
/// `weight_count` floats (glTF's order).
struct WeightTrack {
  JointIndex node = 0;  ///< the node whose meshes the weights drive
  Interpolation interpolation = Interpolation::kLinear;
  std::uint32_t first_weight = 0;  ///< slot of the first weight in the character's weight array
  std::uint32_t weight_count = 0;  ///< at least 1
  std::uint32_t first_key = 0;     ///< index into Clip::times()
  std::uint32_t key_count = 0;     ///< at least 1
  std::uint32_t first_value = 0;   ///< index into Clip::values()
};

/// Where the morph weights of one node live in a character's weight array: slots
/// [first, first + count), one per morph target of the node's meshes.
struct MorphSlots {
  JointIndex node = 0;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};

/// Floats stored per key of a weight track.
constexpr std::uint32_t floats_per_key(const WeightTrack& track) {
  return track.weight_count * (track.interpolation == Interpolation::kCubicSpline ? 3u : 1u);
}

struct ClipEvent {
  float time = 0;
  std::string name;
};

class Clip {
 public:
  const std::string& name() const { return name_; }
  /// Seconds from 0 to the last key of any track (0 for a single-key pose).
  float duration() const { return duration_; }
  /// The source's ticks per second (DirectX .X, FBX), or 0 when the source counts in seconds.
  double ticks_per_second() const { return ticks_per_second_; }
  /// The number of joints of the skeleton the clip was built for.
  std::size_t joint_count() const { return joint_count_; }

  std::span<const Track> tracks() const { return tracks_; }
  /// Name of the joint each track animates, parallel to tracks(): lets a clip be bound to
  /// another skeleton by name.
  std::span<const std::string> track_joint_names() const { return track_joint_names_; }
  /// Morph-weight tracks, sorted by first_weight, never overlapping.
  std::span<const WeightTrack> weight_tracks() const { return weight_tracks_; }
  /// Name of the node each weight track drives, parallel to weight_tracks().
  std::span<const std::string> weight_track_node_names() const { return weight_track_names_; }
  /// The size of the weight array the clip was built for (0 when it animates no weights).
  std::size_t weight_count() const { return weight_count_; }
  std::span<const float> times() const { return times_; }
  std::span<const float> values() const { return values_; }
  std::span<const ClipEvent> events() const { return events_; }

 private:
  friend class ClipBuilder;
  std::string name_;
  float duration_ = 0;
  double ticks_per_second_ = 0;
  std::size_t joint_count_ = 0;
  std::vector<Track> tracks_;
  std::vector<std::string> track_joint_names_;
  std::vector<WeightTrack> weight_tracks_;
  std::vector<std::string> weight_track_names_;
  std::size_t weight_count_ = 0;
  std::vector<float> times_;
  std::vector<float> values_;
  std::vector<ClipEvent> events_;
};

}  // namespace marrow
