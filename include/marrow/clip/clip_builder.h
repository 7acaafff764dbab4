/// @file
/// Builds an immutable Clip from raw keys, validating everything a file may get wrong.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"

namespace marrow {

class ClipBuilder {
 public:
  explicit ClipBuilder(std::string name);

  void set_ticks_per_second(double ticks_per_second) { clip_.ticks_per_second_ = ticks_per_second; }
  /// A duration longer than the last key (for instance a .X clip whose length is given apart).
  void set_duration(float seconds) { explicit_duration_ = seconds; }

  /// Adds a track. `times` are seconds, finite, >= 0 and strictly increasing; `values` hold
  /// floats_per_key(target, interpolation) floats per key, finite. Rotations of step and linear
  /// tracks are normalized. Errors name `where`.
  Status add_track(JointIndex joint, std::string_view joint_name, TrackTarget target,
                   Interpolation interpolation, std::span<const float> times,
                   std::span<const float> values, std::string_view where);

  /// Adds a morph-weight track driving slots [first_weight, first_weight + weight_count) of the
  /// character's weight array (see WeightTrack). `values` hold weight_count floats per key
  /// (three times that for CUBICSPLINE: in-tangents, values, out-tangents), finite; times as for
  /// add_track. Errors name `where`.
  Status add_weight_track(JointIndex node, std::string_view node_name, std::uint32_t first_weight,
                          std::uint32_t weight_count, Interpolation interpolation,
                          std::span<const float> times, std::span<const float> values,
                          std::string_view where);
  /// The size of the weight array the clip is built for. Defaults to the end of the last weight
  /// track's slots.
  void set_weight_count(std::size_t weight_count) {
    explicit_weight_count_ = weight_count;
    has_explicit_weight_count_ = true;
  }

  void add_event(float time, std::string name);

  /// Checks every track's joint against `joint_count`, that no joint channel has two tracks, and
  /// that weight tracks lie inside the weight array and do not overlap.
  Result<Clip> build(std::size_t joint_count, std::string_view where);

 private:
  Clip clip_;
  float explicit_duration_ = -1;
  std::size_t explicit_weight_count_ = 0;
  bool has_explicit_weight_count_ = false;
};

/// `clip` with every time (keys, events, duration) multiplied by `scale` (finite, > 0) and its
/// ticks per second set to `ticks_per_second`: a clip whose ticks were read at a guessed rate, read
/// again at the right one (`scale` = guessed rate / right rate). Cubic-spline tangents, which are
/// rates of change per second, are divided by `scale`, so the curve keeps its shape. Errors (times
/// that stop being distinct in float) name `where`.
Result<Clip> rescale_clip_time(const Clip& clip, double scale, double ticks_per_second,
                               std::string_view where);

}  // namespace marrow
