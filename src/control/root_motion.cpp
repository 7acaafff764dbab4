#include "root_motion.h"

#include "marrow/clip/sampling.h"

namespace marrow::control_detail {

Transform root_local_at(const Clip& clip, const RootMotionTrack& track, const Transform& rest,
                        float time) {
  Transform local = rest;
  const std::span<const Track> tracks = clip.tracks();
  if (track.translation_track < tracks.size()) {
    const Track& t = tracks[track.translation_track];
    const std::span<const float> times = clip.times().subspan(t.first_key, t.key_count);
    float v[3];
    evaluate_track(clip, t, time, find_key(times, time, 0), v);
    local.translation = {v[0], v[1], v[2]};
  }
  if (track.rotation_track < tracks.size()) {
    const Track& t = tracks[track.rotation_track];
    const std::span<const float> times = clip.times().subspan(t.first_key, t.key_count);
    float v[4];
    evaluate_track(clip, t, time, find_key(times, time, 0), v);
    local.rotation = normalize(Quat{v[0], v[1], v[2], v[3]});
  }
  return local;
}

}  // namespace marrow::control_detail
