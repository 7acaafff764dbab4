// The state machine: definitions checked with errors that name the place, transitions on
// conditions and at markers, one at a time, triggers consumed, self-transitions restarting,
// blend-space states fed from parameters. Fade weights at given times are computed by hand.
#include <gtest/gtest.h>

#include "control_test_util.h"
#include "marrow/control/state_machine.h"

namespace marrow::test {
namespace {

struct MachineFixture {
  Skeleton skeleton = clock_skeleton();
  std::shared_ptr<const ClipSet> set;
  MachineFixture() {
    ClipSetBuilder b(skeleton);
    EXPECT_TRUE(b.add_clip(clock_clip("idle", 2)).ok());
    EXPECT_TRUE(b.add_clip(clock_clip("walk", 1)).ok());
    EXPECT_TRUE(b.add_clip(clock_clip("run", 0.5f)).ok());
    EXPECT_TRUE(b.add_clip(clock_clip("jump", 1)).ok());
    EXPECT_TRUE(b.add_marker("walk", 0.25f, "left").ok());
    EXPECT_TRUE(b.add_marker("walk", 0.75f, "right").ok());
    EXPECT_TRUE(b.add_marker("run", 0.1f, "left").ok());
    EXPECT_TRUE(b.add_marker("run", 0.35f, "right").ok());
    const BlendSampleDesc samples[] = {{"walk", 1}, {"run", 2}};
    EXPECT_TRUE(b.add_blend_space_1d("move", samples).ok());
    set = b.build().value();
  }
};

StateMachineDesc locomotion() {
  StateMachineDesc d;
  d.parameters = {{"speed", ParameterType::kFloat, 0},
                  {"jump", ParameterType::kTrigger},
                  {"crouch", ParameterType::kBool}};
  d.states = {{.name = "Idle", .clip = "idle"},
              {.name = "Walk", .clip = "walk"},
              {.name = "Run", .clip = "run"},
              {.name = "Jump", .clip = "jump", .wrap = WrapMode::kClamp}};
  d.transitions = {
      {.from = "Idle",
       .to = "Walk",
       .conditions = {{"speed", CompareOp::kGreater, 0.5f}},
       .duration = 0.5f,
       .curve = FadeCurve::kLinear},
      {.from = "Walk",
       .to = "Run",
       .conditions = {{"speed", CompareOp::kGreater, 2}},
       .duration = 0.5f,
       .curve = FadeCurve::kLinear},
      {.from = "*",
       .to = "Jump",
       .conditions = {{"jump", CompareOp::kTriggered}},
       .duration = 0.25f},
      {.from = "Jump",
       .to = "Jump",
       .conditions = {{"jump", CompareOp::kTriggered}},
       .duration = 0.25f},
  };
  return d;
}

TEST(ControlStateMachine, BadDefinitionsAreErrorsNamingThePlace) {
  MachineFixture f;
  const auto error = [&](const StateMachineDesc& d) {
    Result<std::shared_ptr<const StateMachineDefinition>> r =
        StateMachineDefinition::create(d, *f.set);
    return r.ok() ? std::string() : r.error().message;
  };
  StateMachineDesc d = locomotion();
  d.states[1].clip = "jog";
  EXPECT_NE(error(d).find("states[1].clip"), std::string::npos) << error(d);
  EXPECT_NE(error(d).find("'jog'"), std::string::npos);
  d = locomotion();
  d.transitions[1].conditions[0].parameter = "velocity";
  EXPECT_NE(error(d).find("transitions[1].conditions[0].parameter"), std::string::npos) << error(d);
  d = locomotion();
  d.transitions[0].conditions[0].op = CompareOp::kTriggered;  // a float is not a trigger
  EXPECT_NE(error(d).find("does not suit"), std::string::npos);
  d = locomotion();
  d.transitions[0].at_marker = "heel";
  EXPECT_NE(error(d).find("transitions[0].at_marker"), std::string::npos);
  d = locomotion();
  d.transitions[0].to = "Swim";
  EXPECT_NE(error(d).find("transitions[0].to"), std::string::npos);
  d = locomotion();
  d.transitions[0].duration = -1;
  EXPECT_NE(error(d).find("transitions[0].duration"), std::string::npos);
  d = locomotion();
  d.states[0].blend_space = "move";  // both a clip and a blend space
  EXPECT_NE(error(d).find("states[0]"), std::string::npos);
  d = locomotion();
  d.states.push_back({.name = "Move", .blend_space = "move", .parameter_x = "jump"});
  EXPECT_NE(error(d).find("states[4].x"), std::string::npos);
  d = locomotion();
  d.states.clear();
  EXPECT_FALSE(error(d).empty());
  EXPECT_TRUE(error(locomotion()).empty());
}

TEST(ControlStateMachine, ConditionsStartFadesAndOnlyOneRunsAtATime) {
  MachineFixture f;
  auto def = StateMachineDefinition::create(locomotion(), *f.set).value();
  Animator animator = make_animator(f.set);
  StateMachine machine(def);
  ASSERT_TRUE(machine.start(animator).ok());
  EXPECT_EQ(machine.current_state_name(), "Idle");
  const PlayerId idle = machine.current_player();
  machine.update(animator, 0.25f);
  EXPECT_EQ(machine.current_state_name(), "Idle");  // speed 0
  ASSERT_TRUE(machine.set_float("speed", 3));       // past both thresholds
  machine.update(animator, 0.25f);
  EXPECT_EQ(machine.current_state_name(), "Walk");
  EXPECT_TRUE(machine.in_transition());
  EXPECT_FLOAT_EQ(animator.effective_weight(idle), 0.5f);  // 0.25 s of a 0.5 s linear fade
  EXPECT_FLOAT_EQ(animator.effective_weight(machine.current_player()), 0.5f);
  machine.update(animator, 0.25f);  // the fade ends; Walk -> Run waits for the next update
  EXPECT_EQ(machine.current_state_name(), "Walk");
  EXPECT_FALSE(animator.is_playing(idle));
  machine.update(animator, 0.25f);
  EXPECT_EQ(machine.current_state_name(), "Run");
  EXPECT_FALSE(machine.set_float("speed", NAN));
  EXPECT_FALSE(machine.set_float("jump", 1));  // a trigger, not a float
  EXPECT_FALSE(machine.set_bool("speed", true));
}

TEST(ControlStateMachine, TriggersAreSpentAndSelfTransitionsRestart) {
  MachineFixture f;
  auto def = StateMachineDefinition::create(locomotion(), *f.set).value();
  Animator animator = make_animator(f.set);
  StateMachine machine(def);
  ASSERT_TRUE(machine.start(animator).ok());
  ASSERT_TRUE(machine.set_trigger("jump"));
  machine.update(animator, 0.3f);
  EXPECT_EQ(machine.current_state_name(), "Jump");
  EXPECT_EQ(machine.value(*def->parameter("jump")), 0);  // consumed
  const PlayerId first = machine.current_player();
  machine.update(animator, 0.3f);
  EXPECT_EQ(machine.current_state_name(), "Jump");  // "*" does not fire from its own target
  EXPECT_EQ(machine.current_player(), first);
  ASSERT_TRUE(machine.set_trigger("jump"));
  machine.update(animator, 0.1f);  // the explicit self-transition restarts the state
  EXPECT_NE(machine.current_player(), first);
  EXPECT_NEAR(animator.info(machine.current_player()).time, 0.1f, 1e-6f);
  EXPECT_TRUE(animator.is_playing(first));  // fading out
}

TEST(ControlStateMachine, MarkerTransitionsWaitForTheMarkerAndStartInStep) {
  MachineFixture f;
  StateMachineDesc d = locomotion();
  d.initial = "Walk";
  d.transitions = {{.from = "Walk",
                    .to = "Run",
                    .conditions = {{"speed", CompareOp::kGreater, 2}},
                    .at_marker = "left",
                    .duration = 0.2f}};
  auto def = StateMachineDefinition::create(d, *f.set).value();
  Animator plain = make_animator(f.set);
  StateMachine refused(def);
  EXPECT_FALSE(refused.start(plain).ok());  // marker transitions need marker events
  Animator animator = make_animator(f.set, {.marker_events = true});
  StateMachine machine(def);
  ASSERT_TRUE(machine.start(animator).ok());
  ASSERT_TRUE(machine.set_float("speed", 3));
  machine.update(animator, 0.125f);  // 0 -> 0.125: no marker
  EXPECT_EQ(machine.current_state_name(), "Walk");
  machine.update(animator, 0.125f);  // 0.125 -> 0.25: "left" at the open end, not yet
  EXPECT_EQ(machine.current_state_name(), "Walk");
  machine.update(animator, 0.125f);  // leaves "left" at 0.25 (0 s into the update)
  EXPECT_EQ(machine.current_state_name(), "Run");
  // Run starts at its own "left" (0.1), moved on by the whole update after the crossing.
  EXPECT_NEAR(animator.info(machine.current_player()).time, 0.1f + 0.125f, 1e-5f);
}

// Jump (a 1 s clip, clamped) leaves on its own: with on_finish the 0.25 s fade starts at
// 0.75 s so it ends as the clip does, and the whole jump plays; Idle starts moved on by the part
// of the update after the exit time.
TEST(ControlStateMachine, OnFinishLeavesSoTheFadeEndsWithTheClip) {
  MachineFixture f;
  StateMachineDesc d = locomotion();
  d.initial = "Jump";
  d.transitions = {{.from = "Jump",
                    .to = "Idle",
                    .exit = ExitKind::kOnFinish,
                    .duration = 0.25f,
                    .curve = FadeCurve::kLinear}};
  auto def = StateMachineDefinition::create(d, *f.set).value();
  Animator animator = make_animator(f.set);
  StateMachine machine(def);
  ASSERT_TRUE(machine.start(animator).ok());
  const PlayerId jump = machine.current_player();
  machine.update(animator, 0.5f);
  EXPECT_EQ(machine.current_state_name(), "Jump");  // no condition, but not at its exit yet
  machine.update(animator, 0.3f);                   // 0.5 -> 0.8 crosses 0.75
  EXPECT_EQ(machine.current_state_name(), "Idle");
  EXPECT_NEAR(animator.info(machine.current_player()).time, 0.05f, 1e-5f);
  machine.update(animator, 0.2f);  // jump at its end (1 s); the fade ran 0.2 of its 0.25 s
  EXPECT_NEAR(animator.info(jump).time, 1.0f, 1e-6f);
  EXPECT_NEAR(animator.effective_weight(machine.current_player()), 0.2f / 0.25f, 1e-5f);
}

// exit_time counts clip durations from the state's start, loops included: a looping walk (1 s)
// with exit_time 1.5 leaves in its second pass; exit_seconds counts clip seconds. With
// conditions, the exit time only opens the door: the transition fires when they hold after it.
TEST(ControlStateMachine, ExitTimesCountTheStatesProgressAcrossLoops) {
  MachineFixture f;
  for (const auto& [exit, at] :
       {std::pair{ExitKind::kNormalized, 1.5f}, std::pair{ExitKind::kSeconds, 1.5f}}) {
    StateMachineDesc d = locomotion();
    d.initial = "Walk";
    d.transitions = {{.from = "Walk", .to = "Run", .exit = exit, .exit_at = at}};
    auto def = StateMachineDefinition::create(d, *f.set).value();
    Animator animator = make_animator(f.set);
    StateMachine machine(def);
    ASSERT_TRUE(machine.start(animator).ok());
    machine.update(animator, 0.75f);
    machine.update(animator, 0.5f);  // 1.25: looped once, not yet
    EXPECT_EQ(machine.current_state_name(), "Walk");
    machine.update(animator, 0.5f);  // 1.75 crosses 1.5
    EXPECT_EQ(machine.current_state_name(), "Run");
    EXPECT_NEAR(animator.info(machine.current_player()).time, 0.25f, 1e-5f);
  }
  StateMachineDesc d = locomotion();
  d.initial = "Walk";
  d.transitions = {{.from = "Walk",
                    .to = "Run",
                    .conditions = {{"speed", CompareOp::kGreater, 2}},
                    .exit = ExitKind::kNormalized,
                    .exit_at = 0.5f}};
  auto def = StateMachineDefinition::create(d, *f.set).value();
  Animator animator = make_animator(f.set);
  StateMachine machine(def);
  ASSERT_TRUE(machine.start(animator).ok());
  ASSERT_TRUE(machine.set_float("speed", 3));
  machine.update(animator, 0.25f);  // conditions hold, exit time not reached
  EXPECT_EQ(machine.current_state_name(), "Walk");
  ASSERT_TRUE(machine.set_float("speed", 0));
  machine.update(animator, 0.5f);  // exit time passed, conditions do not hold
  EXPECT_EQ(machine.current_state_name(), "Walk");
  ASSERT_TRUE(machine.set_float("speed", 3));
  machine.update(animator, 0.1f);  // both: fires at the start of this update
  EXPECT_EQ(machine.current_state_name(), "Run");

  d.transitions[0].at_marker = "left";
  Result<std::shared_ptr<const StateMachineDefinition>> both =
      StateMachineDefinition::create(d, *f.set);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error().message.find("transitions[0].at_marker"), std::string::npos);
  d.transitions[0].at_marker.clear();
  d.transitions[0].exit_at = -1;
  EXPECT_FALSE(StateMachineDefinition::create(d, *f.set).ok());
}

TEST(ControlStateMachine, BlendSpaceStatesReadTheirParameter) {
  MachineFixture f;
  StateMachineDesc d;
  d.parameters = {{"speed", ParameterType::kFloat, 1.0f}};
  d.states = {{.name = "Move", .blend_space = "move", .parameter_x = "speed"}};
  auto def = StateMachineDefinition::create(d, *f.set).value();
  Animator animator = make_animator(f.set);
  AnimatorWorkspace workspace(*f.set);
  StateMachine machine(def);
  ASSERT_TRUE(machine.start(animator).ok());
  ASSERT_TRUE(machine.set_float("speed", 2.0f));
  machine.update(animator, 0.1f);
  // At the start walk led (speed 1) at 0, halfway from its right foot (-0.25) to its left (0.25),
  // so run joined halfway from its right (-0.15) to its left (0.1): at 0.475. Now only run has
  // weight; it leads and moves 0.1 to 0.575, which wraps to 0.075.
  EXPECT_NEAR(clock_reading(animator, workspace), 0.075f, 1e-5f);
}

TEST(ControlStateMachine, InertializedTransitionsNeedTheAnimatorsSupport) {
  MachineFixture f;
  StateMachineDesc d = locomotion();
  d.transitions[0].kind = TransitionKind::kInertialize;
  auto def = StateMachineDefinition::create(d, *f.set).value();
  Animator plain = make_animator(f.set);
  StateMachine machine(def);
  Status s = machine.start(plain);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("inertialization"), std::string::npos);
  Animator animator = make_animator(f.set, {.inertialization = true});
  ASSERT_TRUE(machine.start(animator).ok());
  ASSERT_TRUE(machine.set_float("speed", 1));
  const PlayerId idle = machine.current_player();
  machine.update(animator, 0.1f);
  EXPECT_EQ(machine.current_state_name(), "Walk");
  EXPECT_FALSE(machine.in_transition());  // over at once; the decay runs in the animator
  EXPECT_FALSE(animator.is_playing(idle));
}

}  // namespace
}  // namespace marrow::test
