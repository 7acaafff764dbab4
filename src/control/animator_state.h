// The Animator's per-character state, shared by animator.cpp (the calls that change players),
// animator_update.cpp (time, sync, events, root motion) and animator_evaluate.cpp (sampling,
// blending, inertialization). Internal.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "control/inertial_dispatch.h"
#include "marrow/control/animator.h"
#include "marrow/control/inertialization.h"
#include "playhead.h"

namespace marrow {

namespace control_detail {

struct Fade {
  float from = 1, to = 1;
  float duration = 0, elapsed = 0;
  float value = 1;  // the factor now
  FadeCurve curve = FadeCurve::kLinear;
  bool running = false;
  bool stop_at_zero = false;
};

struct Warp {
  float from = 1, to = 1;
  float duration = 0, elapsed = 0;
  bool running = false;
};

enum class SlotKind : std::uint8_t { kClip, kBlendSpace, kSample };

// One player slot. A clip player is one kClip slot; a blend space is a kBlendSpace head (weight,
// fade, speed, parameter) and one kSample slot per sample (clip time and cursor).
struct Slot {
  bool active = false;
  SlotKind kind = SlotKind::kClip;
  std::uint16_t generation = 0;
  std::uint32_t layer = 0;
  std::int32_t head = -1;        // kSample: its blend space's slot
  std::int32_t sync_group = -1;  // < kMaxSyncGroups: the user's; above: a blend space's own
  SyncMode sync_mode = SyncMode::kMarkers;
  ClipId clip = kNoId;
  BlendSpaceId space = kNoId;
  std::uint32_t sample = 0;  // kSample: index in the space

  // Time (kClip and kSample).
  Playhead playhead;
  PlayheadRules rules;
  Playhead prev_playhead;  // before the last update (its events are re-walked from it)
  double last_delta = 0;   // signed clip seconds the last update moved it

  // Speed (kClip and kBlendSpace; samples read their head's).
  float time_scale = 1;
  double ticks_per_second = 0;  // 0: the clip's own
  Warp warp;
  bool paused = false;

  // Weight (kClip and kBlendSpace).
  float weight = 1;
  Fade fade;
  float blend_x = 0, blend_y = 0;
  float sample_weight = 0;    // kSample: from the space's parameter
  float prev_effective = 0;   // the effective weight before the last update
  bool fresh = true;          // not yet advanced by an update: cross_fade fades it in from 0
  bool follower = false;      // set by the last update
  bool emits = false;         // fires events in the last update
  bool stop_pending = false;  // its fade-out reached 0: stops after this update's events
};

// weight * fade of a clip player or blend space; a sample's is its space's times its weight.
inline float own_effective(const Slot& s) {
  return s.weight * s.fade.value;
}
float total_effective(std::span<const Slot> slots, const Slot& s);
// The group's leader: the member with the largest total effective weight (the lowest slot on a
// tie); -1 when the group has no member.
int find_leader(std::span<const Slot> slots, std::int32_t group);
// Signed clip seconds that bring `follower` in phase with `leader`: marker to matching marker,
// or normalized time (phase mode, or when the follower lacks the leader's markers).
double sync_delta(const ClipSet& set, const Slot& leader, const Slot& follower);
// Moves every follower of `group` to its leader's phase at once (a jump: nothing fires).
void snap_group(const ClipSet& set, std::span<Slot> slots, std::int32_t group);
// Clip seconds per second of time scale: a ticks-per-second override over the clip's own.
double clip_rate(const ClipSet& set, ClipId clip, double ticks_per_second);

// A morph weight set or faded by hand. The slot shows lerp(base, held, amount): base is `from`
// or, when `from` is NaN, what the clips give; amount 0 leaves the slot to the clips. The held
// weight is `to`, except while a fade redirected part way in from the clips moves it from
// `to_start` (at amount `start_amount`) to `to` (at amount 1), so the weight shown never jumps.
struct MorphByHand {
  float from = std::numeric_limits<float>::quiet_NaN();
  float to = 0;
  float to_start = 0;
  float start_amount = 1;
  float amount = 0;
  float rate = 0;  // amount per second: > 0 fading in, < 0 fading back to the clips

  float held() const {
    if (start_amount >= 1 || amount <= start_amount) return amount < 1 ? to_start : to;
    return to_start + (to - to_start) * (amount - start_amount) / (1 - start_amount);
  }
};

// What an Animator holds: its players and their cursors, contexts and fades.
struct AnimatorState {
  std::vector<control_detail::Slot> slots;
  std::vector<control_detail::Slot> ghost;        // inertialization's source, advanced alongside
  std::vector<SamplingCursor> cursors;            // per slot, exact clips
  std::vector<CompiledSamplingContext> contexts;  // per slot, compiled clips
  std::vector<float> layer_weights;
  std::vector<control_detail::InertialGroup> inertial;  // one per SoA group of joints
  float inertial_duration = 0, inertial_elapsed = 0;
  bool inertial_active = false;
  bool inertial_pending = false;
  float pending_duration = 0;
  float last_dt = 0;
  bool in_update = false;
  bool exact_reserved = false;
  // Morph weights set by hand, one per slot of the set's weight array.
  std::vector<control_detail::MorphByHand> morph_by_hand;
};

}  // namespace control_detail

using control_detail::AnimatorState;

namespace control_detail {
// Moves the morph fades set by hand on by dt seconds (Animator::update).
void advance_morph_fades(std::span<MorphByHand> slots, float dt);
}  // namespace control_detail

// The slot of an addressable player (a clip or a blend space), or null for a stale id.
control_detail::Slot* find_slot(AnimatorState& state, PlayerId id);

}  // namespace marrow
