/// @file
/// A small animation state machine a user writes as data (io/state_machine_json.h reads it from
/// JSON): states that play a clip or a blend space, parameters the game sets, and transitions that
/// fire on conditions over the parameters, optionally only when the current state crosses a sync
/// marker, and then cross-fade or inertialize into the next state. It drives one layer of an
/// Animator through the Animator's own calls.
///
/// Rules (docs/control.md, "State machines"):
///  - One transition at a time: while one runs (its fade lasts `duration`), no other is taken;
/// @code
///    the update after it ends checks transitions again. An inertialized transition is over at
///    once (its decay goes on inside the Animator).
/// @endcode
///  - Condition transitions are checked at the start of update(), before the Animator advances,
/// @code
///    so a parameter set before update() acts in that update.
/// @endcode
///  - Transitions are checked in the order they are listed, those from the current state and those
/// @code
///    from any state ("*") alike; the first whose conditions all hold fires. A "*" transition never
///    fires from its own target state; an explicit self-transition (from == to) restarts the state:
///    a new player from the state's start, faded (or inertialized) from the old one.
/// @endcode
///  - A trigger stays set until a transition that tests it fires, which consumes it.
///  - A transition with an exit time (ExitKind) may fire only once the state's progress has
/// @code
///    reached it: in the update that reaches it (the next state starting that far past its own
///    start) or, if its conditions hold only later, at the start of a later update.
/// @endcode
///  - A transition with `at_marker` fires only in an update in which the current state's player
/// @code
///    crossed that marker (and its conditions hold after that update); the new state starts at the
///    same marker of its own clip, moved on by the part of the update after the crossing.
/// @endcode
///  - Re-entrancy: update() from inside one of its own event callbacks is refused (the Animator
/// @code
///    refuses a nested update); parameter setters may be called anywhere and count from the next
///    update.
/// @endcode
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/control/animator.h"
#include "marrow/control/clip_set.h"

namespace marrow {

class MotionMatcher;

enum class ParameterType : std::uint8_t { kFloat, kBool, kTrigger };

struct ParameterDesc {
  std::string name{};
  ParameterType type = ParameterType::kFloat;
  float initial = 0;  ///< bool: 0 or 1
};

enum class CompareOp : std::uint8_t {
  kGreater,
  kGreaterEqual,
  kLess,
  kLessEqual,
  kEqual,
  kNotEqual,
  kTrue,       ///< bool parameter set
  kFalse,      ///< bool parameter clear
  kTriggered,  ///< trigger parameter set (consumed when the transition fires)
};

struct ConditionDesc {
  std::string parameter{};
  CompareOp op = CompareOp::kGreater;
  float value = 0;
};

enum class TransitionKind : std::uint8_t { kFade, kInertialize };

/// When a transition may leave its state, measured on the state's progress: its player's clip
/// time since the state began, in clip durations (a looping clip's second pass is 1 to 2; a blend
/// space counts its leader's clip).
enum class ExitKind : std::uint8_t {
  kNone,        ///< whenever the conditions hold
  kNormalized,  ///< once the progress reaches exit_at (Unity's exit time: 0.9 is 90 % of the clip)
  kSeconds,     ///< once exit_at seconds of clip time have played
  kOnFinish,    ///< so that the transition's fade ends as the clip does: at 1 minus the fade's
                ///< length in clip durations (Unreal's automatic rule); the whole clip plays
};

struct StateDesc {
  std::string name{};
  /// Exactly one of these names a clip or a blend space of the clip set, or `motion_matching`
  /// says that a MotionMatcher finds the motion (the machine then runs on one: StateMachine's
  /// start and update taking a matcher).
  std::string clip{};
  std::string blend_space{};
  bool motion_matching = false;
  /// A blend space's parameters: names of float parameters (y only for 2D spaces).
  std::string parameter_x{}, parameter_y{};
  float speed = 1;  ///< time scale
  WrapMode wrap = WrapMode::kLoop;
  /// Play in the machine's sync group (StateMachineDesc::sync_group), in step with other synced
  /// states during transitions.
  bool sync = false;
};

struct TransitionDesc {
  std::string from{};  ///< a state, or "*" for any state
  std::string to{};
  std::vector<ConditionDesc> conditions{};  ///< all must hold; none: always
  std::string at_marker{};                  ///< empty: whenever the conditions hold
  ExitKind exit = ExitKind::kNone;          ///< not with at_marker
  float exit_at = 0;                        ///< kNormalized: clip durations; kSeconds: seconds
  TransitionKind kind = TransitionKind::kFade;
  float duration = 0.25f;
  FadeCurve curve = FadeCurve::kSmooth;
};

struct StateMachineDesc {
  std::vector<ParameterDesc> parameters{};
  std::vector<StateDesc> states{};
  std::vector<TransitionDesc> transitions{};
  std::string initial{};  ///< empty: the first state
  std::uint32_t layer = 0;
  std::int32_t sync_group = -1;  ///< an AnimatorOptions sync group for states with `sync`
};

/// The description checked against a clip set and turned into indices: shared by every character
/// that runs the machine.
class StateMachineDefinition {
 public:
  /// Errors name the place as a JSON path would ("states[2].clip: no clip 'Jog' in the set ...",
  /// "transitions[0].conditions[1].parameter: ...").
  static Result<std::shared_ptr<const StateMachineDefinition>> create(const StateMachineDesc& desc,
                                                                      const ClipSet& set);

  const StateMachineDesc& desc() const { return desc_; }
  std::optional<std::uint32_t> state(std::string_view name) const;
  std::optional<std::uint32_t> parameter(std::string_view name) const;
  bool uses_inertialization() const { return uses_inertialization_; }
  bool uses_markers() const { return uses_markers_; }
  bool uses_motion_matching() const { return uses_motion_matching_; }

  struct State {
    ClipId clip = kNoId;
    BlendSpaceId blend_space = kNoId;
    std::uint32_t x = kNoId, y = kNoId;  ///< parameters
    bool matching = false;               ///< a motion-matching state
  };
  struct Condition {
    std::uint32_t parameter = 0;
    CompareOp op = CompareOp::kGreater;
    float value = 0;
  };
  struct Transition {
    std::uint32_t from = kNoId;  ///< kNoId: any state
    std::uint32_t to = 0;
    std::uint32_t first_condition = 0, condition_count = 0;
    std::uint32_t marker = kNoId;  ///< ClipSet name index
    ExitKind exit = ExitKind::kNone;
    float exit_at = 0;
  };
  std::span<const State> states() const { return states_; }
  std::span<const Transition> transitions() const { return transitions_; }
  std::span<const Condition> conditions() const { return conditions_; }
  std::uint32_t initial() const { return initial_; }
  const ClipSet* clip_set() const { return set_; }

 private:
  /// create()'s steps, each checking desc_ against *set_ and adding what it checked.
  Status check_parameters() const;
  Result<std::uint32_t> float_parameter(const std::string& name, const std::string& where) const;
  Status add_state(std::size_t i);
  Status add_transition(std::size_t i);
  Status add_conditions(std::size_t i);
  Status set_marker(std::size_t i, Transition& tr);

  StateMachineDesc desc_;
  std::vector<State> states_;
  std::vector<Transition> transitions_;
  std::vector<Condition> conditions_;
  std::uint32_t initial_ = 0;
  const ClipSet* set_ = nullptr;  ///< the set it was checked against
  bool uses_inertialization_ = false;
  bool uses_markers_ = false;
  bool uses_motion_matching_ = false;
};

/// One character's run of a machine: parameter values, the current state and its player.
class StateMachine {
 public:
  explicit StateMachine(std::shared_ptr<const StateMachineDefinition> definition);

  /// Plays the initial state on `animator` (at once, full weight). Errors: the animator's clip set
  /// is not the definition's kind (a state's clip id out of range), the layer or sync group is
  /// missing, inertialization or marker events are used but the animator lacks them, the
  /// animator has no free player.
  Status start(Animator& animator);
  /// A machine with motion-matching states (StateDesc::motion_matching): locomotion by matching,
  /// actions by states. It runs on the matcher's Animator (the definition checked against the
  /// database's clip set, so action clips are database clips, excluded from the search); in a
  /// motion-matching state the matcher searches and switches, in the others it follows the
  /// state's player and moves the character by its clip. Transitions into a motion-matching state
  /// inertialize (over the matcher's transition time) and leave it without exit times or markers
  /// (create() checks both). Errors: start(Animator&)'s, a blend-space state, a layer other than
  /// 0, a sync group.
  Status start(MotionMatcher& matcher);

  /// Parameters by name or index. False for an unknown one, a type mismatch or a NaN/infinite value
  /// (ignored).
  bool set_float(std::string_view name, float value);
  bool set_bool(std::string_view name, bool value);
  bool set_trigger(std::string_view name);
  bool set_float(std::uint32_t parameter, float value);
  float value(std::uint32_t parameter) const { return values_[parameter]; }

  /// Checks transitions, feeds blend-space parameters, updates the animator by dt and fires
  /// marker transitions. Events go to `events` as in Animator::update.
  UpdateResult update(Animator& animator, float dt, std::span<AnimationEvent> events = {});
  /// The same on a machine started on `matcher`: the matcher's update (spring, search, switch,
  /// the character's move) takes the place of the Animator's. Each update refuses
  /// (UpdateResult::refused), changing nothing, a machine started the other way or on another
  /// matcher. In a motion-matching state, transitions from "*" with exit times wait for their
  /// conditions alone.
  UpdateResult update(MotionMatcher& matcher, float dt, std::span<AnimationEvent> events = {});

  std::uint32_t current_state() const { return current_; }
  const std::string& current_state_name() const;
  PlayerId current_player() const { return player_; }
  bool in_transition() const { return transition_left_ > 0; }
  /// Transitions that could not start (no free player): the machine stayed where it was.
  std::uint32_t failed_transitions() const { return failed_; }
  const StateMachineDefinition& definition() const { return *definition_; }

 private:
  bool conditions_hold(const StateMachineDefinition::Transition& t) const;
  /// The current state's progress (ExitKind) and its clip's duration in seconds.
  float progress(const Animator& animator, float* clip_duration) const;
  /// The progress at which transition `index` may leave; 0 without an exit time.
  float exit_threshold(std::uint32_t index, float clip_duration) const;
  float start_offset(const Animator& animator, std::uint32_t state, float clip_time,
                     float rest) const;
  bool fire_at_exit_time(Animator& animator, float before, float after, float clip_duration);
  bool from_current(const StateMachineDefinition::Transition& t) const;
  bool fire(Animator& animator, std::uint32_t transition, float start_offset);
  Result<PlayerId> play_state(Animator& animator, std::uint32_t state, float start_offset);
  Status check_animator(const Animator& animator) const;
  UpdateResult run_update(Animator& animator, float dt, std::span<AnimationEvent> events);

  std::shared_ptr<const StateMachineDefinition> definition_;
  std::vector<float> values_;
  std::uint32_t current_ = 0;
  PlayerId player_;
  std::uint32_t previous_ = kNoId;  ///< the state being faded out, while a transition runs
  PlayerId previous_player_;
  float transition_left_ = 0;
  std::uint32_t failed_ = 0;
  MotionMatcher* matcher_ = nullptr;  ///< a machine started on a matcher
};

}  // namespace marrow
