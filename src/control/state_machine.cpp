#include "marrow/control/state_machine.h"

#include "marrow/control/motion_matcher.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace marrow {
namespace {

std::string at(const char* list, std::size_t i, const char* field = nullptr) {
  std::string s = std::string(list) + "[" + std::to_string(i) + "]";
  if (field) s += std::string(".") + field;
  return s;
}

// A transition's exit time, copied into `tr` when it is one the machine can keep.
Status check_exit(const TransitionDesc& t, std::size_t i, StateMachineDefinition::Transition& tr) {
  if (t.exit == ExitKind::kNone) return {};
  if (!t.at_marker.empty()) {
    return make_error(at("transitions", i, "at_marker"),
                      "a transition leaves at a marker or at an exit time, not both");
  }
  if (!std::isfinite(t.exit_at) || t.exit_at < 0) {
    return make_error(at("transitions", i, "exit_time"), "is negative or not finite");
  }
  tr.exit = t.exit;
  tr.exit_at = t.exit_at;
  return {};
}

bool is_comparison(CompareOp op) {
  return op == CompareOp::kGreater || op == CompareOp::kGreaterEqual || op == CompareOp::kLess ||
         op == CompareOp::kLessEqual || op == CompareOp::kEqual || op == CompareOp::kNotEqual;
}

}  // namespace

std::optional<std::uint32_t> StateMachineDefinition::state(std::string_view name) const {
  for (std::size_t i = 0; i < desc_.states.size(); ++i) {
    if (desc_.states[i].name == name) return static_cast<std::uint32_t>(i);
  }
  return std::nullopt;
}

std::optional<std::uint32_t> StateMachineDefinition::parameter(std::string_view name) const {
  for (std::size_t i = 0; i < desc_.parameters.size(); ++i) {
    if (desc_.parameters[i].name == name) return static_cast<std::uint32_t>(i);
  }
  return std::nullopt;
}

Status StateMachineDefinition::check_parameters() const {
  for (std::size_t i = 0; i < desc_.parameters.size(); ++i) {
    const ParameterDesc& p = desc_.parameters[i];
    if (p.name.empty()) return make_error(at("parameters", i, "name"), "is empty");
    if (!std::isfinite(p.initial))
      return make_error(at("parameters", i, "initial"), "is not finite");
    for (std::size_t j = 0; j < i; ++j) {
      if (desc_.parameters[j].name == p.name) {
        return make_error(at("parameters", i, "name"),
                          "'" + p.name + "' is already parameter " + std::to_string(j));
      }
    }
  }
  return {};
}

Result<std::uint32_t> StateMachineDefinition::float_parameter(const std::string& name,
                                                              const std::string& where) const {
  const std::optional<std::uint32_t> p = parameter(name);
  if (!p) return make_error(where, "no parameter named '" + name + "'");
  if (desc_.parameters[*p].type != ParameterType::kFloat) {
    return make_error(where, "parameter '" + name + "' is not a float");
  }
  return *p;
}

Status StateMachineDefinition::add_state(std::size_t i) {
  const StateDesc& s = desc_.states[i];
  if (s.name.empty()) return make_error(at("states", i, "name"), "is empty");
  for (std::size_t j = 0; j < i; ++j) {
    if (desc_.states[j].name == s.name) {
      return make_error(at("states", i, "name"),
                        "'" + s.name + "' is already state " + std::to_string(j));
    }
  }
  if (!std::isfinite(s.speed)) return make_error(at("states", i, "speed"), "is not finite");
  State state;
  if (int(!s.clip.empty()) + int(!s.blend_space.empty()) + int(s.motion_matching) != 1) {
    return make_error(at("states", i),
                      "needs exactly one of a clip, a blend space and motion matching");
  }
  if (s.motion_matching) {
    state.matching = true;
    uses_motion_matching_ = true;
  } else if (!s.clip.empty()) {
    Result<ClipId> clip = set_->clip_id(s.clip);
    if (!clip) return make_error(at("states", i, "clip"), clip.error().message);
    if (set_->is_additive(*clip)) {
      return make_error(at("states", i, "clip"), "'" + s.clip + "' is an additive clip");
    }
    state.clip = *clip;
  } else {
    Result<BlendSpaceId> space = set_->blend_space_id(s.blend_space);
    if (!space) return make_error(at("states", i, "blend_space"), space.error().message);
    state.blend_space = *space;
    Result<std::uint32_t> x = float_parameter(s.parameter_x, at("states", i, "x"));
    if (!x) return x.error();
    state.x = *x;
    if (set_->blend_space(*space).dimensions() == 2) {
      Result<std::uint32_t> y = float_parameter(s.parameter_y, at("states", i, "y"));
      if (!y) return y.error();
      state.y = *y;
    }
  }
  if (s.sync && desc_.sync_group < 0) {
    return make_error(at("states", i, "sync"), "the machine has no sync group");
  }
  states_.push_back(state);
  return {};
}

// Transition i's conditions: each names a parameter whose type suits its test.
Status StateMachineDefinition::add_conditions(std::size_t i) {
  const TransitionDesc& t = desc_.transitions[i];
  for (std::size_t c = 0; c < t.conditions.size(); ++c) {
    const ConditionDesc& cd = t.conditions[c];
    const std::string where = at("transitions", i) + "." + at("conditions", c, "parameter");
    const std::optional<std::uint32_t> p = parameter(cd.parameter);
    if (!p) return make_error(where, "no parameter named '" + cd.parameter + "'");
    const ParameterType type = desc_.parameters[*p].type;
    const bool fits = (type == ParameterType::kFloat && is_comparison(cd.op)) ||
                      (type == ParameterType::kBool &&
                       (cd.op == CompareOp::kTrue || cd.op == CompareOp::kFalse)) ||
                      (type == ParameterType::kTrigger && cd.op == CompareOp::kTriggered);
    if (!fits) {
      return make_error(where,
                        "the test does not suit the parameter's type (floats compare, "
                        "bools are true or false, triggers are triggered)");
    }
    if (!std::isfinite(cd.value)) {
      return make_error(at("transitions", i) + "." + at("conditions", c, "value"), "is not finite");
    }
    conditions_.push_back({*p, cd.op, cd.value});
  }
  return {};
}

// Transition i's marker: one the source state's clips have, where it can be crossed.
Status StateMachineDefinition::set_marker(std::size_t i, Transition& tr) {
  const TransitionDesc& t = desc_.transitions[i];
  if (t.at_marker.empty()) return {};
  const std::optional<std::uint32_t> name = set_->find_name(t.at_marker);
  bool found = false;
  const auto has = [&](ClipId clip) {
    for (const SyncMarker& m : set_->markers(clip)) found = found || m.name == t.at_marker;
  };
  for (std::size_t s = 0; s < states_.size(); ++s) {
    if (tr.from != kNoId && s != tr.from) continue;
    if (states_[s].clip != kNoId) has(states_[s].clip);
    if (states_[s].blend_space != kNoId) {
      for (const BlendSample& b : set_->blend_space(states_[s].blend_space).samples()) has(b.clip);
    }
  }
  if (!name || !found) {
    return make_error(at("transitions", i, "at_marker"),
                      "no clip of the source state has a sync marker '" + t.at_marker + "'");
  }
  tr.marker = *name;
  uses_markers_ = true;
  return {};
}

Status StateMachineDefinition::add_transition(std::size_t i) {
  const TransitionDesc& t = desc_.transitions[i];
  Transition tr;
  if (t.from != "*") {
    const std::optional<std::uint32_t> from = state(t.from);
    if (!from) return make_error(at("transitions", i, "from"), "no state named '" + t.from + "'");
    tr.from = *from;
  }
  const std::optional<std::uint32_t> to = state(t.to);
  if (!to) return make_error(at("transitions", i, "to"), "no state named '" + t.to + "'");
  tr.to = *to;
  if (!std::isfinite(t.duration) || t.duration < 0) {
    return make_error(at("transitions", i, "duration"), "is negative or not finite");
  }
  tr.first_condition = static_cast<std::uint32_t>(conditions_.size());
  if (Status s = add_conditions(i); !s) return s;
  tr.condition_count = static_cast<std::uint32_t>(t.conditions.size());
  if (Status s = set_marker(i, tr); !s) return s;
  if (Status s = check_exit(t, i, tr); !s) return s;
  // The matcher switches by inertialization, and its state has no clip to time an exit by.
  if (states_[tr.to].matching && t.kind != TransitionKind::kInertialize)
    return make_error(at("transitions", i, "kind"),
                      "a motion-matching state is entered by inertialization");
  if (tr.from != kNoId && states_[tr.from].matching &&
      (tr.exit != ExitKind::kNone || tr.marker != kNoId))
    return make_error(at("transitions", i),
                      "a motion-matching state has no clip to leave at an exit time or marker");
  if (t.kind == TransitionKind::kInertialize) uses_inertialization_ = true;
  transitions_.push_back(tr);
  return {};
}

Result<std::shared_ptr<const StateMachineDefinition>> StateMachineDefinition::create(
    const StateMachineDesc& desc, const ClipSet& set) {
  auto def = std::make_shared<StateMachineDefinition>();
  def->desc_ = desc;
  def->set_ = &set;
  if (desc.states.empty()) return make_error("states", "a state machine needs at least one state");
  if (Status s = def->check_parameters(); !s) return s.error();
  for (std::size_t i = 0; i < desc.states.size(); ++i) {
    if (Status s = def->add_state(i); !s) return s.error();
  }
  for (std::size_t i = 0; i < desc.transitions.size(); ++i) {
    if (Status s = def->add_transition(i); !s) return s.error();
  }
  if (!desc.initial.empty()) {
    const std::optional<std::uint32_t> initial = def->state(desc.initial);
    if (!initial) return make_error("initial", "no state named '" + desc.initial + "'");
    def->initial_ = *initial;
  }
  return std::shared_ptr<const StateMachineDefinition>(std::move(def));
}

StateMachine::StateMachine(std::shared_ptr<const StateMachineDefinition> definition)
    : definition_(std::move(definition)) {
  for (const ParameterDesc& p : definition_->desc().parameters) values_.push_back(p.initial);
  current_ = definition_->initial();
}

const std::string& StateMachine::current_state_name() const {
  return definition_->desc().states[current_].name;
}

Status StateMachine::start(Animator& animator) {
  if (definition_->uses_motion_matching()) {
    return make_error("state machine", "has motion-matching states: start it on a MotionMatcher");
  }
  if (Status s = check_animator(animator); !s) return s;
  matcher_ = nullptr;
  current_ = definition_->initial();
  Result<PlayerId> player = play_state(animator, current_, 0);
  if (!player) return player.error();
  player_ = *player;
  previous_ = kNoId;
  transition_left_ = 0;
  return {};
}

Status StateMachine::start(MotionMatcher& matcher) {
  const StateMachineDefinition& def = *definition_;
  const std::string where = "state machine";
  Animator& animator = matcher.animator();
  if (Status s = check_animator(animator); !s) return s;
  for (std::size_t i = 0; i < def.states().size(); ++i) {
    if (def.states()[i].blend_space != kNoId)
      return make_error(where, "states[" + std::to_string(i) +
                                   "]: a machine run by a motion matcher plays clips, not "
                                   "blend spaces");
  }
  matcher_ = &matcher;
  current_ = def.initial();
  previous_ = kNoId;
  transition_left_ = 0;
  if (def.states()[current_].matching) {
    player_ = matcher.player();
    matcher.set_searching(true);
    return {};
  }
  // An action state first: it replaces what the matcher started with.
  Result<PlayerId> player = play_state(animator, current_, 0);
  if (!player) return player.error();
  animator.stop(matcher.player());
  player_ = *player;
  matcher.set_searching(false);
  (void)matcher.follow(player_);
  return {};
}

Status StateMachine::check_animator(const Animator& animator) const {
  const StateMachineDefinition& def = *definition_;
  const StateMachineDesc& desc = def.desc();
  const AnimatorOptions& options = animator.options();
  const std::string where = "state machine";
  if (def.clip_set() != &animator.clip_set()) {
    return make_error(where, "was checked against another clip set than the animator's");
  }
  if (desc.layer >= options.layers.size()) {
    return make_error(where, "plays on layer " + std::to_string(desc.layer) +
                                 ", the animator has " + std::to_string(options.layers.size()));
  }
  if (desc.sync_group >= 0 &&
      static_cast<std::size_t>(desc.sync_group) >= options.sync_groups.size()) {
    return make_error(where, "uses sync group " + std::to_string(desc.sync_group) +
                                 ", which the animator does not declare");
  }
  if (def.uses_inertialization() && !options.inertialization) {
    return make_error(where,
                      "has inertialized transitions; create the animator with "
                      "AnimatorOptions::inertialization");
  }
  if (def.uses_markers() && !options.marker_events) {
    return make_error(where,
                      "has transitions at sync markers; create the animator with "
                      "AnimatorOptions::marker_events");
  }
  return {};
}

bool StateMachine::set_float(std::uint32_t parameter, float value) {
  if (parameter >= values_.size() || !std::isfinite(value)) return false;
  if (definition_->desc().parameters[parameter].type != ParameterType::kFloat) return false;
  values_[parameter] = value;
  return true;
}

bool StateMachine::set_float(std::string_view name, float value) {
  const std::optional<std::uint32_t> p = definition_->parameter(name);
  return p && set_float(*p, value);
}

bool StateMachine::set_bool(std::string_view name, bool value) {
  const std::optional<std::uint32_t> p = definition_->parameter(name);
  if (!p || definition_->desc().parameters[*p].type != ParameterType::kBool) return false;
  values_[*p] = value ? 1.0f : 0.0f;
  return true;
}

bool StateMachine::set_trigger(std::string_view name) {
  const std::optional<std::uint32_t> p = definition_->parameter(name);
  if (!p || definition_->desc().parameters[*p].type != ParameterType::kTrigger) return false;
  values_[*p] = 1;
  return true;
}

bool StateMachine::conditions_hold(const StateMachineDefinition::Transition& t) const {
  const std::span<const StateMachineDefinition::Condition> all = definition_->conditions();
  for (std::uint32_t i = 0; i < t.condition_count; ++i) {
    const StateMachineDefinition::Condition& c = all[t.first_condition + i];
    const float v = values_[c.parameter];
    bool ok = false;
    switch (c.op) {
      case CompareOp::kGreater:
        ok = v > c.value;
        break;
      case CompareOp::kGreaterEqual:
        ok = v >= c.value;
        break;
      case CompareOp::kLess:
        ok = v < c.value;
        break;
      case CompareOp::kLessEqual:
        ok = v <= c.value;
        break;
      case CompareOp::kEqual:
        ok = v == c.value;
        break;
      case CompareOp::kNotEqual:
        ok = v != c.value;
        break;
      case CompareOp::kTrue:
      case CompareOp::kTriggered:
        ok = v != 0;
        break;
      case CompareOp::kFalse:
        ok = v == 0;
        break;
    }
    if (!ok) return false;
  }
  return true;
}

float StateMachine::progress(const Animator& animator, float* clip_duration) const {
  if (definition_->states()[current_].matching) {  // no clip of its own: no exit time is reached
    *clip_duration = 0;
    return 0;
  }
  const PlayerInfo info = animator.info(player_);
  *clip_duration = info.duration;
  if (!(info.duration > 0)) return std::numeric_limits<float>::infinity();  // over at once
  const float speed = definition_->desc().states[current_].speed;
  const float along = speed >= 0 ? info.time : info.duration - info.time;
  return static_cast<float>(info.passes) + along / info.duration;
}

float StateMachine::exit_threshold(std::uint32_t index, float clip_duration) const {
  const StateMachineDefinition::Transition& t = definition_->transitions()[index];
  if (!(clip_duration > 0)) return 0;
  switch (t.exit) {
    case ExitKind::kNormalized:
      return t.exit_at;
    case ExitKind::kSeconds:
      return t.exit_at / clip_duration;
    case ExitKind::kOnFinish: {
      const float speed = std::fabs(definition_->desc().states[current_].speed);
      const float fade = definition_->desc().transitions[index].duration;
      return std::max(0.0f, 1.0f - fade * speed / clip_duration);
    }
    case ExitKind::kNone:
      break;
  }
  return 0;
}

// Where state `state` starts when it begins `rest` seconds before the end of an update, its clip
// at `clip_time` then: the clip time reached, as PlayOptions::start_offset counts it.
float StateMachine::start_offset(const Animator& animator, std::uint32_t state, float clip_time,
                                 float rest) const {
  const StateMachineDefinition::State& to = definition_->states()[state];
  if (to.clip == kNoId) return 0;
  const float speed = definition_->desc().states[state].speed;
  const float duration = animator.clip_set().duration(to.clip);
  float time = clip_time + rest * speed;
  if (duration > 0) {
    time = std::fmod(time, duration);
    if (time < 0) time += duration;
  }
  // PlayOptions::start_offset counts from the end for a state that plays backwards.
  return speed >= 0 ? time : duration - time;
}

// After an update that took the state's progress from `before` to `after`: the first exit-time
// transition whose time fell inside it and whose conditions hold fires, the next state moved on
// by the part of the update after the exit time.
bool StateMachine::fire_at_exit_time(Animator& animator, float before, float after,
                                     float clip_duration) {
  const std::span<const StateMachineDefinition::Transition> transitions =
      definition_->transitions();
  for (std::size_t i = 0; i < transitions.size(); ++i) {
    const StateMachineDefinition::Transition& t = transitions[i];
    if (t.exit == ExitKind::kNone || !from_current(t) || !conditions_hold(t)) continue;
    const float threshold = exit_threshold(static_cast<std::uint32_t>(i), clip_duration);
    if (!(before < threshold && threshold <= after)) continue;
    const float speed = std::fabs(definition_->desc().states[current_].speed);
    const float rest = speed > 0 ? (after - threshold) * clip_duration / speed : 0.0f;
    fire(animator, static_cast<std::uint32_t>(i), start_offset(animator, t.to, 0.0f, rest));
    return true;
  }
  return false;
}

bool StateMachine::from_current(const StateMachineDefinition::Transition& t) const {
  return t.from == current_ || (t.from == kNoId && t.to != current_);
}

Result<PlayerId> StateMachine::play_state(Animator& animator, std::uint32_t state,
                                          float start_offset) {
  const StateMachineDesc& desc = definition_->desc();
  const StateDesc& s = desc.states[state];
  const StateMachineDefinition::State& d = definition_->states()[state];
  PlayOptions o;
  o.layer = desc.layer;
  o.time_scale = s.speed;
  o.wrap = s.wrap;
  o.start_offset = start_offset;
  o.sync_group = s.sync ? desc.sync_group : -1;
  if (d.blend_space != kNoId) {
    o.blend_x = values_[d.x];
    o.blend_y = d.y != kNoId ? values_[d.y] : 0.0f;
    return animator.play_blend_space(d.blend_space, o);
  }
  return animator.play(d.clip, o);
}

bool StateMachine::fire(Animator& animator, std::uint32_t index, float start_offset) {
  const StateMachineDefinition::Transition& t = definition_->transitions()[index];
  const TransitionDesc& desc = definition_->desc().transitions[index];
  const bool to_matching = definition_->states()[t.to].matching;
  const bool timed = desc.duration > 0;
  PlayerId next = player_;
  if (to_matching) {
    // The matcher takes over from what plays: its next update searches and inertializes from it.
    (void)matcher_->follow(player_);
    matcher_->set_searching(true);
  } else {
    Result<PlayerId> played = play_state(animator, t.to, start_offset);
    if (!played) {
      ++failed_;
      return false;
    }
    next = *played;
    if (!timed) {
      animator.stop(player_);
    } else if (desc.kind == TransitionKind::kInertialize) {
      (void)animator.inertialize(player_, next, desc.duration);
    } else {
      (void)animator.cross_fade(player_, next, desc.duration, desc.curve);
    }
    if (matcher_) {  // the action's clip moves the character now
      matcher_->set_searching(false);
      (void)matcher_->follow(next);
    }
  }
  // Triggers the transition tested are spent.
  const std::span<const StateMachineDefinition::Condition> all = definition_->conditions();
  for (std::uint32_t i = 0; i < t.condition_count; ++i) {
    const StateMachineDefinition::Condition& c = all[t.first_condition + i];
    if (c.op == CompareOp::kTriggered) values_[c.parameter] = 0;
  }
  const bool fades = desc.kind == TransitionKind::kFade && !to_matching;
  previous_ = fades && timed ? current_ : kNoId;
  previous_player_ = player_;
  current_ = t.to;
  player_ = next;
  transition_left_ = fades ? desc.duration : 0.0f;
  return true;
}

namespace {

// Passes events on to the caller's buffer and notes the markers the current state crossed.
struct Watch {
  std::span<AnimationEvent> events;
  std::size_t written = 0;
  PlayerId watched;
  std::string_view names[16];
  float times[16] = {};
  std::size_t crossed = 0;
};

void watch(const AnimationEvent& e, void* user) {
  Watch& w = *static_cast<Watch*>(user);
  if (w.written < w.events.size()) w.events[w.written++] = e;
  if (e.type == EventType::kMarker && e.player == w.watched && w.crossed < 16) {
    w.names[w.crossed] = e.name;
    w.times[w.crossed] = e.time;
    ++w.crossed;
  }
}

}  // namespace

UpdateResult StateMachine::update(Animator& animator, float dt, std::span<AnimationEvent> events) {
  if (matcher_) {  // started on a matcher: update that
    UpdateResult refused;
    refused.refused = true;
    return refused;
  }
  return run_update(animator, dt, events);
}

UpdateResult StateMachine::update(MotionMatcher& matcher, float dt,
                                  std::span<AnimationEvent> events) {
  if (matcher_ != &matcher) {  // not started on this matcher
    UpdateResult refused;
    refused.refused = true;
    return refused;
  }
  return run_update(matcher.animator(), dt, events);
}

UpdateResult StateMachine::run_update(Animator& animator, float dt,
                                      std::span<AnimationEvent> events) {
  const StateMachineDefinition& def = *definition_;
  const ClipSet& set = animator.clip_set();
  const std::span<const StateMachineDefinition::Transition> transitions = def.transitions();
  float clip_duration = 0;
  const float before = progress(animator, &clip_duration);
  if (!in_transition()) {
    for (std::size_t i = 0; i < transitions.size(); ++i) {
      const StateMachineDefinition::Transition& t = transitions[i];
      if (t.marker != kNoId || !from_current(t) || !conditions_hold(t)) continue;
      if (before < exit_threshold(static_cast<std::uint32_t>(i), clip_duration)) continue;
      fire(animator, static_cast<std::uint32_t>(i), 0);
      break;
    }
  }
  // Blend spaces read their parameters every update, the one fading out too.
  const std::uint32_t states[2] = {current_, previous_};
  const PlayerId players[2] = {player_, previous_player_};
  for (int k = 0; k < 2; ++k) {
    if (states[k] == kNoId) continue;
    const StateMachineDefinition::State& d = def.states()[states[k]];
    if (d.blend_space == kNoId) continue;
    animator.set_blend_parameter(players[k], values_[d.x], d.y != kNoId ? values_[d.y] : 0.0f);
  }
  Watch w;
  w.events = events;
  w.watched = player_;
  const std::uint32_t state_before = current_;
  UpdateResult result =
      matcher_ ? matcher_->update(dt, &watch, &w).animation : animator.update(dt, &watch, &w);
  result.events_written = w.written;
  if (def.states()[current_].matching) player_ = matcher_->player();  // it may have switched
  if (result.refused) return result;
  const float step = !(dt >= 0) ? 0.0f : std::min(dt, kMaxDeltaTime);
  if (transition_left_ > 0) {
    transition_left_ -= step;
    if (transition_left_ <= 0) {
      transition_left_ = 0;
      previous_ = kNoId;
    }
  }
  if (in_transition()) return result;
  if (current_ == state_before) {
    const float after = progress(animator, &clip_duration);
    if (fire_at_exit_time(animator, before, after, clip_duration)) return result;
  }
  if (w.crossed == 0) return result;
  for (std::size_t i = 0; i < transitions.size(); ++i) {
    const StateMachineDefinition::Transition& t = transitions[i];
    if (t.marker == kNoId || !from_current(t) || !conditions_hold(t)) continue;
    for (std::size_t k = 0; k < w.crossed; ++k) {
      if (w.names[k] != set.name(t.marker)) continue;
      // The new state starts at its own copy of the marker, moved on by the rest of the update.
      float marker_time = 0;
      const StateMachineDefinition::State& to = def.states()[t.to];
      bool found = false;
      if (to.clip != kNoId) {
        for (const SyncMarker& m : set.markers(to.clip)) {
          if (m.name != set.name(t.marker)) continue;
          marker_time = m.time;
          found = true;
          break;
        }
      }
      const float offset =
          found ? start_offset(animator, t.to, marker_time, step - w.times[k]) : 0.0f;
      fire(animator, static_cast<std::uint32_t>(i), offset);
      return result;
    }
  }
  return result;
}

}  // namespace marrow
