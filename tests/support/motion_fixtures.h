// A hand-built walker for motion-matching tests and benchmarks: a skeleton with hips, two legs
// and feet standing on y = 0, clips that move and turn its root at a known rate, and the
// locomotion schema at 30 Hz, so features can be computed by hand.
#pragma once

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "marrow/clip/clip_builder.h"
#include "marrow/control/motion_database.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::test {

// root -> hips (1 up) -> a thigh on each side (0.1 out) -> knee (0.5 down) -> foot (0.5 down):
// the feet stand on y = 0, 0.1 to each side of the hips.
inline Skeleton walker_skeleton() {
  std::vector<JointDesc> joints = {{"root", -1, {}},      {"hips", 0, {}}, {"left_thigh", 1, {}},
                                   {"left_knee", 2, {}},  {"left", 3, {}}, {"right_thigh", 1, {}},
                                   {"right_knee", 5, {}}, {"right", 6, {}}};
  joints[1].rest.translation = {0, 1, 0};
  joints[2].rest.translation = {0.1f, 0, 0};
  joints[5].rest.translation = {-0.1f, 0, 0};
  for (int j : {3, 4, 6, 7}) joints[j].rest.translation = {0, -0.5f, 0};
  return std::move(Skeleton::build(joints, "walker").value());
}

// The root moves linearly from `from` to `to` over `duration` seconds, turned by `yaw` about +Y,
// and turning at `turn_rate` radians per second on top (sampled every 1/30 s); an event "step" at
// each of `steps` (seconds).
inline Clip walker_clip(const std::string& name, float duration, Vec3 from, Vec3 to, float yaw,
                        float turn_rate = 0, const std::vector<float>& steps = {}) {
  ClipBuilder b(name);
  for (float t : steps) b.add_event(t, "step");
  std::vector<float> times, translations, rotations;
  const int keys = static_cast<int>(std::lround(duration * 30)) + 1;
  for (int k = 0; k < keys; ++k) {
    const float t = static_cast<float>(k) / 30, u = t / duration;
    times.push_back(t);
    const Vec3 p = from + (to - from) * u;
    translations.insert(translations.end(), {p.x, p.y, p.z});
    const Quat q = from_axis_angle({0, 1, 0}, yaw + turn_rate * t);
    rotations.insert(rotations.end(), {q.x, q.y, q.z, q.w});
  }
  Status moved = b.add_track(0, "root", TrackTarget::kTranslation, Interpolation::kLinear, times,
                             translations, name);
  if (moved) {
    moved = b.add_track(0, "root", TrackTarget::kRotation, Interpolation::kLinear, times, rotations,
                        name);
  }
  if (!moved) std::abort();  // the fixture's own tracks are well formed
  return std::move(b.build(8, name).value());
}

inline MotionSchema walker_schema() {
  MotionSchema s = MotionSchema::locomotion("hips", "left", "right");
  s.sample_rate = 30;
  return s;
}

}  // namespace marrow::test
