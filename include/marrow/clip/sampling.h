/// @file
/// Sampling a clip at any time. The clip holds no playback state: each player keeps a
/// SamplingCursor (the last key index per track) so forward playback is O(1) per track and a seek
/// is a binary search. Nothing here allocates except SamplingCursor::bind.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "marrow/clip/clip.h"
#include "marrow/math/transform.h"

namespace marrow {

enum class WrapMode : std::uint8_t {
  kClamp,     ///< hold the first key before 0 and the last key after the duration
  kLoop,      ///< repeat with period = duration
  kPingPong,  ///< forward, then backward, period = 2 * duration
};

/// Maps a player's time into [0, duration] under the wrap mode. A zero duration gives 0.
float wrap_time(float time, float duration, WrapMode mode);

class SamplingCursor {
 public:
  SamplingCursor() = default;
  explicit SamplingCursor(const Clip& clip) { bind(clip); }
  /// Sizes the cursor for `clip`'s joint and weight tracks (allocates once) and rewinds it.
  void bind(const Clip& clip);
  void rewind();
  const Clip* clip() const { return clip_; }
  std::span<std::uint32_t> keys() { return keys_; }

 private:
  const Clip* clip_ = nullptr;
  std::vector<std::uint32_t> keys_;
};

/// Index k of the key segment [times[k], times[k+1]) holding `time` (0 before the first key,
/// last index at or after the last key), starting the search from `hint`.
std::uint32_t find_key(std::span<const float> times, float time, std::uint32_t hint);

/// Writes the channels `clip` animates at `time` (seconds; clamped to the keys) into `pose`,
/// leaving every other channel as it was. Returns false, writing nothing, when `pose` is shorter
/// than the clip's skeleton or the cursor is bound to another clip.
bool sample_tracks(const Clip& clip, float time, SamplingCursor& cursor, std::span<Transform> pose);
/// The same without a cursor: every track is a binary search. The reference the cursor is
/// tested against.
bool sample_tracks(const Clip& clip, float time, std::span<Transform> pose);

/// The full local pose of `clip` at `time`: the rest pose, overwritten by the animated channels.
bool sample(const Clip& clip, std::span<const Transform> rest_pose, float time,
            SamplingCursor& cursor, std::span<Transform> pose);

/// Value of one track at `time`, for inspection and tests. Writes components_of(target) floats.
void evaluate_track(const Clip& clip, const Track& track, float time, std::uint32_t key,
                    float* out);

/// Morph-target weights. The same cursor serves joint and weight tracks (bind sizes it for both),
/// so a player samples a frame with sample() and sample_weights() and one cursor.
///
/// Writes the weights `clip` animates at `time` into their slots of `weights` (the character's
/// weight array, skin/morph.h), leaving every other slot as it was. Returns false, writing
/// nothing, when `weights` is shorter than clip.weight_count() or the cursor is bound to another
/// clip.
bool sample_weight_tracks(const Clip& clip, float time, SamplingCursor& cursor,
                          std::span<float> weights);
/// The same without a cursor (every track a binary search): the reference.
bool sample_weight_tracks(const Clip& clip, float time, std::span<float> weights);
/// The full weight array at `time`: `default_weights` (one per slot, at least
/// clip.weight_count()), overwritten by the animated slots.
bool sample_weights(const Clip& clip, std::span<const float> default_weights, float time,
                    SamplingCursor& cursor, std::span<float> weights);

/// The weights of one weight track at `time` as glTF 2.0 defines them for the `weights` path
/// (STEP holds, LINEAR lerps, CUBICSPLINE is the Hermite spline with tangents scaled by the key
/// interval; nothing is normalized or clamped). Writes track.weight_count floats. `key` is the
/// segment index (find_key).
void evaluate_weight_track(const Clip& clip, const WeightTrack& track, float time,
                           std::uint32_t key, float* out);

}  // namespace marrow
