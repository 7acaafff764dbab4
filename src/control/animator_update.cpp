// Animator::update: fades and warps, blend-space weights, sync groups, the time advance of every
// player, root motion, and the events, merged across players into time order. Nothing here
// allocates: per-player scratch lives on the stack, sized by kMaxAnimatorPlayers.
#include <algorithm>
#include <cmath>

#include "animator_state.h"
#include "root_motion.h"

namespace marrow {

using control_detail::Playhead;
using control_detail::Segment;
using control_detail::SegmentEnd;
using control_detail::SegmentWalker;
using control_detail::Slot;
using control_detail::SlotKind;

namespace control_detail {
namespace {

// Forward distance from a to b on a cycle of length d (d when they coincide and `same` marker).
double cyclic_forward(double a, double b, double d) {
  const double x = b - a;
  return x >= 0 ? x : x + d;
}

// The signed shortest way from a to b on a cycle of length d.
double cyclic_nearest(double a, double b, double d) {
  double x = std::fmod(b - a, d);
  if (x > d / 2) x -= d;
  if (x < -d / 2) x += d;
  return x;
}

// Where the follower should be: its matching marker interval at the leader's fraction, or the
// leader's normalized time.
double sync_target(const ClipSet& set, const Slot& leader, const Slot& follower) {
  const double dl = leader.rules.duration, df = follower.rules.duration;
  const double t = leader.playhead.local;
  if (follower.sync_mode == SyncMode::kMarkers && dl > 0) {
    const std::span<const SyncMarker> lm = set.markers(leader.clip);
    const std::span<const SyncMarker> fm = set.markers(follower.clip);
    if (!lm.empty() && !fm.empty()) {
      const std::size_t n = lm.size();
      const auto it = std::upper_bound(lm.begin(), lm.end(), t,
                                       [](double v, const SyncMarker& m) { return v < m.time; });
      std::size_t p;
      double tp;
      if (it == lm.begin()) {
        p = n - 1;
        tp = lm[p].time - dl;
      } else {
        p = static_cast<std::size_t>(it - lm.begin()) - 1;
        tp = lm[p].time;
      }
      const std::size_t q = (p + 1) % n;
      const double span = q == p ? dl : cyclic_forward(lm[p].time, lm[q].time, dl);
      const double f = span > 0 ? std::clamp((t - tp) / span, 0.0, 1.0) : 0.0;
      // The follower's interval between markers of the same names; where its name repeats, the
      // occurrence nearest to where the follower is.
      double best = -1, best_distance = INFINITY;
      const std::size_t nf = fm.size();
      for (std::size_t i = 0; i < nf; ++i) {
        if (fm[i].name != lm[p].name) continue;
        std::size_t j = i;
        bool found = false;
        for (std::size_t k = 1; k <= nf; ++k) {
          if (fm[(i + k) % nf].name == lm[q].name) {
            j = (i + k) % nf;
            found = true;
            break;
          }
        }
        if (!found) continue;
        const double fspan = j == i ? df : cyclic_forward(fm[i].time, fm[j].time, df);
        double target = std::fmod(fm[i].time + f * fspan, df);
        if (target < 0) target += df;
        const double distance = std::fabs(cyclic_nearest(follower.playhead.local, target, df));
        if (distance < best_distance) best_distance = distance, best = target;
      }
      if (best >= 0) return best;
    }
  }
  return dl > 0 ? t / dl * df : 0.0;
}

}  // namespace

double sync_delta(const ClipSet& set, const Slot& leader, const Slot& follower) {
  const double df = follower.rules.duration;
  if (!(df > 0)) return 0;
  return cyclic_nearest(follower.playhead.local, sync_target(set, leader, follower), df);
}

void snap_group(const ClipSet& set, std::span<Slot> slots, std::int32_t group) {
  const int leader = find_leader(slots, group);
  if (leader < 0) return;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    Slot& s = slots[i];
    if (!s.active || s.sync_group != group || static_cast<int>(i) == leader) continue;
    const double df = s.rules.duration;
    if (!(df > 0)) continue;
    s.playhead.local = std::clamp(sync_target(set, slots[leader], s), 0.0, df);
    s.playhead.fired_here = false;
    s.playhead.finished = false;
    s.prev_playhead = s.playhead;
  }
}

}  // namespace control_detail

namespace {

// Clip seconds of time scale over dt, with a warp's linear ramp integrated exactly.
double scaled_time(Slot& s, float dt) {
  if (!s.warp.running) return static_cast<double>(s.time_scale) * dt;
  control_detail::Warp& w = s.warp;
  const auto at = [&](double t) {
    return w.from + (w.to - w.from) * std::min(1.0, t / w.duration);
  };
  const double ramp = std::min<double>(dt, w.duration - w.elapsed);
  const double a = at(w.elapsed), b = at(w.elapsed + ramp);
  const double integral = ramp * (a + b) / 2 + (dt - ramp) * w.to;
  w.elapsed += dt;
  if (w.elapsed >= w.duration) {
    w.running = false;
    s.time_scale = w.to;
  } else {
    s.time_scale = static_cast<float>(b);
  }
  return integral;
}

void step_fade(Slot& s, float dt) {
  control_detail::Fade& f = s.fade;
  if (!f.running) return;
  f.elapsed += dt;
  if (f.elapsed >= f.duration) {
    f.value = f.to;
    f.running = false;
    if (f.stop_at_zero && f.to == 0) s.stop_pending = true;
    return;
  }
  f.value = f.from + (f.to - f.from) * fade_curve(f.curve, f.elapsed / f.duration);
}

// base^k for a rigid transform, by squaring.
Transform rigid_power(Transform base, std::uint64_t k) {
  Transform r{};
  while (k) {
    if (k & 1) r = control_detail::rigid_compose(r, base);
    base = control_detail::rigid_compose(base, base);
    k >>= 1;
  }
  return r;
}

Transform extracted_at(const ClipSet& set, ClipId clip, double time) {
  const Transform& rest = set.skeleton().rest_pose()[set.root_motion_joint()];
  return control_detail::extract(
      control_detail::root_local_at(set.clip(clip), set.root_motion_track(clip), rest,
                                    static_cast<float>(time)),
      set.root_up_local(), set.root_motion_options());
}

// Moves slot s by delta clip seconds; with `root`, returns its root motion (parent space).
Transform walk(const ClipSet& set, Slot& s, double delta, bool root, std::uint64_t* skipped) {
  SegmentWalker walker(s.playhead, s.rules, delta);
  Segment seg;
  Transform motion{};
  std::uint64_t cycles = 0;
  const RootMotionTrack* track = root ? &set.root_motion_track(s.clip) : nullptr;
  while (walker.next(seg)) {
    if (!track) continue;
    if (walker.skipped_cycles() != cycles) {
      Transform cycle = control_detail::motion_between(track->start, track->end, track->start);
      if (walker.skipped_dir() < 0) cycle = control_detail::rigid_inverse(cycle);
      motion = control_detail::rigid_compose(motion,
                                             rigid_power(cycle, walker.skipped_cycles() - cycles));
      cycles = walker.skipped_cycles();
    }
    if (seg.from == seg.to) continue;
    motion = control_detail::rigid_compose(
        motion, control_detail::motion_between(extracted_at(set, s.clip, seg.from),
                                               extracted_at(set, s.clip, seg.to), track->start));
  }
  s.playhead = walker.state();
  if (skipped) *skipped += walker.skipped();
  return motion;
}

// A follower's advance: its leader's carried over in proportion to the cycles, then the
// remaining phase error closed, so a hitch loops the follower as often as its leader.
double follower_delta(const ClipSet& set, const Slot& leader, const Slot& s) {
  const double dl = leader.rules.duration, df = s.rules.duration;
  const double nominal = dl > 0 ? leader.last_delta * (df / dl) : 0.0;
  Slot probe = s;
  probe.playhead = control_detail::advance(s.playhead, s.rules, nominal);
  const double correction = control_detail::sync_delta(set, leader, probe);
  const int leg = s.rules.wrap == WrapMode::kPingPong ? probe.playhead.leg : 1;
  return nominal + correction * leg;
}

// Who fires events: clips that lead, and the heaviest sample of each blend space.
void mark_emitters(std::span<Slot> slots) {
  const std::size_t n = slots.size();
  for (std::size_t i = 0; i < n; ++i) {
    Slot& s = slots[i];
    if (!s.active) continue;
    s.emits = s.kind == SlotKind::kClip && !s.follower;
    if (s.kind != SlotKind::kSample || s.follower) continue;
    bool heaviest = true;
    for (std::size_t j = 0; j < n && heaviest; ++j) {
      const Slot& c = slots[j];
      if (j == i || !c.active || c.kind != SlotKind::kSample || c.head != s.head) continue;
      heaviest = c.sample_weight < s.sample_weight || (c.sample_weight == s.sample_weight && j > i);
    }
    s.emits = heaviest;
  }
}

// The blend of the players' motions, with the blend's rest fill-in below the threshold.
Transform blend_motions(std::span<const Transform> motion, std::span<const float> motion_weight,
                        float blend_threshold) {
  float total = 0;
  Vec3 t{};
  Quat q{0, 0, 0, 0};
  for (std::size_t i = 0; i < motion.size(); ++i) {
    const float w = motion_weight[i];
    if (!(w > 0)) continue;
    total += w;
    t += motion[i].translation * w;
    Quat r = motion[i].rotation;
    if (dot(q, r) < 0) r = negate(r);
    q = add(q, scale(r, w));
  }
  Transform blended{};
  if (total > 0) {
    blended.translation = t * (1.0f / std::max(total, blend_threshold));
    // The rest pose's share is the identity rotation.
    if (total < blend_threshold) q = add(q, scale(Quat::identity(), blend_threshold - total));
    blended.rotation = normalize(q);
  }
  return blended;
}

// Time, weights and sync for every slot of `slots`. With `result`, also the root motion.
void advance_all(const ClipSet& set, const AnimatorOptions& options,
                 std::span<const float> layer_weights, std::span<Slot> slots, float dt,
                 UpdateResult* result) {
  const std::size_t n = slots.size();
  double scaled[kMaxAnimatorPlayers] = {};
  for (std::size_t i = 0; i < n; ++i) {
    Slot& s = slots[i];
    if (!s.active) continue;
    s.prev_effective = control_detail::total_effective(slots, s);
    s.fresh = false;
    s.prev_playhead = s.playhead;
    s.last_delta = 0;
  }
  for (std::size_t i = 0; i < n; ++i) {
    Slot& s = slots[i];
    if (!s.active || s.kind == SlotKind::kSample) continue;
    step_fade(s, dt);
    scaled[i] = scaled_time(s, dt);
    if (s.kind == SlotKind::kBlendSpace) {
      const BlendSpace& space = set.blend_space(s.space);
      float weights[256] = {};
      if (space.samples().size() <= 256) space.weights(s.blend_x, s.blend_y, weights);
      for (Slot& c : slots) {
        if (c.active && c.kind == SlotKind::kSample && c.head == static_cast<int>(i)) {
          c.sample_weight = weights[c.sample];
        }
      }
    }
  }
  // Leaders first, then followers in step with them.
  int leader_of[kMaxSyncGroups + kMaxAnimatorPlayers];
  std::fill(std::begin(leader_of), std::end(leader_of), -2);
  for (std::size_t i = 0; i < n; ++i) {
    Slot& s = slots[i];
    s.follower = false;
    if (!s.active || s.kind == SlotKind::kBlendSpace || s.sync_group < 0) continue;
    int& leader = leader_of[s.sync_group];
    if (leader == -2) leader = control_detail::find_leader(slots, s.sync_group);
    s.follower = leader != static_cast<int>(i);
  }
  const bool root_on = result && set.has_root_motion();
  Transform motion[kMaxAnimatorPlayers];
  float motion_weight[kMaxAnimatorPlayers] = {};
  std::uint64_t skipped = 0;
  const auto wants_root = [&](const Slot& s) {
    return root_on && set.root_motion_track(s.clip).enabled &&
           options.layers[s.layer].mode == LayerMode::kNormal;
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < n; ++i) {
      Slot& s = slots[i];
      if (!s.active || s.kind == SlotKind::kBlendSpace || s.follower != (pass == 1)) continue;
      const Slot& speed = s.kind == SlotKind::kSample ? slots[s.head] : s;
      double delta;
      if (!s.follower) {
        const std::size_t from = s.kind == SlotKind::kSample ? static_cast<std::size_t>(s.head) : i;
        delta = speed.paused
                    ? 0.0
                    : scaled[from] * control_detail::clip_rate(set, s.clip, s.ticks_per_second);
      } else {
        delta = follower_delta(set, slots[leader_of[s.sync_group]], s);
      }
      s.last_delta = delta;
      const bool root = wants_root(s);
      const Transform m = walk(set, s, delta, root, result ? &skipped : nullptr);
      if (root) {
        motion[i] = m;
        motion_weight[i] = control_detail::total_effective(slots, s) * layer_weights[s.layer];
      }
    }
  }
  mark_emitters(slots);
  if (!result) return;
  result->skipped_crossings += skipped;
  if (root_on) {
    const Transform blended =
        blend_motions(std::span<const Transform>(motion, n),
                      std::span<const float>(motion_weight, n), options.blend_threshold);
    result->root_motion = control_detail::to_model_space(blended, set.root_parent_model());
  }
}

// Walks one emitting player's advance again and hands out its events one at a time.
class EventSweep {
 public:
  EventSweep() = default;
  EventSweep(const ClipSet& set, const Slot& s, PlayerId id, bool markers)
      : walker_(s.prev_playhead, s.rules, s.last_delta),
        cues_(set.cues(s.clip)),
        set_(&set),
        id_(id),
        clip_(s.clip),
        layer_(s.layer),
        markers_(markers) {
    load();
  }

  bool empty() const { return done_; }
  double fraction() const { return fraction_; }

  AnimationEvent pop(float dt) {
    AnimationEvent e;
    e.player = id_;
    e.clip = clip_;
    e.layer = layer_;
    e.time = static_cast<float>(std::min(1.0, fraction_) * dt);
    e.pass = seg_.pass;
    e.backwards = seg_.dir < 0;
    if (cue_ != cue_end_) {
      const ClipCue& c = cues_[static_cast<std::size_t>(cue_)];
      e.type = c.kind == CueKind::kEvent ? EventType::kClipEvent : EventType::kMarker;
      e.name = set_->name(c.name);
      e.clip_time = c.time;
      step_cue();
    } else {
      e.type = seg_.end == SegmentEnd::kLooped ? EventType::kLooped : EventType::kFinished;
      e.clip_time = static_cast<float>(seg_.to);
      end_pending_ = false;
    }
    advance();
    return e;
  }

 private:
  // The cues of the current segment, walked in its direction.
  void load() {
    while (walker_.next(seg_)) {
      const auto lower = [&](double t) {
        return std::lower_bound(cues_.begin(), cues_.end(), t,
                                [](const ClipCue& c, double v) { return c.time < v; }) -
               cues_.begin();
      };
      const auto upper = [&](double t) {
        return std::upper_bound(cues_.begin(), cues_.end(), t,
                                [](double v, const ClipCue& c) { return v < c.time; }) -
               cues_.begin();
      };
      if (seg_.dir > 0) {
        cue_ = seg_.closed_start ? lower(seg_.from) : upper(seg_.from);
        cue_end_ = seg_.closed_end ? upper(seg_.to) : lower(seg_.to);
        step_ = 1;
      } else {
        // Descending from `from` down to `to`.
        const std::ptrdiff_t hi = seg_.closed_start ? upper(seg_.from) : lower(seg_.from);
        const std::ptrdiff_t lo = seg_.closed_end ? lower(seg_.to) : upper(seg_.to);
        cue_ = hi - 1;
        cue_end_ = lo - 1;
        step_ = -1;
      }
      if ((step_ > 0 && cue_ > cue_end_) || (step_ < 0 && cue_ < cue_end_)) cue_ = cue_end_;
      end_pending_ = seg_.end != SegmentEnd::kNone;
      skip_markers();
      if (cue_ != cue_end_ || end_pending_) {
        fraction_ = next_fraction();
        return;
      }
    }
    done_ = true;
  }
  void skip_markers() {
    while (!markers_ && cue_ != cue_end_ &&
           cues_[static_cast<std::size_t>(cue_)].kind == CueKind::kMarker) {
      cue_ += step_;
    }
  }
  void step_cue() {
    cue_ += step_;
    skip_markers();
  }
  double next_fraction() const {
    const double total = walker_.total();
    if (!(total > 0)) return 0;
    const double at = cue_ != cue_end_ ? cues_[static_cast<std::size_t>(cue_)].time : seg_.to;
    return (seg_.distance_before + std::fabs(at - seg_.from)) / total;
  }
  void advance() {
    if (cue_ != cue_end_ || end_pending_) {
      fraction_ = next_fraction();
      return;
    }
    load();
  }

  SegmentWalker walker_{Playhead{}, control_detail::PlayheadRules{}, 0};
  Segment seg_;
  std::span<const ClipCue> cues_;
  const ClipSet* set_ = nullptr;
  PlayerId id_;
  ClipId clip_ = kNoId;
  std::uint32_t layer_ = 0;
  bool markers_ = false;
  std::ptrdiff_t cue_ = 0, cue_end_ = 0;
  int step_ = 1;
  bool end_pending_ = false;
  bool done_ = false;
  double fraction_ = 0;
};

}  // namespace

UpdateResult Animator::update(float dt) {
  return update_impl(dt, {}, nullptr, nullptr);
}

UpdateResult Animator::update(float dt, std::span<AnimationEvent> events) {
  return update_impl(dt, events, nullptr, nullptr);
}

UpdateResult Animator::update(float dt, EventCallback callback, void* user) {
  return update_impl(dt, {}, callback, user);
}

UpdateResult Animator::update_impl(float dt, std::span<AnimationEvent> events,
                                   EventCallback callback, void* user) {
  State& st = *state_;
  UpdateResult result;
  if (st.in_update) {
    result.refused = true;
    return result;
  }
  if (!(dt >= 0 && dt <= kMaxDeltaTime)) {
    result.dt_clamped = true;
    dt = dt > kMaxDeltaTime && std::isfinite(dt) ? kMaxDeltaTime : 0.0f;
  }
  st.in_update = true;
  const ClipSet& set = *set_;
  advance_all(set, options_, st.layer_weights, st.slots, dt, &result);
  if (st.inertial_pending && !st.ghost.empty()) {
    advance_all(set, options_, st.layer_weights, st.ghost, dt, nullptr);
  }
  if (st.inertial_active) {
    st.inertial_elapsed += dt;
    if (st.inertial_elapsed >= st.inertial_duration) st.inertial_active = false;
  }
  st.last_dt = dt;
  root_motion_ = result.root_motion;
  control_detail::advance_morph_fades(st.morph_by_hand, dt);

  // The sweeps copy what they read, so a callback may change players while events go out.
  EventSweep sweeps[kMaxAnimatorPlayers];
  std::size_t count = 0;
  for (std::size_t i = 0; i < st.slots.size(); ++i) {
    const Slot& s = st.slots[i];
    if (!s.active || !s.emits || s.last_delta == 0) continue;
    const std::size_t addressed =
        s.kind == SlotKind::kSample ? static_cast<std::size_t>(s.head) : i;
    const PlayerId id{(static_cast<std::uint32_t>(st.slots[addressed].generation) << 16) |
                      static_cast<std::uint32_t>(addressed)};
    EventSweep sweep(set, s, id, options_.marker_events);
    if (!sweep.empty()) sweeps[count++] = sweep;
  }
  // Fade-outs that reached zero stop now, before the callbacks see the players.
  for (std::size_t i = 0; i < st.slots.size(); ++i) {
    Slot& s = st.slots[i];
    if (s.active && s.stop_pending && s.kind != SlotKind::kSample) {
      stop(PlayerId{(static_cast<std::uint32_t>(s.generation) << 16) |
                    static_cast<std::uint32_t>(i)});
    }
  }
  for (;;) {
    std::size_t best = count;
    for (std::size_t k = 0; k < count; ++k) {
      if (sweeps[k].empty()) continue;
      if (best == count || sweeps[k].fraction() < sweeps[best].fraction()) best = k;
    }
    if (best == count) break;
    const AnimationEvent e = sweeps[best].pop(dt);
    ++result.events;
    if (result.events_written < events.size()) events[result.events_written++] = e;
    if (callback) callback(e, user);
  }
  st.in_update = false;
  return result;
}

}  // namespace marrow
