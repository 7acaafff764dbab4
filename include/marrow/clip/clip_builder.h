// Builds an immutable Clip from raw keys, validating everything a file may get wrong.
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
  // A duration longer than the last key (for instance a .X clip whose length is given apart).
  void set_duration(float seconds) { explicit_duration_ = seconds; }

  // Adds a track. `times` are seconds, finite, >= 0 and strictly increasing; `values` hold
  // floats_per_key(target, interpolation) floats per key, finite. Rotations of step and linear
  // tracks are normalized. Errors name `where`.
  Status add_track(JointIndex joint, std::string_view joint_name, TrackTarget target,
                   Interpolation interpolation, std::span<const float> times,
                   std::span<const float> values, std::string_view where);

  void add_event(float time, std::string name);

  // Checks every track's joint against `joint_count` and that no joint channel has two tracks.
  Result<Clip> build(std::size_t joint_count, std::string_view where);

 private:
  Clip clip_;
  float explicit_duration_ = -1;
};

}  // namespace marrow
