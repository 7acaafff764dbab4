// The Animator's setup and the calls that start, stop and steer players. update() is in
// animator_update.cpp, evaluate() in animator_evaluate.cpp.
#include "marrow/control/animator.h"

#include "base/enum_names.h"

#include <algorithm>
#include <cmath>

#include "animator_state.h"

namespace marrow {

using control_detail::Slot;
using control_detail::SlotKind;

namespace {

constexpr float kMaxTimeScale = 1e6f;

std::uint32_t slot_of(PlayerId id) {
  return id.value & 0xFFFFu;
}
std::uint16_t generation_of(PlayerId id) {
  return static_cast<std::uint16_t>(id.value >> 16);
}
PlayerId make_id(std::uint32_t slot, std::uint16_t generation) {
  return PlayerId{(static_cast<std::uint32_t>(generation) << 16) | slot};
}

bool finite_non_negative(float v) {
  return std::isfinite(v) && v >= 0;
}

std::string player_where(PlayerId id) {
  return "player " + std::to_string(slot_of(id));
}

}  // namespace

std::string_view to_string(EventType type) {
  static constexpr std::array<std::string_view, 4> kNames{"event", "marker", "looped", "finished"};
  static_assert(detail::names_cover(kNames, EventType::kFinished));
  return detail::enum_name(type, kNames);
}

float fade_curve(FadeCurve curve, float u) {
  u = std::clamp(std::isfinite(u) ? u : 1.0f, 0.0f, 1.0f);
  return curve == FadeCurve::kSmooth ? u * u * (3 - 2 * u) : u;
}

namespace control_detail {

float total_effective(std::span<const Slot> slots, const Slot& s) {
  if (s.kind == SlotKind::kSample) return own_effective(slots[s.head]) * s.sample_weight;
  return own_effective(s);
}

int find_leader(std::span<const Slot> slots, std::int32_t group) {
  int leader = -1;
  float best = -1;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Slot& s = slots[i];
    if (!s.active || s.kind == SlotKind::kBlendSpace || s.sync_group != group) continue;
    const float w = total_effective(slots, s);
    if (w > best) best = w, leader = static_cast<int>(i);
  }
  return leader;
}

double clip_rate(const ClipSet& set, ClipId clip, double ticks_per_second) {
  const double own = set.clip(clip).ticks_per_second();
  if (!(ticks_per_second > 0) || !(own > 0)) return 1;
  return std::clamp(ticks_per_second / own, 1e-6, 1e6);
}

}  // namespace control_detail

void AnimatorWorkspace::reserve(const ClipSet& set, std::uint32_t max_players) {
  joints_ = set.skeleton().size();
  max_players_ = max_players;
  const std::size_t groups = soa_group_count(joints_);
  poses_.assign(groups * (max_players + 5), SoaTransform::identity());
  aos_.assign(joints_, Transform{});
  morph_.assign(set.morph_weight_count() * max_players, 0.0f);
}

Animator::Animator(Animator&&) noexcept = default;
Animator& Animator::operator=(Animator&&) noexcept = default;
Animator::~Animator() = default;

Result<Animator> Animator::create(std::shared_ptr<const ClipSet> set, AnimatorOptions options) {
  const std::string where = "animator";
  if (!set) return make_error(where, "no clip set");
  if (options.layers.empty()) options.layers.push_back(LayerDesc{});
  if (options.layers.size() > 32) return make_error(where, "more than 32 layers");
  if (options.max_players < 1 || options.max_players > kMaxAnimatorPlayers) {
    return make_error(where, "max_players must be 1 to " + std::to_string(kMaxAnimatorPlayers));
  }
  if (options.sync_groups.size() > kMaxSyncGroups) {
    return make_error(where, "more than " + std::to_string(kMaxSyncGroups) + " sync groups");
  }
  if (!std::isfinite(options.blend_threshold) || options.blend_threshold < kMinBlendThreshold) {
    return make_error(where, "the blend threshold must be finite and at least 1e-6");
  }
  for (std::size_t l = 0; l < options.layers.size(); ++l) {
    const LayerDesc& layer = options.layers[l];
    const std::string lw = "layer " + std::to_string(l) + " ('" + layer.name + "')";
    if (!std::isfinite(layer.weight)) return make_error(where, lw + ": weight is not finite");
    if (layer.mask != kNoId && layer.mask >= set->mask_count()) {
      return make_error(where,
                        lw + ": mask " + std::to_string(layer.mask) + " is not in the clip set");
    }
  }
  Animator a;
  a.set_ = std::move(set);
  a.options_ = std::move(options);
  a.state_ = std::make_unique<State>();
  State& st = *a.state_;
  const ClipSet& cs = *a.set_;
  const std::uint32_t n = a.options_.max_players;
  st.slots.resize(n);
  st.morph_by_hand.assign(cs.morph_weight_count(), control_detail::MorphByHand{});
  st.layer_weights.resize(a.options_.layers.size());
  for (std::size_t l = 0; l < st.layer_weights.size(); ++l) {
    const LayerDesc& layer = a.options_.layers[l];
    st.layer_weights[l] =
        layer.mode == LayerMode::kAdditive ? layer.weight : std::clamp(layer.weight, 0.0f, 1.0f);
  }
  // Cursors are sized once for the largest clip, so playing any clip later allocates nothing.
  bool exact_needed = !a.options_.prefer_compiled;
  std::size_t widest = 0, widest_keyed = 0;
  ClipId widest_clip = kNoId, widest_keyed_clip = kNoId;
  for (ClipId c = 0; c < cs.clip_count(); ++c) {
    if (!cs.compiled(c)) exact_needed = true;
    if (cs.clip(c).tracks().size() >= widest) widest = cs.clip(c).tracks().size(), widest_clip = c;
    if (const CompiledClip* compiled = cs.compiled(c)) {
      const std::size_t keyed = compiled->keyed_track_count();
      if (keyed > widest_keyed) widest_keyed = keyed, widest_keyed_clip = c;
    }
  }
  st.cursors.resize(n);
  st.contexts.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (exact_needed && widest_clip != kNoId) st.cursors[i].bind(cs.clip(widest_clip));
    st.exact_reserved = exact_needed && widest_clip != kNoId;
    if (widest_keyed_clip != kNoId) st.contexts[i].bind(*cs.compiled(widest_keyed_clip));
  }
  if (a.options_.inertialization) {
    st.ghost.resize(n);
    st.inertial.resize(soa_group_count(cs.skeleton().size()));
  }
  return a;
}

Slot* find_slot(AnimatorState& st, PlayerId id) {
  const std::uint32_t i = slot_of(id);
  if (!id.valid() || i >= st.slots.size()) return nullptr;
  Slot& s = st.slots[i];
  if (!s.active || s.generation != generation_of(id) || s.kind == SlotKind::kSample) return nullptr;
  return &s;
}

namespace {

const Slot* find_slot(const AnimatorState& st, PlayerId id) {
  return find_slot(const_cast<AnimatorState&>(st), id);
}

// Binds slot i's cursor or context to its clip; no allocation (they were sized in create()).
void bind_sampler(AnimatorState& st, const ClipSet& set, bool prefer_compiled, std::size_t i) {
  const ClipId clip = st.slots[i].clip;
  if (prefer_compiled && set.compiled(clip)) {
    st.contexts[i].bind(*set.compiled(clip));
  } else {
    st.cursors[i].bind(set.clip(clip));
  }
}

// Free slots, lowest first; -1 past the end.
int free_slot(const AnimatorState& st, int after) {
  for (std::size_t i = static_cast<std::size_t>(after + 1); i < st.slots.size(); ++i) {
    if (!st.slots[i].active) return static_cast<int>(i);
  }
  return -1;
}

// Slot i made a new player of `kind` with what every player takes from PlayOptions (layer, time
// scale, rate, weight, fade in); its generation moves on, so the old player's ids go stale.
Slot& start_slot(AnimatorState& st, int i, SlotKind kind, const PlayOptions& o) {
  Slot& s = st.slots[i];
  const auto generation = static_cast<std::uint16_t>(s.generation + 1);
  s = Slot{};
  s.active = true;
  s.generation = generation;
  s.kind = kind;
  s.layer = o.layer;
  s.time_scale = std::clamp(o.time_scale, -kMaxTimeScale, kMaxTimeScale);
  s.ticks_per_second = o.ticks_per_second;
  s.weight = o.weight;
  if (o.fade_in > 0) s.fade = {0, 1, o.fade_in, 0, 0, o.fade_curve, true, false};
  return s;
}

void deactivate(AnimatorState& st, std::size_t i) {
  Slot& s = st.slots[i];
  if (s.kind == SlotKind::kBlendSpace) {
    for (Slot& child : st.slots) {
      if (child.active && child.kind == SlotKind::kSample && child.head == static_cast<int>(i)) {
        child.active = false;
      }
    }
  }
  s.active = false;
}

// The checks play() and play_blend_space() share: the layer exists, the numbers are finite and
// in range, the sync group was declared. `what` names the call in the errors.
Status check_play_options(const PlayOptions& o, const AnimatorOptions& options,
                          const std::string& what) {
  if (o.layer >= options.layers.size()) {
    return make_error(what, "layer " + std::to_string(o.layer) +
                                " does not exist (the animator has " +
                                std::to_string(options.layers.size()) + ")");
  }
  if (!finite_non_negative(o.weight)) return make_error(what, "weight is negative or not finite");
  if (!std::isfinite(o.time_scale)) return make_error(what, "time scale is not finite");
  if (!finite_non_negative(o.start_offset)) {
    return make_error(what, "start offset is negative or not finite");
  }
  if (!finite_non_negative(o.fade_in))
    return make_error(what, "fade-in duration is negative or not finite");
  if (!(std::isfinite(o.ticks_per_second) && o.ticks_per_second >= 0)) {
    return make_error(what, "ticks per second is negative or not finite");
  }
  if (o.sync_group >= 0 && static_cast<std::size_t>(o.sync_group) >= options.sync_groups.size()) {
    return make_error(what, "sync group " + std::to_string(o.sync_group) +
                                " was not declared (AnimatorOptions::sync_groups has " +
                                std::to_string(options.sync_groups.size()) + ")");
  }
  if (o.sync_group < -1) {
    return make_error(what, "sync group " + std::to_string(o.sync_group) + " does not exist");
  }
  return {};
}

}  // namespace

Result<PlayerId> Animator::play(ClipId clip, const PlayOptions& o) {
  State& st = *state_;
  const ClipSet& cs = *set_;
  const std::string where = "play";
  if (clip >= cs.clip_count()) {
    return make_error(where, "clip " + std::to_string(clip) + " is not in the clip set (it has " +
                                 std::to_string(cs.clip_count()) + ")");
  }
  const std::string cw = "play '" + cs.clip(clip).name() + "'";
  if (Status s = check_play_options(o, options_, cw); !s) return s.error();
  const bool additive_layer = options_.layers[o.layer].mode == LayerMode::kAdditive;
  if (cs.is_additive(clip) != additive_layer) {
    return make_error(cw, cs.is_additive(clip)
                              ? "the clip is additive; play it on an additive layer"
                              : "the layer is additive and the clip is not a delta clip");
  }
  if (o.sync_group >= 0 && options_.sync_groups[o.sync_group] == SyncMode::kMarkers &&
      cs.markers(clip).empty()) {
    return make_error(cw, "the clip has no sync markers, so it cannot join marker sync group " +
                              std::to_string(o.sync_group) +
                              " (add markers with ClipSetBuilder::add_marker or detect them "
                              "from foot contacts)");
  }
  const int i = free_slot(st, -1);
  if (i < 0) {
    return make_error(cw, "all " + std::to_string(st.slots.size()) +
                              " players are in use (AnimatorOptions::max_players)");
  }
  Slot& s = start_slot(st, i, SlotKind::kClip, o);
  s.clip = clip;
  s.sync_group = o.sync_group;
  if (o.sync_group >= 0) s.sync_mode = options_.sync_groups[o.sync_group];
  s.rules = {cs.duration(clip), o.wrap, o.repetitions};
  s.playhead = control_detail::start_playhead(s.rules, o.start_offset, o.time_scale < 0);
  s.prev_playhead = s.playhead;
  s.prev_effective = control_detail::own_effective(s);
  bind_sampler(st, cs, options_.prefer_compiled, static_cast<std::size_t>(i));
  if (s.sync_group >= 0) control_detail::snap_group(cs, st.slots, s.sync_group);
  return make_id(static_cast<std::uint32_t>(i), s.generation);
}

Result<PlayerId> Animator::play_blend_space(BlendSpaceId space_id, const PlayOptions& o) {
  State& st = *state_;
  const ClipSet& cs = *set_;
  if (space_id >= cs.blend_space_count()) {
    return make_error("play",
                      "blend space " + std::to_string(space_id) + " is not in the clip set");
  }
  const BlendSpace& space = cs.blend_space(space_id);
  const std::string cw = "play blend space '" + space.name() + "'";
  if (Status s = check_play_options(o, options_, cw); !s) return s.error();
  if (options_.layers[o.layer].mode == LayerMode::kAdditive) {
    return make_error(cw, "blend spaces blend whole poses; the layer is additive");
  }
  SyncMode mode = space.sync_mode();
  if (o.sync_group >= 0) {
    mode = options_.sync_groups[o.sync_group];
    if (mode == SyncMode::kMarkers) {
      for (const BlendSample& sample : space.samples()) {
        if (sample.sync && cs.markers(sample.clip).empty()) {
          return make_error(cw, "sample clip '" + cs.clip(sample.clip).name() +
                                    "' has no sync markers, so it cannot join marker sync group " +
                                    std::to_string(o.sync_group));
        }
      }
    }
  }
  // Slots: the head, then one per sample.
  const std::size_t needed = 1 + space.samples().size();
  int free[kMaxAnimatorPlayers] = {};
  std::size_t found = 0;
  for (int i = free_slot(st, -1); i >= 0 && found < needed; i = free_slot(st, i)) free[found++] = i;
  if (found < needed) {
    return make_error(cw, "needs " + std::to_string(needed) +
                              " players (one per sample and one for the space), " +
                              std::to_string(found) + " are free (AnimatorOptions::max_players)");
  }
  const int h = free[0];
  Slot& head = start_slot(st, h, SlotKind::kBlendSpace, o);
  head.space = space_id;
  head.blend_x = std::isfinite(o.blend_x) ? o.blend_x : 0;
  head.blend_y = std::isfinite(o.blend_y) ? o.blend_y : 0;
  head.prev_effective = control_detail::own_effective(head);
  float weights[256];
  const bool few = space.samples().size() <= 256;
  if (few) space.weights(head.blend_x, head.blend_y, std::span<float>(weights, 256));
  const std::int32_t group =
      o.sync_group >= 0 ? o.sync_group : static_cast<std::int32_t>(kMaxSyncGroups) + h;
  for (std::size_t k = 0; k < space.samples().size(); ++k) {
    const BlendSample& sample = space.samples()[k];
    Slot& c = st.slots[free[k + 1]];
    const std::uint16_t g = static_cast<std::uint16_t>(c.generation + 1);
    c = Slot{};
    c.active = true;
    c.generation = g;
    c.kind = SlotKind::kSample;
    c.layer = o.layer;
    c.head = h;
    c.clip = sample.clip;
    c.sample = static_cast<std::uint32_t>(k);
    c.sync_group = sample.sync ? group : -1;
    c.sync_mode = mode;
    c.rules = {cs.duration(sample.clip), o.wrap, o.repetitions};
    c.playhead = control_detail::start_playhead(c.rules, o.start_offset, o.time_scale < 0);
    c.prev_playhead = c.playhead;
    c.ticks_per_second = o.ticks_per_second;
    c.sample_weight = few ? weights[k] : 0;
    bind_sampler(st, cs, options_.prefer_compiled, static_cast<std::size_t>(free[k + 1]));
  }
  control_detail::snap_group(cs, st.slots, group);
  return make_id(static_cast<std::uint32_t>(h), head.generation);
}

bool Animator::stop(PlayerId id) {
  Slot* s = find_slot(*state_, id);
  if (!s) return false;
  deactivate(*state_, static_cast<std::size_t>(s - state_->slots.data()));
  return true;
}

void Animator::stop_all() {
  for (Slot& s : state_->slots) s.active = false;
}

bool Animator::set_paused(PlayerId id, bool paused) {
  Slot* s = find_slot(*state_, id);
  if (!s) return false;
  s->paused = paused;
  return true;
}

Status Animator::set_time(PlayerId id, float seconds) {
  State& st = *state_;
  Slot* s = find_slot(st, id);
  if (!s) return make_error(player_where(id), "is not playing");
  if (!std::isfinite(seconds)) return make_error(player_where(id), "the time is not finite");
  Slot* target = s;
  if (s->kind == SlotKind::kBlendSpace) {
    // A blend space's time is its leader's; the others follow it.
    const int h = static_cast<int>(s - st.slots.data());
    int best = -1;
    float best_w = -1;
    for (std::size_t i = 0; i < st.slots.size(); ++i) {
      const Slot& c = st.slots[i];
      if (c.active && c.kind == SlotKind::kSample && c.head == h && c.sample_weight > best_w) {
        best_w = c.sample_weight, best = static_cast<int>(i);
      }
    }
    if (best < 0) return make_error(player_where(id), "the blend space has no samples");
    target = &st.slots[best];
  } else if (s->sync_group >= 0 && control_detail::find_leader(st.slots, s->sync_group) !=
                                       static_cast<int>(s - st.slots.data())) {
    return make_error(player_where(id),
                      "follows its sync group's leader; set the leader's time instead");
  }
  target->playhead.local = std::clamp(static_cast<double>(seconds), 0.0, target->rules.duration);
  target->playhead.fired_here = false;
  target->playhead.finished = false;
  target->prev_playhead = target->playhead;
  if (target->sync_group >= 0) control_detail::snap_group(*set_, st.slots, target->sync_group);
  return {};
}

namespace {

void start_fade(Slot& s, float to, float duration, FadeCurve curve, bool stop) {
  s.fade.from = s.fade.value;
  s.fade.to = to;
  s.fade.duration = duration;
  s.fade.elapsed = 0;
  s.fade.curve = curve;
  s.fade.stop_at_zero = stop && to == 0;
  s.fade.running = duration > 0;
  if (!s.fade.running) s.fade.value = to;
}

}  // namespace

Status Animator::fade_in(PlayerId id, float duration, FadeCurve curve) {
  Slot* s = find_slot(*state_, id);
  if (!s) return make_error(player_where(id), "is not playing");
  if (!finite_non_negative(duration)) {
    return make_error(player_where(id), "fade duration is negative or not finite");
  }
  start_fade(*s, 1, duration, curve, false);
  return {};
}

Status Animator::fade_out(PlayerId id, float duration, FadeCurve curve, bool stop_when_faded) {
  Slot* s = find_slot(*state_, id);
  if (!s) return make_error(player_where(id), "is not playing");
  if (!finite_non_negative(duration)) {
    return make_error(player_where(id), "fade duration is negative or not finite");
  }
  start_fade(*s, 0, duration, curve, stop_when_faded);
  if (duration == 0 && stop_when_faded) stop(id);
  return {};
}

Status Animator::cross_fade(PlayerId from, PlayerId to, float duration, FadeCurve curve) {
  Slot* a = find_slot(*state_, from);
  Slot* b = find_slot(*state_, to);
  if (!a) return make_error(player_where(from), "is not playing");
  if (!b) return make_error(player_where(to), "is not playing");
  if (a == b) return make_error(player_where(from), "cannot cross-fade to itself");
  if (a->layer != b->layer) {
    return make_error("cross-fade", "the players are on different layers (" +
                                        std::to_string(a->layer) + " and " +
                                        std::to_string(b->layer) + ")");
  }
  if (!finite_non_negative(duration)) {
    return make_error("cross-fade", "duration is negative or not finite");
  }
  // A player that has not been shown yet comes in from nothing; one already fading goes on from
  // where its fade is.
  if (b->fresh && !b->fade.running) b->fade.value = 0;
  start_fade(*b, 1, duration, curve, false);
  return fade_out(from, duration, curve, true);
}

Status Animator::warp(PlayerId id, float time_scale, float duration) {
  Slot* s = find_slot(*state_, id);
  if (!s) return make_error(player_where(id), "is not playing");
  if (!std::isfinite(time_scale)) return make_error(player_where(id), "time scale is not finite");
  if (!finite_non_negative(duration)) {
    return make_error(player_where(id), "warp duration is negative or not finite");
  }
  time_scale = std::clamp(time_scale, -kMaxTimeScale, kMaxTimeScale);
  if (duration == 0) {
    s->time_scale = time_scale;
    s->warp.running = false;
    return {};
  }
  s->warp = {s->time_scale, time_scale, duration, 0, true};
  return {};
}

Status Animator::inertialize(PlayerId from, PlayerId to, float duration) {
  State& st = *state_;
  if (!options_.inertialization) {
    return make_error("inertialize",
                      "the animator was made without AnimatorOptions::inertialization");
  }
  Slot* a = find_slot(st, from);
  Slot* b = find_slot(st, to);
  if (!a) return make_error(player_where(from), "is not playing");
  if (!b) return make_error(player_where(to), "is not playing");
  if (a == b) return make_error(player_where(from), "cannot inertialize to itself");
  if (a->layer != b->layer) {
    return make_error("inertialize", "the players are on different layers");
  }
  if (!(std::isfinite(duration) && duration > 0)) {
    return make_error("inertialize", "duration must be finite and positive");
  }
  // The source is what the last evaluate showed; a second request before the next evaluate
  // keeps the first one's source.
  if (!st.inertial_pending) {
    st.ghost = st.slots;
    // A target started since the last update has not been shown: it is no part of the source.
    const std::size_t target = static_cast<std::size_t>(b - st.slots.data());
    if (b->fresh) {
      st.ghost[target].active = false;
      for (Slot& c : st.ghost) {
        if (c.kind == SlotKind::kSample && c.head == static_cast<int>(target)) c.active = false;
      }
    }
  }
  st.inertial_pending = true;
  st.pending_duration = duration;
  stop(from);
  b->fade = control_detail::Fade{};
  return {};
}

bool Animator::set_weight(PlayerId id, float weight) {
  Slot* s = find_slot(*state_, id);
  if (!s || !std::isfinite(weight)) return false;
  s->weight = std::max(weight, 0.0f);
  return weight >= 0;
}

bool Animator::set_time_scale(PlayerId id, float time_scale) {
  Slot* s = find_slot(*state_, id);
  if (!s || !std::isfinite(time_scale)) return false;
  s->time_scale = std::clamp(time_scale, -kMaxTimeScale, kMaxTimeScale);
  s->warp.running = false;
  return std::fabs(time_scale) <= kMaxTimeScale;
}

bool Animator::set_ticks_per_second(PlayerId id, double ticks_per_second) {
  Slot* s = find_slot(*state_, id);
  if (!s) return false;
  const bool ok = std::isfinite(ticks_per_second) && ticks_per_second > 0;
  s->ticks_per_second = ok ? ticks_per_second : 0;
  if (s->kind == SlotKind::kBlendSpace) {
    const int h = static_cast<int>(s - state_->slots.data());
    for (Slot& c : state_->slots) {
      if (c.active && c.kind == SlotKind::kSample && c.head == h)
        c.ticks_per_second = s->ticks_per_second;
    }
  }
  return ok;
}

bool Animator::set_blend_parameter(PlayerId id, float x, float y) {
  Slot* s = find_slot(*state_, id);
  if (!s || s->kind != SlotKind::kBlendSpace || !std::isfinite(x) || !std::isfinite(y))
    return false;
  s->blend_x = x;
  s->blend_y = y;
  return true;
}

bool Animator::set_layer_weight(std::uint32_t layer, float weight) {
  State& st = *state_;
  if (layer >= st.layer_weights.size() || !std::isfinite(weight)) return false;
  if (options_.layers[layer].mode == LayerMode::kAdditive) {
    st.layer_weights[layer] = weight;
    return true;
  }
  st.layer_weights[layer] = std::clamp(weight, 0.0f, 1.0f);
  return weight >= 0 && weight <= 1;
}

bool Animator::is_playing(PlayerId id) const {
  return find_slot(*state_, id) != nullptr;
}

PlayerInfo Animator::info(PlayerId id) const {
  PlayerInfo info;
  const State& st = *state_;
  const Slot* s = find_slot(st, id);
  if (!s) return info;
  info.active = true;
  info.layer = s->layer;
  info.weight = s->weight;
  info.fade = s->fade.value;
  info.effective_weight = control_detail::own_effective(*s);
  info.time_scale = s->time_scale;
  info.paused = s->paused;
  const Slot* timed = s;
  if (s->kind == SlotKind::kBlendSpace) {
    info.blend_space = s->space;
    info.blend_x = s->blend_x;
    info.blend_y = s->blend_y;
    const int h = static_cast<int>(s - st.slots.data());
    float best = -1;
    timed = nullptr;
    for (const Slot& c : st.slots) {
      if (c.active && c.kind == SlotKind::kSample && c.head == h && c.sample_weight > best) {
        best = c.sample_weight, timed = &c;
      }
    }
    if (!timed) return info;
  } else {
    info.clip = s->clip;
  }
  info.time = static_cast<float>(timed->playhead.local);
  info.duration = static_cast<float>(timed->rules.duration);
  info.passes = timed->playhead.passes;
  info.finished = timed->playhead.finished;
  info.follower =
      s->kind == SlotKind::kClip && s->sync_group >= 0 &&
      control_detail::find_leader(st.slots, s->sync_group) != static_cast<int>(s - st.slots.data());
  return info;
}

std::size_t Animator::player_count() const {
  std::size_t n = 0;
  for (const Slot& s : state_->slots) n += s.active && s.kind != SlotKind::kSample;
  return n;
}

PlayerId Animator::player(std::size_t index) const {
  const State& st = *state_;
  for (std::size_t i = 0; i < st.slots.size(); ++i) {
    const Slot& s = st.slots[i];
    if (!s.active || s.kind == SlotKind::kSample) continue;
    if (index-- == 0) return make_id(static_cast<std::uint32_t>(i), s.generation);
  }
  return PlayerId{};
}

std::size_t Animator::size_bytes() const {
  const State& st = *state_;
  std::size_t bytes = sizeof(Animator) + sizeof(State);
  bytes += options_.layers.capacity() * sizeof(LayerDesc);
  for (const LayerDesc& l : options_.layers)
    bytes += l.name.capacity() > 15 ? l.name.capacity() : 0;
  bytes += options_.sync_groups.capacity() * sizeof(SyncMode);
  bytes += st.slots.capacity() * sizeof(Slot) + st.ghost.capacity() * sizeof(Slot);
  bytes += st.cursors.capacity() * sizeof(SamplingCursor);
  if (st.exact_reserved) bytes += st.cursors.size() * set_->max_tracks() * sizeof(std::uint32_t);
  for (const CompiledSamplingContext& c : st.contexts) bytes += c.size_bytes();
  bytes += st.layer_weights.capacity() * sizeof(float);
  bytes += st.morph_by_hand.capacity() * sizeof(control_detail::MorphByHand);
  bytes += st.inertial.capacity() * sizeof(control_detail::InertialGroup);
  return bytes;
}

}  // namespace marrow
