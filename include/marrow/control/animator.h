/// @file
/// The Animator: what a game ticks once per frame for one character. It holds the character's
/// players (three.js's actions: a clip or a blend space playing with its own time, speed, wrap
/// mode and weight), their fades, sync groups, root motion and inertialization, and turns them
/// into one local pose through the blend module. The clip data lives in a shared ClipSet.
///
/// @code
///   Result<Animator> animator = Animator::create(set);
///   Result<PlayerId> walk = animator->play(set->clip_id("Walk").value());
///   AnimatorWorkspace workspace(*set);                   // per thread, reused by every character
///   std::vector<SoaTransform> local(soa_group_count(set->skeleton().size()));
///   // per frame:
///   animator->update(dt, events);                        // time, fades, sync, events, root motion
///   animator->evaluate(workspace, local);                // sample, blend, inertialize
///   SoaLocalToModelJob{...}.run();                       // as for any pose
/// @endcode
///
/// Per frame (update, evaluate and the value setters) nothing allocates, locks, throws or calls
/// virtually. Bad values are clamped as documented on each call, never turned into NaN poses.
/// An Animator is used by one thread at a time; a workspace likewise.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/compiled_sampling.h"
#include "marrow/clip/sampling.h"
#include "marrow/control/clip_set.h"
#include "marrow/control/events.h"
#include "marrow/math/soa_transform.h"
#include "marrow/pose/blend.h"

namespace marrow {

/// How a layer's players enter the blend (pose/blend.h, DESIGN.md §4). All normal layers' players
/// form one weighted average, all override layers' players one override average lerped over it,
/// additive layers' players are applied on top: one SoaBlendJob per frame.
enum class LayerMode : std::uint8_t { kNormal, kOverride, kAdditive };

struct LayerDesc {
  std::string name = "base";
  LayerMode mode = LayerMode::kNormal;
  float weight = 1;
  MaskId mask = kNoId;  ///< a ClipSet mask; kNoId: every joint
};

enum class FadeCurve : std::uint8_t {
  kLinear,  ///< weight moves at a constant rate
  kSmooth,  ///< ease in and out: 3u^2 - 2u^3 of the elapsed fraction u
};

/// The value of `curve` at u in [0, 1] (clamped).
float fade_curve(FadeCurve curve, float u);

inline constexpr std::uint32_t kMaxAnimatorPlayers = 64;
inline constexpr std::uint32_t kMaxSyncGroups = 16;
/// update() takes dt in [0, kMaxDeltaTime] seconds: a finite dt over it counts as kMaxDeltaTime,
/// a negative or non-finite one (NaN, either infinity) as 0, and UpdateResult::dt_clamped says so.
inline constexpr float kMaxDeltaTime = 3600.0f;
/// A player crossing more loop seams or turns than this in one update skips whole cycles beyond
/// them (their events are not fired; UpdateResult::skipped_crossings counts them).
inline constexpr std::uint32_t kMaxCrossingsPerUpdate = 100000;

struct AnimatorOptions {
  /// Empty: one normal layer named "base".
  std::vector<LayerDesc> layers{};
  /// The sync groups players may join (PlayOptions::sync_group indexes this), at most
  /// kMaxSyncGroups.
  std::vector<SyncMode> sync_groups{};
  /// Players at once, all layers together; a blend space takes one plus one per sample.
  std::uint32_t max_players = 8;
  /// Play a clip's compiled form where the set has one (false: always the exact clip, the
  /// reference the compiled path is tested against).
  bool prefer_compiled = true;
  /// Reserve the per-joint state inertialize() needs (about 80 bytes per joint and a second copy
  /// of the players). Without it inertialize() is an error.
  bool inertialization = false;
  /// Deliver sync markers as kMarker events.
  bool marker_events = false;
  float blend_threshold = kDefaultBlendThreshold;
};

struct PlayOptions {
  std::uint32_t layer = 0;
  float weight = 1;
  /// Clip seconds per second; negative plays backwards.
  float time_scale = 1;
  /// The .X controller's SetTicksPerSecond: play the clip as if its source counted this many
  /// ticks per second (rate = this / the clip's own). 0 keeps the clip's rate.
  double ticks_per_second = 0;
  WrapMode wrap = WrapMode::kLoop;
  /// Loop and ping-pong: passes through the clip before the player finishes (a partial first pass
  /// from start_offset counts); 0 plays forever. Ping-pong counts each direction as a pass.
  std::uint32_t repetitions = 0;
  /// Seconds into the clip where play starts, in the direction of play: from the end when
  /// time_scale is negative.
  float start_offset = 0;
  /// Fade in from weight 0 over this many seconds (0: start at full weight).
  float fade_in = 0;
  FadeCurve fade_curve = FadeCurve::kLinear;
  /// Join a sync group (AnimatorOptions::sync_groups); -1: none.
  std::int32_t sync_group = -1;
  /// A blend space's parameter.
  float blend_x = 0, blend_y = 0;
};

struct PlayerInfo {
  bool active = false;
  ClipId clip = kNoId;               ///< kNoId for a blend space
  BlendSpaceId blend_space = kNoId;  ///< kNoId for a clip
  std::uint32_t layer = 0;
  float time = 0;  ///< clip seconds (a blend space: its leader's)
  float duration = 0;
  float weight = 0;            ///< as set
  float fade = 0;              ///< the fade factor, 0..1
  float effective_weight = 0;  ///< weight * fade (three.js's getEffectiveWeight)
  float time_scale = 0;
  std::uint32_t passes = 0;
  bool paused = false;
  bool finished = false;
  bool follower = false;           ///< its time is set by its sync group's leader
  float blend_x = 0, blend_y = 0;  ///< a blend space's parameter, as set
};

struct UpdateResult {
  std::size_t events = 0;          ///< fired during the update
  std::size_t events_written = 0;  ///< of those, written to the buffer (it may be too short)
  std::uint64_t skipped_crossings = 0;
  bool dt_clamped = false;  ///< dt was NaN, infinite, negative or over kMaxDeltaTime
  bool refused = false;     ///< update() was called from inside one of its own event callbacks
  /// This update's root motion, in model space: move the character by it (world = world * delta).
  Transform root_motion{};
};

/// Scratch poses for evaluate(): per thread, shared by every Animator that thread evaluates.
class AnimatorWorkspace {
 public:
  AnimatorWorkspace() = default;
  explicit AnimatorWorkspace(const ClipSet& set, std::uint32_t max_players = 8) {
    reserve(set, max_players);
  }
  /// Sizes the buffers (allocates) for animators of `set` with up to `max_players` players.
  void reserve(const ClipSet& set, std::uint32_t max_players);
  std::size_t joint_count() const { return joints_; }
  std::uint32_t max_players() const { return max_players_; }

 private:
  friend class Animator;
  std::size_t joints_ = 0;
  std::uint32_t max_players_ = 0;
  std::vector<SoaTransform> poses_;  ///< max_players poses, then 4 more for inertialization
  std::vector<Transform> aos_;       ///< exact sampling
  std::vector<float> morph_;         ///< max_players weight arrays
};

namespace control_detail {
struct AnimatorState;  ///< players, cursors, fades: src/control/animator_state.h
}

class Animator {
 public:
  /// Errors: no set, more than kMaxAnimatorPlayers players, a layer mask that is not in the set,
  /// too many sync groups, a non-finite layer weight or threshold.
  static Result<Animator> create(std::shared_ptr<const ClipSet> set, AnimatorOptions options = {});

  Animator(Animator&&) noexcept;
  Animator& operator=(Animator&&) noexcept;
  ~Animator();

  const ClipSet& clip_set() const { return *set_; }
  const std::shared_ptr<const ClipSet>& shared_clip_set() const { return set_; }
  const AnimatorOptions& options() const { return options_; }

  /// --- Players. Errors name what is wrong (unknown clip, full, bad option, clip without markers
  /// in a marker sync group, an additive clip off an additive layer).
  Result<PlayerId> play(ClipId clip, const PlayOptions& options = {});
  Result<PlayerId> play_blend_space(BlendSpaceId space, const PlayOptions& options = {});
  /// Stops at once (no fade); false for an id that is not playing.
  bool stop(PlayerId player);
  void stop_all();
  /// A paused player keeps its clip time; its fades and warps go on.
  bool set_paused(PlayerId player, bool paused);
  /// Jumps to `seconds` of clip time (clamped to the clip) without firing what lies between; the
  /// events at the new time fire when the player leaves it. Resets finished and the pass count is
  /// kept. Errors: stale id, non-finite time, a follower of a sync group.
  Status set_time(PlayerId player, float seconds);
  /// Fades: the fade factor moves from its current value to 1 (fade_in) or 0 (fade_out) over
  /// `duration` seconds along `curve`, so a fade that starts during another one starts where that
  /// one was. A fade_out with stop_when_faded stops the player when it reaches 0.
  /// Errors: stale id, duration negative or not finite. A duration of 0 jumps.
  Status fade_in(PlayerId player, float duration, FadeCurve curve = FadeCurve::kLinear);
  Status fade_out(PlayerId player, float duration, FadeCurve curve = FadeCurve::kLinear,
                  bool stop_when_faded = true);
  /// fade_out(from) and fade_in(to) together; the players must be on one layer. A `to` that no
  /// update has advanced yet (just played) fades in from 0; otherwise from where its fade is.
  Status cross_fade(PlayerId from, PlayerId to, float duration,
                    FadeCurve curve = FadeCurve::kLinear);
  /// The time scale ramps linearly from its current value to `time_scale` over `duration`.
  Status warp(PlayerId player, float time_scale, float duration);
  /// Switches from `from` to `to` at once (from stops, to takes full weight without a fade) and
  /// decays the pose difference between what was playing and what plays now over `duration`
  /// seconds with Bollo's quintic (inertialization.h): pose and velocity are continuous at the
  /// switch, which happens at the next evaluate(). Needs AnimatorOptions::inertialization.
  Status inertialize(PlayerId from, PlayerId to, float duration);

  /// Per-frame setters: they return false for a stale id or a value they had to change. Weight:
  /// NaN or infinite is ignored (the old value stays), negative clamps to 0. Time scale: NaN or
  /// infinite is ignored. Ticks per second: <= 0 or not finite restores the clip's own rate.
  bool set_weight(PlayerId player, float weight);
  bool set_time_scale(PlayerId player, float time_scale);
  bool set_ticks_per_second(PlayerId player, double ticks_per_second);
  /// A blend space's parameter; non-finite coordinates are ignored. Outside the samples the space
  /// clamps (blend_space.h).
  bool set_blend_parameter(PlayerId player, float x, float y = 0);
  /// Layer weight in [0, 1] for normal and override layers (clamped), any finite value for
  /// additive ones; NaN or infinite is ignored.
  bool set_layer_weight(std::uint32_t layer, float weight);

  bool is_playing(PlayerId player) const;
  PlayerInfo info(PlayerId player) const;
  float effective_weight(PlayerId player) const { return info(player).effective_weight; }
  /// The players one may address (blend-space samples are not listed), in slot order.
  std::size_t player_count() const;
  PlayerId player(std::size_t index) const;

  /// --- Per frame.
  /// Advances every player by dt seconds (clamped, see UpdateResult::dt_clamped): fades, warps,
  /// time, loops, sync, root motion; then fires the events every player passed, in time order.
  UpdateResult update(float dt);
  /// Events go to `events`, as many as fit; UpdateResult::events counts all.
  UpdateResult update(float dt, std::span<AnimationEvent> events);
  /// Events go to `callback` one by one, after the advance. The callback may call the Animator
  /// (play, stop, fades...): the calls act on the state after this update and take effect from
  /// the next one; a nested update() is refused.
  UpdateResult update(float dt, EventCallback callback, void* user);
  const Transform& root_motion() const { return root_motion_; }

  /// Samples every player with a weight, blends them through the layer stack (one SoaBlendJob),
  /// takes the root motion out and applies inertialization. `local` holds
  /// soa_group_count(joints) groups. Returns false, writing nothing, when the workspace is too
  /// small for this animator or `local` is too short.
  bool evaluate(AnimatorWorkspace& workspace, std::span<SoaTransform> local);
  /// The same into one Transform per joint.
  bool evaluate(AnimatorWorkspace& workspace, std::span<Transform> local);

  /// --- Morph-target weights: the set's weight array (ClipSet::morph_weight_count(), slots as
  /// in skin/morph.h's MorphLayout).
  /// By hand: the slot shows `weight` whatever the clips say until it is released (a blink, a
  /// talking mouth driven by audio). False for a slot out of range or a weight that is NaN or
  /// infinite (ignored).
  bool set_morph_weight(std::uint32_t slot, float weight);
  /// Moves the slot linearly from the weight it shows now (the clips', or one held by hand) to
  /// `weight` over `seconds` of update() time, then holds it as set_morph_weight does. A fade that
  /// interrupts a fade in from the clips goes on from the mix reached so far. False for a slot out
  /// of range, a weight that is not finite, or seconds below 0 or not finite (ignored).
  bool fade_morph_weight(std::uint32_t slot, float weight, float seconds);
  /// Gives the slot back to the clips: at once, or blending back to them over `seconds`. False
  /// for a slot out of range or seconds below 0 or not finite.
  bool release_morph_weight(std::uint32_t slot, float seconds = 0);
  void release_morph_weights();
  /// After update(): every weighted player's weights (its clip's weight tracks at the player's
  /// time over the set's defaults; an additive clip's over zeros) blended through the layer stack
  /// as evaluate() blends poses (BlendJob's morph rules: the normal average with the defaults
  /// making up a summed weight below the threshold, override layers lerped over it, additive
  /// layers adding; a layer's mask selects slots through ClipSet::morph_mask), then the weights
  /// set by hand. Inertialization switches weights at once: it decays pose offsets only.
  /// Returns false, writing nothing, when `weights` is shorter than the set's count or the
  /// workspace was not reserved for this set and player count.
  bool evaluate_morph_weights(AnimatorWorkspace& workspace, std::span<float> weights) const;

  /// Bytes this animator holds of its own (players, cursors, inertialization state), not the
  /// shared set's.
  std::size_t size_bytes() const;

 private:
  using State = control_detail::AnimatorState;
  Animator() = default;
  UpdateResult update_impl(float dt, std::span<AnimationEvent> events, EventCallback callback,
                           void* user);

  std::shared_ptr<const ClipSet> set_;
  AnimatorOptions options_;
  std::unique_ptr<State> state_;
  Transform root_motion_{};
};

}  // namespace marrow
