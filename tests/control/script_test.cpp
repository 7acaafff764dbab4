// Animation scripts and state machines read from JSON: every member, and errors that name the file
// and the JSON place. `marrow play` run as a process on Soldier.glb: frames, events at the frames
// worked out by hand, players' weights through a cross-fade, and clean failures.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "marrow/io/animation_script.h"
#include "marrow/io/asset.h"
#include "marrow/io/script_runner.h"
#include "shared_asset.h"

namespace marrow::test {
namespace {

namespace fs = std::filesystem;

std::string error_of(std::string_view json) {
  Result<AnimationScript> s = parse_animation_script(json, "s.json");
  return s.ok() ? std::string() : s.error().message;
}

TEST(ControlScript, EveryMemberIsRead) {
  const char* json = R"({
    "fps": 24, "duration": 3, "compile": false, "max_players": 12, "inertialization": false,
    "layers": [{"name": "base"}, {"name": "arm", "mode": "override", "weight": 0.5, "mask": "arm"}],
    "masks": {"arm": {"subtree": "RightShoulder"}, "legs": {"joints": ["a", "b"], "inverse": true}},
    "sync_groups": ["markers", "phase"],
    "events": {"Walk": [{"time": 0.5, "name": "step"}]},
    "markers": {"Walk": [{"time": 0.1, "name": "left"}, {"time": 0.6, "name": "right"}]},
    "foot_markers": {"left_foot": "LeftFoot", "left_toe": "LeftToe", "right_foot": "RightFoot",
                     "clips": ["Run"]},
    "blend_spaces": [{"name": "move", "dimensions": 2, "samples": [
        {"clip": "Idle", "x": 0, "y": 0, "sync": false}, {"clip": "Walk", "x": 0, "y": 1},
        {"clip": "Run", "x": 1, "y": 2}]}],
    "root_motion": {"joint": "Hips", "up": [0, 0, 1], "vertical": true, "yaw": true},
    "state_machine": {"parameters": [{"name": "speed"}, {"name": "jump", "type": "trigger"},
                                     {"name": "crouch", "type": "bool", "initial": true}],
                      "states": [{"name": "Move", "blend_space": "move", "x": "speed", "y": "speed",
                                  "sync": true}, {"name": "Jump", "clip": "Jump", "wrap": "clamp",
                                  "speed": 1.5}],
                      "transitions": [{"from": "*", "to": "Jump",
                                       "when": [{"parameter": "jump", "op": "triggered"}],
                                       "kind": "inertialize", "duration": 0.2},
                                      {"from": "Jump", "to": "Move", "at_marker": "left",
                                       "when": [{"parameter": "speed", "op": ">=", "value": 1}],
                                       "curve": "linear"}],
                      "initial": "Move", "layer": 0, "sync_group": 0},
    "timeline": [
      {"t": 2, "cross_fade": {"from": "walk", "to": "Run", "duration": 0.5, "curve": "linear",
                               "sync_group": 0, "id": "run"}},
      {"t": 0, "play": {"clip": "Walk", "id": "walk", "layer": "base", "weight": 0.5, "speed": -1,
                        "wrap": "pingpong", "repetitions": 3, "offset": 0.25, "fade_in": 0.1}},
      {"t": 1, "set_param": {"name": "speed", "value": 1.5}},
      {"t": 1, "trigger": "jump"},
      {"t": 1.5, "seek": {"id": "walk", "time": 0.3}},
      {"t": 1.5, "warp": {"id": "walk", "speed": 2, "duration": 1}}
    ]})";
  Result<AnimationScript> r = parse_animation_script(json, "s.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const AnimationScript& s = *r;
  EXPECT_EQ(s.fps, 24);
  EXPECT_FALSE(s.compile);
  EXPECT_EQ(s.max_players, 12u);
  ASSERT_EQ(s.layers.size(), 2u);
  EXPECT_EQ(s.layers[1].mode, LayerMode::kOverride);
  EXPECT_EQ(s.layers[1].mask, "arm");
  ASSERT_EQ(s.masks.size(), 2u);
  EXPECT_TRUE(s.masks[1].inverse);
  EXPECT_EQ(s.sync_groups, (std::vector<SyncMode>{SyncMode::kMarkers, SyncMode::kPhase}));
  EXPECT_EQ(s.markers.size(), 2u);
  ASSERT_TRUE(s.foot_markers.has_value());
  EXPECT_EQ(s.foot_markers->left_toe, "LeftToe");
  EXPECT_EQ(s.foot_markers->right_toe, "");
  EXPECT_EQ(s.foot_markers->clips, std::vector<std::string>{"Run"});
  ASSERT_EQ(s.blend_spaces.size(), 1u);
  EXPECT_EQ(s.blend_spaces[0].dimensions, 2);
  EXPECT_FALSE(s.blend_spaces[0].samples[0].sync);
  ASSERT_TRUE(s.root_motion.has_value());
  EXPECT_EQ(s.root_motion->up.z, 1);
  EXPECT_TRUE(s.root_motion->yaw);
  ASSERT_TRUE(s.state_machine.has_value());
  EXPECT_EQ(s.state_machine->parameters[2].initial, 1);
  EXPECT_EQ(s.state_machine->transitions[0].kind, TransitionKind::kInertialize);
  EXPECT_EQ(s.state_machine->transitions[1].conditions[0].op, CompareOp::kGreaterEqual);
  ASSERT_EQ(s.timeline.size(), 6u);
  // Sorted by time, stable: the play first, the cross-fade last.
  EXPECT_EQ(s.timeline[0].kind, ScriptCommandKind::kPlay);
  EXPECT_EQ(s.timeline[0].play.wrap, WrapMode::kPingPong);
  EXPECT_EQ(s.timeline[0].play.repetitions, 3u);
  EXPECT_EQ(s.timeline[0].play.time_scale, -1);
  EXPECT_EQ(s.timeline[0].where, "timeline[1]");
  EXPECT_EQ(s.timeline[5].kind, ScriptCommandKind::kCrossFade);
  EXPECT_EQ(s.timeline[5].to, "Run");
  EXPECT_EQ(s.timeline[5].name, "run");
  EXPECT_EQ(s.timeline[5].curve, FadeCurve::kLinear);
}

TEST(ControlScript, IkAndFootPlantingMembersAreRead) {
  const char* json = R"({
    "foot_planting": {"pelvis": "Hips", "legs": [
        {"foot": "LeftFoot", "toe": "LeftToe", "knee": "LeftLeg", "hip": "LeftUpLeg",
         "pole": [0, 0, 1]}, {"foot": "RightFoot"}],
      "up": [0, 0, 1], "ground": {"point": [0, 0, 0.5], "normal": [0.1, 0, 1]},
      "animation_ground": 0.02, "blend": 0.2, "align_feet": false, "soft_limit": 0.9,
      "max_pelvis_offset": 0.3},
    "timeline": [
      {"t": 1, "ik": {"id": "grab", "solver": "two_bone", "joint": "RightHand", "mid": "Elbow",
                      "start": "Shoulder", "target": {"joint": "Cup", "offset": [0, 0.1, 0]},
                      "pole": [0, 0, -1], "soft_limit": 0.95, "weight": 0.8, "fade": 0.3}},
      {"t": 1, "ik": {"id": "look", "solver": "aim", "joint": "Head", "target": [1, 2, 3],
                      "forward": [0, 1, 0], "up": [0, 0, 1], "pole": [0, 0, 1], "max_angle": 60}},
      {"t": 1, "ik": {"id": "tail", "solver": "chain", "joint": "Tail5", "root": "Tail1",
                      "target": "Ball"}},
      {"t": 2, "release_ik": {"id": "grab", "duration": 0.5}}, {"t": 3, "release_ik": "look"}
    ]})";
  Result<AnimationScript> r = parse_animation_script(json, "s.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->foot_planting.has_value());
  const ScriptFootPlanting& p = *r->foot_planting;
  EXPECT_EQ(p.pelvis, "Hips");
  ASSERT_EQ(p.legs.size(), 2u);
  EXPECT_EQ(p.legs[0].hip, "LeftUpLeg");
  EXPECT_EQ(p.legs[0].pole.z, 1);
  EXPECT_EQ(p.legs[1].knee, "");
  EXPECT_EQ(p.up.z, 1);
  EXPECT_TRUE(p.has_plane);
  EXPECT_EQ(p.plane.point.z, 0.5f);
  EXPECT_EQ(p.plane.normal.x, 0.1f);
  EXPECT_EQ(p.animation_ground, 0.02f);
  EXPECT_EQ(p.blend, 0.2f);
  EXPECT_FALSE(p.align_feet);
  EXPECT_EQ(p.soft_limit, 0.9f);
  EXPECT_EQ(p.max_pelvis_offset, 0.3f);
  const std::vector<ScriptCommand>& t = r->timeline;
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0].kind, ScriptCommandKind::kIk);
  EXPECT_EQ(t[0].id, "grab");
  EXPECT_EQ(t[0].duration, 0.3f);
  EXPECT_EQ(t[0].ik.solver, ScriptIkSolver::kTwoBone);
  EXPECT_EQ(t[0].ik.mid, "Elbow");
  EXPECT_EQ(t[0].ik.start, "Shoulder");
  EXPECT_EQ(t[0].ik.target_joint, "Cup");
  EXPECT_EQ(t[0].ik.target.y, 0.1f);
  EXPECT_EQ(t[0].ik.pole.z, -1);
  EXPECT_EQ(t[0].ik.soft_limit, 0.95f);
  EXPECT_EQ(t[0].ik.weight, 0.8f);
  EXPECT_EQ(t[1].ik.solver, ScriptIkSolver::kAim);
  EXPECT_EQ(t[1].ik.target.z, 3);
  EXPECT_EQ(t[1].ik.forward.y, 1);
  EXPECT_EQ(t[1].ik.up.z, 1);
  EXPECT_EQ(t[1].ik.max_angle, 60);
  EXPECT_EQ(t[1].duration, 0);
  EXPECT_EQ(t[2].ik.solver, ScriptIkSolver::kChain);
  EXPECT_EQ(t[2].ik.root, "Tail1");
  EXPECT_EQ(t[2].ik.target_joint, "Ball");
  EXPECT_EQ(t[3].kind, ScriptCommandKind::kReleaseIk);
  EXPECT_EQ(t[3].duration, 0.5f);
  EXPECT_EQ(t[4].id, "look");
  // A flat ground by height.
  r = parse_animation_script(
      R"({"foot_planting": {"pelvis": "Hips", "legs": [{"foot": "F"}], "ground": 0.25}})",
      "s.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->foot_planting->has_plane);
  EXPECT_EQ(r->foot_planting->ground_height, 0.25f);
}

TEST(ControlScript, ErrorsNameTheFileAndTheJsonPlace) {
  EXPECT_EQ(error_of(R"({"timeline": [{"t": 0, "plya": "Walk"}]})"),
            "s.json: timeline[0].plya: unknown member (known: t, play, play_blend_space, stop, "
            "pause, resume, seek, set_speed, set_weight, set_ticks_per_second, set_layer_weight, "
            "fade_in, fade_out, cross_fade, inertialize, warp, set_blend, set_param, set_bool, "
            "trigger, set_morph, fade_morph, release_morph, ik, release_ik, stick, waypoints)");
  EXPECT_NE(error_of(R"({"timeline": [{"t": 0}]})").find("timeline[0]: has no command"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"timeline": [{"t": 0, "play": "A", "stop": "A"}]})").find("two commands"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"timeline": [{"t": -1, "play": "A"}]})")
                .find("timeline[0].t: must be a number >= 0"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"timeline": [{"t": 0, "play": {"clip": "A", "wrap": "bounce"}}]})")
                .find("timeline[0].play.wrap: 'bounce' is not one of loop, clamp, pingpong"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"fps": 30, "fps": 60})").find("member \"fps\" is given twice"),
            std::string::npos);
  EXPECT_NE(error_of("{\"fps\": 30,\n \"layers\": [}").find("s.json:2:"), std::string::npos);
  // Lines end at LF, CRLF and a lone CR alike (the readers' one rule, io/common/text_lines.h):
  // the syntax error is on line 3 each time.
  for (const char* br : {"\n", "\r\n", "\r"}) {
    const std::string text =
        std::string("{\"fps\": 30,") + br + "\"duration\": 1," + br + "\"layers\": [ }";
    EXPECT_NE(error_of(text).find("s.json:3:"), std::string::npos)
        << error_of(text) << " with break "
        << (br[0] == '\n' ? "LF"
            : br[1]       ? "CRLF"
                          : "CR");
  }
  EXPECT_NE(error_of(R"({"masks": {"arm": {}}})").find("masks.arm: needs exactly one"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"state_machine": {"states": [{"name": "A", "clip": "A"}],
                      "transitions": [{"from": "A", "to": "A", "when": [{"parameter": "x", "op": "~"}]}]}})")
                .find("state_machine.transitions[0].when[0].op: '~' is not one of"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"state_machine": "machine.json"})").find("needs the script to be a file"),
            std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"timeline": [{"t": 0, "inertialize": {"from": "a", "to": "b", "duration": 0}}]})")
          .find("must be a number > 0"),
      std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("must be an object"), std::string::npos);
}

// Nesting is held to 1,024 levels before the parser builds anything (docs/reliability.md,
// "Budgets"). In `{"layers": [[[...` the '{' is level 1 and the bracket at byte 11 + k opens
// level k + 2, so level 1,025 opens at byte 1,034: line 1, column 1,035.
TEST(ControlScript, ExitTimesAreReadAndOneIsGiven) {
  const auto machine = [](const std::string& transition) {
    return parse_state_machine(R"({"states": [{"name": "A", "clip": "a"}],
        "transitions": [)" + transition +
                                   "]}",
                               "m.json");
  };
  const Result<StateMachineDesc> normalized =
      machine(R"({"from": "A", "to": "A", "exit_time": 0.9})");
  ASSERT_TRUE(normalized.ok()) << normalized.error().message;
  EXPECT_EQ(normalized->transitions[0].exit, ExitKind::kNormalized);
  EXPECT_EQ(normalized->transitions[0].exit_at, 0.9f);
  const Result<StateMachineDesc> seconds =
      machine(R"({"from": "A", "to": "A", "exit_seconds": 0.5})");
  ASSERT_TRUE(seconds.ok());
  EXPECT_EQ(seconds->transitions[0].exit, ExitKind::kSeconds);
  EXPECT_EQ(seconds->transitions[0].exit_at, 0.5f);
  const Result<StateMachineDesc> finish = machine(R"({"from": "A", "to": "A", "on_finish": true})");
  ASSERT_TRUE(finish.ok());
  EXPECT_EQ(finish->transitions[0].exit, ExitKind::kOnFinish);
  const Result<StateMachineDesc> two =
      machine(R"({"from": "A", "to": "A", "exit_time": 1, "on_finish": true})");
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message.find("transitions[0]: give one of exit_time"), std::string::npos)
      << two.error().message;
  const Result<StateMachineDesc> negative = machine(R"({"from": "A", "to": "A", "exit_time": -1})");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("transitions[0].exit_time"), std::string::npos)
      << negative.error().message;
}

TEST(ControlScript, NestingPast1024LevelsIsRefusedWithItsPlace) {
  const std::string deep = std::string(100000, '[');
  const std::string rule =
      ": JSON nests arrays and objects deeper than 1024 levels, the most marrow reads";
  EXPECT_EQ(error_of("{\"layers\": " + deep), "s.json:1:1035" + rule);
  // A lone CR ends line 1; line 2 starts at byte 2, so byte 1,035 is column 1,034.
  const Result<StateMachineDesc> machine = parse_state_machine("{\r\"states\": " + deep, "m.json");
  ASSERT_FALSE(machine.ok());
  EXPECT_EQ(machine.error().message, "m.json:2:1034" + rule);
  // 1,024 levels are read: the error is then about what the member holds.
  const std::string levels_1024 =
      "{\"layers\": " + std::string(1023, '[') + std::string(1023, ']') + "}";
  EXPECT_EQ(error_of(levels_1024).find("deeper than"), std::string::npos) << error_of(levels_1024);
  EXPECT_NE(error_of(levels_1024).find("s.json: layers"), std::string::npos)
      << error_of(levels_1024);
}

TEST(ControlScript, AStateMachineFileIsReadBesideTheScript) {
  const fs::path dir = fs::temp_directory_path() / ("marrow_script_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "machine.json")
      << R"({"states": [{"name": "Walk", "clip": "Walk"}], "layer": 7)";
  std::ofstream(dir / "script.json") << R"({"state_machine": "machine.json"})";
  Result<AnimationScript> s = read_animation_script((dir / "script.json").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("machine.json:1:"), std::string::npos) << s.error().message;
  std::ofstream(dir / "machine.json")
      << R"({"states": [{"name": "Walk", "clip": "Walk"}], "layer": 7})";
  s = read_animation_script((dir / "script.json").string());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->state_machine->layer, 7u);
  EXPECT_FALSE(read_animation_script((dir / "none.json").string()).ok());
  fs::remove_all(dir);
}

// --- marrow play, run as a process.

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

class ControlPlay : public ::testing::Test {
 protected:
  void SetUp() override {
    soldier_ = shared_asset_path("gltf/Soldier.glb");
    if (!fs::exists(soldier_)) GTEST_SKIP() << soldier_ << " is absent";
    dir_ = fs::temp_directory_path() /
           ("marrow_play_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  Outcome run(const std::string& script, std::vector<std::string> args = {}) {
    std::ofstream(dir_ / "script.json") << script;
    std::string command = std::string(MARROW_BIN) + " play '" + (file_.empty() ? soldier_ : file_) +
                          "' --script '" + (dir_ / "script.json").string() + "'";
    for (const std::string& a : args) command += " " + a;
    command += " >'" + (dir_ / "out").string() + "' 2>'" + (dir_ / "err").string() + "'";
    const int status = std::system(command.c_str());
    Outcome o;
    if (status != -1 && WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    std::stringstream out, err;
    out << std::ifstream(dir_ / "out").rdbuf();
    err << std::ifstream(dir_ / "err").rdbuf();
    o.out = out.str();
    o.err = err.str();
    return o;
  }
  std::string soldier_;
  std::string file_;  // the file played, when not Soldier.glb
  fs::path dir_;
};

TEST_F(ControlPlay, PrintsEveryFrameWithPlayersEventsAndRootMotion) {
  const Outcome o = run(R"({"fps": 10, "duration": 1.5,
      "events": {"Walk": [{"time": 0.55, "name": "step"}]},
      "root_motion": {"joint": "mixamorig:Hips"},
      "timeline": [{"t": 0, "play": "Walk"},
                   {"t": 0.5, "cross_fade": {"from": "Walk", "to": "Run", "duration": 0.5,
                                             "curve": "linear"}}]})",
                        {"--format", "json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  const nlohmann::json& frames = doc["frames"];
  ASSERT_EQ(frames.size(), 16u);  // 0, 0.1, ..., 1.5
  // "step" at 0.55 is passed in the update from 0.5 to 0.6: frame 6, 0.05 s into it.
  for (std::size_t k = 0; k < frames.size(); ++k) {
    bool step = false;
    for (const auto& e : frames[k]["events"]) {
      if (e.value("name", "") == "step") {
        step = true;
        EXPECT_NEAR(e["time"].get<double>(), 0.05, 1e-5);
      }
    }
    EXPECT_EQ(step, k == 6) << k;
  }
  // The cross-fade starts at 0.5 s: at frame 7 (0.7 s), 0.2 s of a 0.5 s linear fade have run.
  const nlohmann::json& players = frames[7]["players"];
  ASSERT_EQ(players.size(), 2u);
  EXPECT_NEAR(players[0]["effective_weight"].get<double>(), 0.6, 1e-5);
  EXPECT_NEAR(players[1]["effective_weight"].get<double>(), 0.4, 1e-5);
  EXPECT_NEAR(players[1]["time"].get<double>(), 0.2, 1e-5);
  EXPECT_EQ(frames[12]["players"].size(), 1u);  // the walk stopped when it faded out
  EXPECT_TRUE(frames[3]["root_motion"]["translation"].is_array());
}

TEST_F(ControlPlay, EventsAloneAndThePoseInMarrowPosesShape) {
  const std::string script = R"({"fps": 10, "duration": 1, "timeline": [{"t": 0, "play": "Run"}]})";
  Outcome o = run(script, {"--events"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // Run lasts 2/3 s: it loops in the update from 0.6 to 0.7, and that is the only event.
  EXPECT_NE(o.out.find("t 0.7000  frame 7  looped  player Run"), std::string::npos) << o.out;
  EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 2) << o.out;
  o = run(script, {"--format", "json", "--pose"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  ASSERT_EQ(doc["nodes"].size(), 68u);
  ASSERT_EQ(doc["frames"][2]["world"].size(), 68u);
  EXPECT_EQ(doc["frames"][2]["world"][0].size(), 16u);
}

TEST_F(ControlPlay, BadScriptsFailCleanlyNamingThePlace) {
  Outcome o = run(R"({"timeline": [{"t": 0, "play": "Walk"}, {"t": 1, "stop": "Jog"}]})");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find("timeline[1]: no player 'Jog' is playing (playing: Walk)"),
            std::string::npos)
      << o.err;
  o = run(R"({"timeline": [{"t": 0, "play": "Walk"}], "fps": "fast"})");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("fps: must be a number"), std::string::npos) << o.err;
  o = run(
      R"({"sync_groups": ["markers"], "timeline": [{"t": 0, "play": {"clip": "Walk", "sync_group": 0}}]})");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("no sync markers"), std::string::npos) << o.err;
  o = run(R"({"state_machine": {"states": [{"name": "A", "clip": "Jog"}]}})");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("state_machine.states[0].clip"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("Sanitizer"), std::string::npos) << o.err;
}

// "foot_markers" detects the markers from the feet: every clip where both feet come down gets
// them (Idle and TPose, feet planted throughout, are left out), so Walk and Run can share a marker
// sync group; its leader's strikes fire as marker events, left and right in turn.
TEST_F(ControlPlay, FootMarkersAreDetectedAndKeepASyncGroupInStep) {
  const std::string feet = R"("foot_markers": {"left_foot": "mixamorig:LeftFoot",
      "left_toe": "mixamorig:LeftToeBase", "right_foot": "mixamorig:RightFoot",
      "right_toe": "mixamorig:RightToeBase")";
  Outcome o = run(R"({"fps": 30, "duration": 2, "sync_groups": ["markers"], )" + feet + R"(},
      "timeline": [{"t": 0, "play": {"clip": "Walk", "sync_group": 0}},
                   {"t": 0, "play": {"clip": "Run", "sync_group": 0, "weight": 0.5}}]})",
                  {"--format", "json", "--events"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  std::vector<std::string> walk;
  for (const auto& frame : doc["frames"]) {
    std::vector<std::string> walk_here, run_here;
    for (const auto& e : frame["events"]) {
      if (e["type"] != "marker") continue;
      (e["player"] == "Walk" ? walk_here : run_here).push_back(e["name"]);
    }
    // Markers are events of the leader alone; the follower's are not fired.
    EXPECT_TRUE(run_here.empty());
    walk.insert(walk.end(), walk_here.begin(), walk_here.end());
  }
  // Two walk cycles: four strikes, left and right in turn.
  ASSERT_EQ(walk.size(), 4u) << o.out;
  for (std::size_t i = 1; i < walk.size(); ++i) EXPECT_NE(walk[i], walk[i - 1]);
  // A clip named in "clips" must have footfalls.
  o = run(R"({")" + feet.substr(1) + R"(, "clips": ["Idle"]}, "timeline": []})");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("foot_markers: clip 'Idle'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("never comes down"), std::string::npos) << o.err;
  o = run(R"({"foot_markers": {"left_foot": "LeftFoot", "right_foot": "RightFoot"},
              "timeline": []})");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("no joint 'LeftFoot'"), std::string::npos) << o.err;
}

// The example script the README points to plays: its gait space (with markers detected from the
// feet) throughout, its arm layer fading in and out at the times it gives.
TEST_F(ControlPlay, TheExampleScriptPlaysItsGaitSpaceAndFadesItsArmLayer) {
  std::stringstream text;
  text << std::ifstream(std::string(MARROW_SOURCE_DIR) +
                        "/examples/scripts/soldier_walk_to_run.json")
              .rdbuf();
  ASSERT_FALSE(text.str().empty());
  const Outcome o = run(text.str(), {"--format", "json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  const nlohmann::json& frames = doc["frames"];
  ASSERT_EQ(frames.size(), 101u);  // 5 s at 20 fps, both ends
  const auto player = [&](int frame, const std::string& id) {
    for (const auto& p : frames[frame]["players"]) {
      if (p["id"] == id) return p;
    }
    return nlohmann::json();
  };
  EXPECT_EQ(player(50, "legs")["blend_space"], "gait");
  // The arm fades in from 3.5 s over 0.3 s: at 3.6 s a third of the way (linear).
  EXPECT_NEAR(player(72, "arm")["effective_weight"].get<double>(), 1.0 / 3, 1e-4);
  EXPECT_NEAR(player(80, "arm")["effective_weight"].get<double>(), 1, 1e-6);
  EXPECT_TRUE(player(100, "arm").is_null());  // faded out and stopped by 4.8 s
}

TEST_F(ControlPlay, AStateMachineRunsFromTheScript) {
  const Outcome o = run(R"({"fps": 10, "duration": 2,
      "state_machine": {"parameters": [{"name": "speed"}],
                        "states": [{"name": "Idle", "clip": "Idle"}, {"name": "Walk", "clip": "Walk"}],
                        "transitions": [{"from": "Idle", "to": "Walk", "duration": 0.3,
                                         "when": [{"parameter": "speed", "op": ">", "value": 0.5}]}]},
      "timeline": [{"t": 1, "set_param": {"name": "speed", "value": 1}}]})",
                        {"--format", "json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  EXPECT_EQ(doc["frames"][9]["state"], "Idle");
  EXPECT_EQ(doc["frames"][10]["state"], "Walk");
  EXPECT_EQ(doc["frames"][20]["players"].size(), 1u);
  EXPECT_EQ(doc["frames"][20]["players"][0]["id"], "Walk");
}

// --- IK and foot planting in scripts. Expected poses come from geometry: a reached two-bone
// target puts the hand where asked; an aimed axis points at its target; a planted foot keeps its
// clearance above the game's ground; a released constraint gives the clip's pose back. The
// clip's own poses come from the same script without the edits.

struct PlayedPose {
  nlohmann::json doc;
  std::size_t node(const std::string& name) const {
    for (std::size_t i = 0; i < doc["nodes"].size(); ++i)
      if (doc["nodes"][i]["name"] == name) return i;
    ADD_FAILURE() << "no node " << name;
    return 0;
  }
  const nlohmann::json& frame(std::size_t k) const { return doc["frames"][k]; }
  Vec3 column(std::size_t k, const std::string& joint, int c) const {
    const nlohmann::json& m = frame(k)["world"][node(joint)];
    return {m[4 * c].get<float>(), m[4 * c + 1].get<float>(), m[4 * c + 2].get<float>()};
  }
  Vec3 position(std::size_t k, const std::string& joint) const { return column(k, joint, 3); }
};

float distance(Vec3 a, Vec3 b) {
  return length(a - b);
}

TEST_F(ControlPlay, IkCommandsReachTheirTargetsFadeAndReleaseBackToTheClip) {
  const std::string head = "mixamorig:Head", hand = "mixamorig:RightHand";
  const auto play = [&](const std::string& edits) {
    const Outcome o = run(R"({"fps": 10, "duration": 1, "compile": false, "timeline": [
        {"t": 0, "play": "Walk"})" +
                              edits + "]}",
                          {"--format", "json", "--pose"});
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return PlayedPose{o.exit_code == 0 ? nlohmann::json::parse(o.out) : nlohmann::json{}};
  };
  const PlayedPose clip = play("");
  const Vec3 offset{0, 0.01f, 0.005f}, look_at{0.1f, 0.3f, 0.2f};
  const PlayedPose edited = play(R"(,
      {"t": 0, "ik": {"id": "grab", "solver": "two_bone", "joint": "mixamorig:RightHand",
                      "target": {"joint": "mixamorig:RightHand", "offset": [0, 0.01, 0.005]}}},
      {"t": 0, "ik": {"id": "look", "solver": "aim", "joint": "mixamorig:Head",
                      "forward": [0, 1, 0], "target": [0.1, 0.3, 0.2], "fade": 0.2}},
      {"t": 0.5, "release_ik": "grab"},
      {"t": 0.5, "release_ik": {"id": "look", "duration": 0.2}})");
  ASSERT_EQ(edited.doc["frames"].size(), 11u);
  for (std::size_t k = 0; k <= 4; ++k) {
    EXPECT_LT(distance(edited.position(k, hand), clip.position(k, hand) + offset), 2e-5f) << k;
    EXPECT_TRUE(edited.frame(k)["ik"][0]["reached"].get<bool>()) << k;
  }
  EXPECT_NEAR(edited.frame(1)["ik"][1]["weight"].get<float>(), 0.5f, 1e-5f);
  for (std::size_t k = 2; k <= 5; ++k) {
    const Vec3 aimed = edited.column(k, head, 1) * (1 / length(edited.column(k, head, 1)));
    const Vec3 to_target = look_at - edited.position(k, head);
    const Vec3 wanted = to_target * (1 / length(to_target));
    EXPECT_GT(dot(aimed, wanted), 1 - 1e-5f) << k;
  }
  for (std::size_t k = 5; k <= 10; ++k) {
    EXPECT_LT(distance(edited.position(k, hand), clip.position(k, hand)), 1e-6f) << k;
  }
  EXPECT_NEAR(edited.frame(6)["ik"][0]["weight"].get<float>(), 0.5f, 1e-5f);  // look fading out
  for (std::size_t k = 7; k <= 10; ++k) {
    EXPECT_FALSE(edited.frame(k).contains("ik")) << k;
    EXPECT_LT(distance(edited.column(k, head, 1), clip.column(k, head, 1)), 1e-6f) << k;
  }
  // A chain (FABRIK) from the spine puts the neck on its target.
  const PlayedPose chain = play(R"(,
      {"t": 0, "ik": {"id": "lean", "solver": "chain", "root": "mixamorig:Spine",
                      "joint": "mixamorig:Neck",
                      "target": {"joint": "mixamorig:Neck", "offset": [0.005, -0.003, 0]}}})");
  for (std::size_t k = 0; k <= 10; ++k) {
    EXPECT_LT(distance(chain.position(k, "mixamorig:Neck"),
                       clip.position(k, "mixamorig:Neck") + Vec3{0.005f, -0.003f, 0}),
              2e-4f)
        << k;
  }
}

TEST_F(ControlPlay, FootPlantingKeepsPlantedFeetOnTheGamesGround) {
  const auto play = [&](const std::string& planting) {
    const Outcome o = run(R"({"fps": 20, "duration": 1.2, "compile": false)" + planting +
                              R"(, "timeline": [{"t": 0, "play": "Walk"}]})",
                          {"--format", "json", "--pose"});
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return PlayedPose{o.exit_code == 0 ? nlohmann::json::parse(o.out) : nlohmann::json{}};
  };
  const PlayedPose clip = play("");
  // The game's ground is 0.004 above the ground the walk was made on.
  const PlayedPose planted = play(R"(, "foot_planting": {"pelvis": "mixamorig:Hips",
      "legs": [{"foot": "mixamorig:LeftFoot", "toe": "mixamorig:LeftToeBase"},
               {"foot": "mixamorig:RightFoot", "toe": "mixamorig:RightToeBase"}],
      "ground": 0.004})");
  const char* feet[] = {"mixamorig:LeftFoot", "mixamorig:RightFoot"};
  int planted_frames[2] = {0, 0}, free_frames[2] = {0, 0};
  for (std::size_t k = 0; k < planted.doc["frames"].size(); ++k) {
    const nlohmann::json& contacts = planted.frame(k)["foot_planting"]["contacts"];
    for (int leg = 0; leg < 2; ++leg) {
      const float contact = contacts[leg].get<float>();
      const float lift = planted.position(k, feet[leg]).y - clip.position(k, feet[leg]).y;
      if (contact == 1) {
        ++planted_frames[leg];
        EXPECT_NEAR(lift, 0.004f, 2e-5f) << "frame " << k << " leg " << leg;
      }
      if (contact == 0) ++free_frames[leg];
    }
  }
  for (int leg = 0; leg < 2; ++leg) {
    EXPECT_GT(planted_frames[leg], 3) << leg;  // a walk plants each foot and lifts it again
    EXPECT_GT(free_frames[leg], 3) << leg;
  }
}

// In process (ScriptRunner, as `marrow play` runs it): the file is loaded once, not per case.
TEST(ControlScriptRun, BadIkAndPlantingFailNamingThePlace) {
  const std::string soldier = shared_asset_path("gltf/Soldier.glb");
  if (!fs::exists(soldier)) GTEST_SKIP() << soldier << " is absent";
  const Result<Asset> asset = load_asset(soldier);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const auto error_of = [&](const std::string& json) -> std::string {
    Result<AnimationScript> script = parse_animation_script(json, "s.json");
    if (!script) return script.error().message;
    Result<ScriptRunner> runner = ScriptRunner::create(*asset, *script);
    if (!runner) return runner.error().message;
    ScriptFrame frame;
    for (int k = 0; k < runner->frame_count(); ++k) {
      if (Status s = runner->next(frame); !s) return s.error().message;
    }
    ADD_FAILURE() << "no error from " << json;
    return {};
  };
  EXPECT_NE(error_of(R"({"timeline": [{"t": 0, "play": "Walk"}, {"t": 0.1, "ik": {"id": "a",
      "solver": "aim", "joint": "Nose", "target": [0, 1, 0]}}]})")
                .find("s.json: timeline[1].ik.joint: no joint named 'Nose'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"timeline": [{"t": 0, "release_ik": "grab"}]})")
                .find("s.json: timeline[0]: no IK constraint 'grab' is set"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"timeline": [{"t": 0, "ik": {"id": "a", "solver": "aim",
      "joint": "mixamorig:Head", "target": [0, 1, 0], "soft_limit": 0.5}}]})")
                .find("s.json: timeline[0].ik.soft_limit: belongs to another solver than aim"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"timeline": [{"t": 0, "ik": {"id": "a", "solver": "chain",
      "joint": "mixamorig:Spine", "root": "mixamorig:Head", "target": [0, 1, 0]}}]})")
                .find("s.json: timeline[0].ik.root: 'mixamorig:Head' must be an ancestor"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"foot_planting": {"pelvis": "Pelvis", "legs": [{"foot":
      "mixamorig:LeftFoot"}]}, "timeline": [{"t": 0, "play": "Walk"}]})")
                .find("s.json: foot_planting.pelvis: no joint named 'Pelvis'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"foot_planting": {"pelvis": "mixamorig:Hips", "legs": [{"foot":
      "mixamorig:LeftFoot"}], "ground": {"normal": [1, 0, 0]}}})")
                .find("s.json: foot_planting.ground.normal: must point up"),
            std::string::npos);
}

// Commands run at once and steps of the caller's clock (the WebAssembly interface's way) give the
// frames the timeline gives when the commands fall on frames: same players, same pose.
TEST(ControlScriptRun, CommandsRunAtOnceGiveTheTimelinesFrames) {
  const std::string soldier = shared_asset_path("gltf/Soldier.glb");
  if (!fs::exists(soldier)) GTEST_SKIP() << soldier << " is absent";
  const Result<Asset> asset = load_asset(soldier);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const std::string setup = R"("fps": 30, "blend_spaces": [{"name": "gait", "samples":
      [{"clip": "Walk", "x": 1}, {"clip": "Run", "x": 3}]}])";
  Result<AnimationScript> timed = parse_animation_script(
      "{" + setup + R"(, "duration": 1, "timeline": [{"t": 0, "play": "Walk"},
      {"t": 0.5, "cross_fade": {"from": "Walk", "to": "gait", "x": 2, "duration": 0.3}}]})",
      "timed.json");
  Result<AnimationScript> bare = parse_animation_script("{" + setup + "}", "bare.json");
  ASSERT_TRUE(timed.ok() && bare.ok());
  Result<ScriptRunner> by_timeline = ScriptRunner::create(*asset, *timed);
  Result<ScriptRunner> by_hand = ScriptRunner::create(*asset, *bare);
  ASSERT_TRUE(by_timeline.ok() && by_hand.ok());
  Result<ScriptCommand> play = parse_script_command(R"({"play": "Walk"})", "js");
  Result<ScriptCommand> fade = parse_script_command(
      R"({"cross_fade": {"from": "Walk", "to": "gait", "x": 2, "duration": 0.3}})", "js");
  ASSERT_TRUE(play.ok() && fade.ok());
  ScriptFrame expected, got;
  for (int k = 0; k <= 30; ++k) {
    ASSERT_TRUE(by_timeline->next(expected).ok());
    if (k == 0) {
      ASSERT_TRUE(by_hand->run(*play).ok());
    }
    ASSERT_TRUE(by_hand->step(k == 0 ? 0.0f : 1.0f / 30, got).ok());
    if (k == 15) {
      ASSERT_TRUE(by_hand->run(*fade).ok());
      ASSERT_TRUE(by_hand->step(0, got).ok());
    }
    ASSERT_EQ(got.model.size(), expected.model.size());
    float worst = 0;
    for (std::size_t j = 0; j < got.model.size(); ++j) {
      for (int e = 0; e < 16; ++e) {
        worst = std::max(worst, std::abs(got.model[j].m[e] - expected.model[j].m[e]));
      }
    }
    EXPECT_LT(worst, 1e-4f) << "frame " << k;
    EXPECT_NEAR(got.time, expected.time, 1e-5f);
    if (k == 20) {
      EXPECT_EQ(by_hand->animator()->player_count(), 2u);  // in the cross-fade
    }
  }
  EXPECT_EQ(by_hand->animator()->player_count(), 1u);  // the gait, Walk faded out
  EXPECT_TRUE(got.players.empty());                    // step() names no players

  const Result<ScriptCommand> bad = parse_script_command(R"({"play": {"clip": 3}})", "js");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "js: play.clip: must be a string");
  EXPECT_FALSE(by_hand->step(-1, got).ok());
  const Result<ScriptCommand> stop = parse_script_command(R"({"stop": "Jog"})", "js");
  ASSERT_TRUE(stop.ok());
  const Status refused = by_hand->run(*stop);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("no player 'Jog' is playing"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace marrow::test

namespace marrow::test {
namespace {

// `marrow demo` drives its character through an Animator: its keyframe events fire the same
// number of times whatever the frame rate (a large dt passes every event once).
TEST(ControlDemo, TheDemosEventsDoNotDependOnTheFrameRate) {
  const fs::path dir = fs::temp_directory_path() / ("marrow_demo_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string lines[2];
  for (int k = 0; k < 2; ++k) {
    const std::string fps = k == 0 ? "5" : "20";
    const std::string out = (dir / "out.txt").string();
    const std::string command = std::string(MARROW_BIN) + " demo --size 48x48 --fps " + fps +
                                " --out '" + (dir / "demo.gif").string() + "' >'" + out + "'";
    ASSERT_EQ(std::system(command.c_str()), 0);
    std::stringstream text;
    text << std::ifstream(out).rdbuf();
    const std::string s = text.str();
    const auto at = s.find("events fired: ");
    ASSERT_NE(at, std::string::npos) << s;
    lines[k] = s.substr(at, s.find('\n', at) - at);
  }
  EXPECT_EQ(lines[0], lines[1]);
  // The wave plays from 3.0 s to 5.0 s and waves twice a second.
  EXPECT_NE(lines[0].find("4 waves of the hand"), std::string::npos) << lines[0];
  fs::remove_all(dir);
}

// set_morph, fade_morph and release_morph on AnimatedMorphCube, whose clip drives both targets:
// target #1 is set to 0.5, faded to 1 over 1 s from 0.5 s, released over 0.5 s from 1.5 s. The
// expected weights are worked out by hand, the clip's own weights taken from `marrow pose` (the
// exact sampler).
TEST_F(ControlPlay, ScriptsSetFadeAndReleaseMorphWeights) {
  file_ = shared_asset_path("gltf/morph/AnimatedMorphCube.gltf");
  if (!fs::exists(file_)) GTEST_SKIP() << file_ << " is absent";
  const Outcome o = run(R"({"fps": 4, "duration": 2, "compile": false, "timeline": [
      {"t": 0, "play": "Square"},
      {"t": 0, "set_morph": {"target": "#1", "weight": 0.5}},
      {"t": 0.5, "fade_morph": {"target": "#1", "weight": 1, "duration": 1}},
      {"t": 1.5, "release_morph": {"target": "#1", "duration": 0.5}}]})",
                        {"--format", "json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json frames = nlohmann::json::parse(o.out)["frames"];
  ASSERT_EQ(frames.size(), 9u);
  const std::string pose_command = std::string(MARROW_BIN) + " pose '" + file_ +
                                   "' --times 1.75,2 --format json >'" + (dir_ / "pose").string() +
                                   "'";
  ASSERT_EQ(std::system(pose_command.c_str()), 0);
  std::stringstream pose_text;
  pose_text << std::ifstream(dir_ / "pose").rdbuf();
  const nlohmann::json pose = nlohmann::json::parse(pose_text.str());
  const float clip_175 = pose["samples"][0]["weights"][0][1];
  const float clip_200 = pose["samples"][1]["weights"][0][1];
  const float want[] = {
      0.5f, 0.5f, 0.5f, 0.625f, 0.75f, 0.875f, 1.0f, 0.5f * clip_175 + 0.5f * 1.0f, clip_200};
  for (std::size_t k = 0; k < 9; ++k) {
    EXPECT_NEAR(frames[k]["morph_weights"][1].get<float>(), want[k], 1e-5f) << "frame " << k;
  }
  EXPECT_GT(clip_200, 0.05f);  // the release ends on what the clip gives, not on 0
  // Slot 0 is the clip's alone throughout: at 2 s, as the exact sampler gives it.
  EXPECT_NEAR(frames[8]["morph_weights"][0].get<float>(),
              pose["samples"][1]["weights"][0][0].get<float>(), 1e-5f);

  const Outcome unknown = run(R"({"timeline": [{"t": 0, "set_morph": {"target": "smile",
      "weight": 1}}]})");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("timeline[0]"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("no morph target 'smile'"), std::string::npos) << unknown.err;
}

// A rig with a node named like a bone ahead of it (an FBX's mesh node "LeftFoot" beside the
// bone): Soldier converted to .gltf, then a bare node "mixamorig:LeftFoot" put first. Foot
// markers and the clip's tracks must still find the bone, so the events match the plain file's
// (before, the decoy took the foot's track and its markers moved).
TEST_F(ControlPlay, FootMarkersFindTheBoneWhereANodeSharesItsName) {
  const std::string plain = (dir_ / "soldier.gltf").string();
  ASSERT_EQ(
      std::system((std::string(MARROW_BIN) + " convert '" + soldier_ + "' '" + plain + "' --quiet")
                      .c_str()),
      0);
  std::stringstream text;
  text << std::ifstream(plain).rdbuf();
  nlohmann::json doc = nlohmann::json::parse(text.str());
  // Every node reference moves up by one; the decoy becomes node 0, first in the scene.
  for (auto& node : doc["nodes"]) {
    if (node.contains("children"))
      for (auto& child : node["children"]) child = child.get<int>() + 1;
  }
  for (auto& skin : doc["skins"]) {
    for (auto& joint : skin["joints"]) joint = joint.get<int>() + 1;
    if (skin.contains("skeleton")) skin["skeleton"] = skin["skeleton"].get<int>() + 1;
  }
  for (auto& animation : doc["animations"])
    for (auto& channel : animation["channels"])
      channel["target"]["node"] = channel["target"]["node"].get<int>() + 1;
  for (auto& scene : doc["scenes"]) {
    for (auto& node : scene["nodes"]) node = node.get<int>() + 1;
    scene["nodes"].insert(scene["nodes"].begin(), 0);
  }
  doc["nodes"].insert(doc["nodes"].begin(), nlohmann::json{{"name", "mixamorig:LeftFoot"}});
  const std::string decoy = (dir_ / "decoy.gltf").string();
  std::ofstream(decoy) << doc.dump();
  const std::string script = R"({"fps": 30, "duration": 1, "sync_groups": ["markers"],
      "foot_markers": {"left_foot": "mixamorig:LeftFoot", "right_foot": "mixamorig:RightFoot",
                       "left_toe": "mixamorig:LeftToeBase", "right_toe": "mixamorig:RightToeBase",
                       "clips": ["Walk"]},
      "timeline": [{"t": 0, "play": {"clip": "Walk", "sync_group": 0}}]})";
  file_ = plain;
  const Outcome on_plain = run(script, {"--events"});
  file_ = decoy;
  const Outcome on_decoy = run(script, {"--events"});
  ASSERT_EQ(on_plain.exit_code, 0) << on_plain.err;
  ASSERT_EQ(on_decoy.exit_code, 0) << on_decoy.err;
  EXPECT_NE(on_plain.out.find("marker 'foot_left_down'"), std::string::npos) << on_plain.out;
  // The same events, frame for frame (the first line names the file).
  EXPECT_EQ(on_plain.out.substr(on_plain.out.find('\n')),
            on_decoy.out.substr(on_decoy.out.find('\n')));
}

}  // namespace
}  // namespace marrow::test
