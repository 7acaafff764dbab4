// Motion matching in animation scripts ("motion_matching", "stick", "waypoints"): the members
// read with their units, errors naming the JSON place, and a script on CMU motion capture whose
// character follows its stick and walks through its waypoints (docs/motion_matching.md,
// "In scripts").
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

#include "marrow/io/animation_script.h"
#include "marrow/io/motion_database_archive.h"
#include "marrow/io/motion_database_assets.h"
#include "marrow/io/script_runner.h"
#include "motion_fixtures.h"
#include "shared_asset.h"

namespace marrow::test {
namespace {

namespace fs = std::filesystem;
constexpr float kPi = std::numbers::pi_v<float>;
using marrow::test::walker_clip;
using marrow::test::walker_skeleton;

std::string motion_error_of(std::string_view json) {
  Result<AnimationScript> s = parse_animation_script(json, "s.json", "/scripts");
  return s.ok() ? std::string() : s.error().message;
}

TEST(ControlScript, MotionMatchingMembersAndSteeringAreRead) {
  Result<AnimationScript> s = parse_animation_script(R"({"fps": 20,
      "motion_matching": {"root": "Hips", "left_foot": "L", "right_foot": "R",
                          "files": ["walk.bvh"], "clips": ["Walk"], "exclude_start": 0.05,
                          "trajectory_weight": 2, "mirror": true, "search_interval": 0.2,
                          "foot_locking": true},
      "timeline": [{"t": 0, "stick": {"speed": 130, "direction": 90}},
                   {"t": 1, "stick": {"speed": 50, "direction": 180, "facing": -90}},
                   {"t": 2, "waypoints": {"points": [[1, 0, 2], [3, 0, 4]], "speed": 100}},
                   {"t": 3, "waypoints": {"points": [[0, 0, 0]], "speed": 0, "radius": 5}}]})",
                                                     "s.json", "/scripts");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE(s->motion_matching);
  const ScriptMotionMatching& mm = *s->motion_matching;
  EXPECT_EQ(mm.recipe.root, "Hips");
  EXPECT_EQ(mm.recipe.clips, std::vector<std::string>{"Walk"});
  EXPECT_EQ(mm.files, std::vector<std::string>{"/scripts/walk.bvh"});  // beside the script
  EXPECT_FLOAT_EQ(mm.recipe.exclude_start, 0.05f);
  EXPECT_FLOAT_EQ(mm.recipe.trajectory_weight, 2);
  EXPECT_TRUE(mm.recipe.mirror);
  EXPECT_FLOAT_EQ(mm.search_interval, 0.2f);
  EXPECT_TRUE(mm.foot_locking);
  ASSERT_EQ(s->timeline.size(), 4u);
  // Degrees become radians; the facing follows the direction unless given.
  EXPECT_EQ(s->timeline[0].kind, ScriptCommandKind::kStick);
  EXPECT_FLOAT_EQ(s->timeline[0].value, 130);
  EXPECT_FLOAT_EQ(s->timeline[0].x, kPi / 2);
  EXPECT_FLOAT_EQ(s->timeline[0].y, kPi / 2);
  EXPECT_FLOAT_EQ(s->timeline[1].x, kPi);
  EXPECT_FLOAT_EQ(s->timeline[1].y, -kPi / 2);
  // A waypoint's radius: half a second at the speed, unless given.
  EXPECT_EQ(s->timeline[2].kind, ScriptCommandKind::kWaypoints);
  ASSERT_EQ(s->timeline[2].points.size(), 2u);
  EXPECT_FLOAT_EQ(s->timeline[2].points[1].z, 4);
  EXPECT_FLOAT_EQ(s->timeline[2].duration, 50);
  EXPECT_FLOAT_EQ(s->timeline[3].duration, 5);

  Result<AnimationScript> saved = parse_animation_script(
      R"({"motion_matching": {"database": "db/walks.marrow"}})", "s.json", "/scripts");
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  EXPECT_EQ(saved->motion_matching->database, "/scripts/db/walks.marrow");
}

TEST(ControlScript, MotionMatchingErrorsNameThePlace) {
  const std::string feet = R"("root": "H", "left_foot": "L", "right_foot": "R")";
  EXPECT_EQ(motion_error_of(R"({"timeline": [{"t": 0, "stick": {"speed": 1}}]})"),
            "s.json: timeline[0]: steers a motion matcher: it needs the script's "
            "\"motion_matching\"");
  EXPECT_EQ(motion_error_of(
                R"({"motion_matching": {)" + feet +
                R"(}, "timeline": [{"t": 0, "stick": {"speed": 1}}, {"t": 1, "play": "Walk"}]})"),
            "s.json: timeline[1]: a motion-matching script is steered by \"stick\" and "
            "\"waypoints\" (and its state machine's parameters)");
  EXPECT_EQ(motion_error_of(R"({"layers": [{"name": "a"}], "motion_matching": {)" + feet + "}}"),
            "s.json: layers: does not go with \"motion_matching\" (the matcher plays the clips)");
  EXPECT_EQ(motion_error_of(R"({"motion_matching": {"database": "d.marrow", )" + feet + "}}"),
            "s.json: motion_matching.root: builds a database; a saved \"database\" has its own");
  EXPECT_EQ(motion_error_of(R"({"motion_matching": {"left_foot": "L", "right_foot": "R"}})"),
            "s.json: motion_matching: needs \"root\"");
  EXPECT_EQ(
      motion_error_of(R"({"motion_matching": {)" + feet +
                      R"(}, "timeline": [{"t": 0, "waypoints": {"points": [], "speed": 1}}]})"),
      "s.json: timeline[0].waypoints.points: must list at least one point");
  EXPECT_EQ(motion_error_of(
                R"({"motion_matching": {)" + feet +
                R"(}, "timeline": [{"t": 0, "waypoints": {"points": [[0, 0, 1]], "speed": 0}}]})"),
            "s.json: timeline[0].waypoints: needs a \"radius\" > 0 (or a speed > 0, whose half "
            "second it is)");
  EXPECT_EQ(motion_error_of(R"({"motion_matching": {)" + feet +
                            R"(}, "timeline": [{"t": 0, "stick": {"speed": -1}}]})"),
            "s.json: timeline[0].stick.speed: must be a number >= 0");
  EXPECT_EQ(motion_error_of(R"({"motion_matching": {)" + feet + R"(, "fast": true}})")
                .rfind("s.json: motion_matching.fast: unknown member", 0),
            0u);
  Result<AnimationScript> inline_files = parse_animation_script(
      R"({"motion_matching": {"files": ["a.bvh"], )" + feet + "}}", "s.json");
  ASSERT_FALSE(inline_files.ok());
  EXPECT_EQ(inline_files.error().message,
            "s.json: motion_matching.files[0]: a relative file name needs the script to be a file");
  EXPECT_TRUE(parse_animation_script(
                  R"({"motion_matching": {"files": ["/takes/a.bvh"], )" + feet + "}}", "s.json")
                  .ok());  // an absolute one is fine
}

// The clips' events reach a motion-matching script's frames as an Animator script's do: the
// walker's forward walk has a "step" every tenth of a second, and walking forward plays it (the
// matcher may jump about inside the walk, whose frames all look alike, but every 0.1 s it plays
// crosses a step).
TEST(ControlScriptRun, AMotionMatchingScriptReportsTheClipsEvents) {
  Asset asset;
  asset.source = "walker";
  asset.skeleton = walker_skeleton();
  std::vector<float> steps_at;
  for (int k = 1; k < 30; ++k) steps_at.push_back(0.1f * static_cast<float>(k) - 0.05f);
  asset.clips.push_back(walker_clip("ahead", 3, {0, 0, 0}, {0, 0, 3}, 0, 0, steps_at));
  asset.clips.push_back(walker_clip("spin", 3, {0, 0, 0}, {0, 0, 0}, 0, 1));
  Result<AnimationScript> script = parse_animation_script(R"({"fps": 30, "duration": 3,
      "motion_matching": {"root": "hips", "left_foot": "left", "right_foot": "right"},
      "timeline": [{"t": 0, "stick": {"speed": 1, "direction": 0}}]})",
                                                          "steps.json");
  ASSERT_TRUE(script.ok()) << script.error().message;
  Result<ScriptRunner> runner = ScriptRunner::create(asset, *script);
  ASSERT_TRUE(runner.ok()) << runner.error().message;
  ScriptFrame frame;
  int steps = 0;
  for (int k = 0; k < runner->frame_count(); ++k) {
    ASSERT_TRUE(runner->next(frame).ok());
    EXPECT_EQ(frame.update.events_written, frame.events.size());
    for (const AnimationEvent& e : frame.events) {
      if (e.type != EventType::kClipEvent) continue;
      EXPECT_EQ(e.name, "step");
      EXPECT_EQ(runner->name_of(e.player), "ahead");  // only the walk has steps
      EXPECT_GE(e.time, 0);                           // inside the frame's update
      EXPECT_LE(e.time, 1.0f / 30 + 1e-5f);
      ++steps;
    }
  }
  // 3 s of walking at one step per 0.1 s of clip time played: about 30 (fewer where a switch
  // jumps back over one).
  EXPECT_GE(steps, 15);
}

// Five CMU takes on Character Creator's rig: walks, a jog, and dribbling with 90-degree turns.
const char* const kTakes[] = {"002_01", "002_03", "007_02", "006_10", "006_11"};

std::string cmu(const std::string& take) {
  return shared_asset_path("bvh/cmu_iclone/") + take + ".bvh";
}

std::string cmu_script(const std::string& timeline, const std::string& source) {
  return R"({"fps": 30, "duration": 17, "motion_matching": {)" + source +
         R"(, "foot_locking": true}, "timeline": )" + timeline + "}";
}

std::string build_from_takes() {
  std::string files;
  for (const char* take : kTakes)
    files += std::string(files.empty() ? "" : ", ") + '"' + cmu(take) + '"';
  return R"("files": [)" + files +
         R"(], "root": "CC_Base_Hip", "left_foot": "CC_Base_L_Foot", "right_foot": "CC_Base_R_Foot",
            "exclude_start": 0.05)";
}

struct ScriptedRun {
  std::vector<ScriptFrame::Matching> frames;
  std::vector<Transform> composed;  // the root motion composed from frame 0
};

ScriptedRun run_script(const Asset& asset, const std::string& json) {
  ScriptedRun out;
  Result<AnimationScript> script = parse_animation_script(json, "mm.json", "/");
  EXPECT_TRUE(script.ok()) << script.error().message;
  if (!script) return out;
  Result<ScriptRunner> runner = ScriptRunner::create(asset, *script);
  EXPECT_TRUE(runner.ok()) << runner.error().message;
  if (!runner) return out;
  ScriptFrame frame;
  Transform world{};
  for (int k = 0; k < runner->frame_count(); ++k) {
    const Status s = runner->next(frame);
    EXPECT_TRUE(s.ok()) << s.error().message;
    if (!s || !frame.matching) return out;
    const Transform d = frame.update.root_motion;
    world = {world.translation + rotate(world.rotation, d.translation),
             normalize(world.rotation * d.rotation),
             {1, 1, 1}};
    out.frames.push_back(*frame.matching);
    out.composed.push_back(world);
  }
  return out;
}

float facing_degrees_off(float yaw, float wanted) {
  float d = std::fmod(std::abs(yaw - wanted), 2 * kPi);
  if (d > kPi) d = 2 * kPi - d;
  return d * 180 / kPi;
}

TEST(ControlScriptRun, AMotionMatchingScriptFollowsItsStickAndWalksThroughItsWaypoints) {
  for (const char* take : kTakes)
    if (!fs::exists(cmu(take))) GTEST_SKIP() << cmu(take) << " is absent";
  Result<Asset> asset = load_asset(cmu("007_01"));
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  // 3 s straight ahead (+Z, the takes' ground forward), 3 s toward +X (90 degrees), then through
  // three waypoints (cm) at a walk, stopping at the last.
  const std::string timeline = R"([{"t": 0, "stick": {"speed": 130, "direction": 0}},
      {"t": 3, "stick": {"speed": 130, "direction": 90}},
      {"t": 6, "waypoints": {"points": [[700, 0, 700], [400, 0, 1000], [400, 0, 1300]],
                             "speed": 130, "radius": 60}}])";
  const ScriptedRun run = run_script(*asset, cmu_script(timeline, build_from_takes()));
  ASSERT_EQ(run.frames.size(), 17u * 30 + 1);
  const auto at = [&](float t) { return run.frames[static_cast<std::size_t>(t * 30)]; };
  // The root motion, composed frame by frame, is where the character stands.
  for (std::size_t f = 0; f < run.frames.size(); f += 30)
    EXPECT_LT(length(run.composed[f].translation - run.frames[f].world.translation), 0.1f) << f;
  // Walking ahead: faces +Z within 20 degrees once it has turned there, and covers at least 2/3
  // of the 3.9 m asked for; after the quarter turn, faces +X and has moved that way.
  EXPECT_LT(facing_degrees_off(at(2.9f).yaw, 0), 20) << at(2.9f).yaw;
  EXPECT_GT(at(3).world.translation.z, 260);
  EXPECT_LT(facing_degrees_off(at(5.9f).yaw, kPi / 2), 20) << at(5.9f).yaw;
  EXPECT_GT(at(6).world.translation.x - at(3).world.translation.x, 200);
  // Each waypoint reached, in order: the character comes within 1.5 radii of it.
  const Vec3 points[] = {{700, 0, 700}, {400, 0, 1000}, {400, 0, 1300}};
  std::size_t next = 0;
  for (std::size_t f = 6 * 30; f < run.frames.size() && next < 3; ++f) {
    const Vec3 d = run.frames[f].world.translation - points[next];
    if (std::hypot(d.x, d.z) < 90) ++next;
  }
  EXPECT_EQ(next, 3u) << "reached " << next << " of the 3 waypoints";
  // And stands near the last one at the end, having searched and switched along the way.
  const Vec3 end = run.frames.back().world.translation - points[2];
  EXPECT_LT(std::hypot(end.x, end.z), 150);
  int searches = 0, switches = 0;
  for (const ScriptFrame::Matching& m : run.frames) searches += m.searched, switches += m.switched;
  EXPECT_GT(searches, 100);  // every 0.1 s
  EXPECT_GT(switches, 10);

  // The same database saved and named by the script plays the same course.
  const fs::path dir =
      fs::temp_directory_path() / ("marrow_mm_script_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<Asset> takes;
  std::vector<const Asset*> assets = {&*asset};
  for (const char* take : kTakes) takes.push_back(load_asset(cmu(take)).value());
  for (const Asset& t : takes) assets.push_back(&t);
  MotionDatabaseRecipe recipe{"CC_Base_Hip", "CC_Base_L_Foot", "CC_Base_R_Foot"};
  recipe.exclude_start = 0.05f;
  Result<std::shared_ptr<const MotionDatabase>> db = build_motion_database(assets, recipe);
  ASSERT_TRUE(db.ok()) << db.error().message;
  const std::string saved = (dir / "cmu.marrow").string();
  ASSERT_TRUE(write_motion_database(**db, saved).ok());
  const ScriptedRun again =
      run_script(*asset, cmu_script(timeline, R"("database": ")" + saved + "\""));
  ASSERT_EQ(again.frames.size(), run.frames.size());
  std::size_t same_frames = 0;
  for (std::size_t f = 0; f < run.frames.size(); ++f)
    same_frames += again.frames[f].database_frame == run.frames[f].database_frame;
  EXPECT_GT(same_frames, run.frames.size() * 9 / 10);  // rotations may differ in their last bit
  EXPECT_LT(length(again.frames.back().world.translation - run.frames.back().world.translation),
            20);

  // A saved database of another skeleton than the file's is named.
  Result<Asset> soldier = load_asset(shared_asset_path("gltf/Soldier.glb"));
  if (soldier) {
    Result<AnimationScript> script = parse_animation_script(
        cmu_script(timeline, R"("database": ")" + saved + "\""), "mm.json", "/");
    ASSERT_TRUE(script.ok());
    Result<ScriptRunner> runner = ScriptRunner::create(*soldier, *script);
    ASSERT_FALSE(runner.ok());
    EXPECT_NE(runner.error().message.find("mm.json: motion_matching.database: " + saved +
                                          " was built on 142 joints that are not"),
              std::string::npos)
        << runner.error().message;
  }
  fs::remove_all(dir);
}

// Locomotion by matching, actions by states: the jump (CMU 002_04, "jump, balance") is in the
// database whole but never searched; a trigger leaves the matching state for it, and it returns
// to matching as the jump ends.
TEST(ControlScriptRun, AStateMachineHandsLocomotionToTheMatcherAndActionsToItsStates) {
  for (const char* take : {"007_01", "002_01", "006_10", "006_11", "002_04"})
    if (!fs::exists(cmu(take))) GTEST_SKIP() << cmu(take) << " is absent";
  Result<Asset> asset = load_asset(cmu("007_01"));
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const std::string json = R"({"fps": 30, "duration": 10,
      "motion_matching": {"files": [")" +
                           cmu("002_01") + R"(", ")" + cmu("006_10") + R"(", ")" + cmu("006_11") +
                           R"(", ")" + cmu("002_04") + R"("],
        "actions": ["002_04"], "root": "CC_Base_Hip", "left_foot": "CC_Base_L_Foot",
        "right_foot": "CC_Base_R_Foot", "exclude_start": 0.05},
      "state_machine": {"parameters": [{"name": "jump", "type": "trigger"}],
        "states": [{"name": "move", "motion_matching": true},
                   {"name": "jump", "clip": "002_04", "wrap": "clamp"}],
        "transitions": [{"from": "move", "to": "jump", "when": [{"parameter": "jump",
                           "op": "triggered"}], "kind": "inertialize", "duration": 0.2},
                        {"from": "jump", "to": "move", "on_finish": true, "kind": "inertialize",
                         "duration": 0.3}]},
      "timeline": [{"t": 0, "stick": {"speed": 130, "direction": 0}},
                   {"t": 2, "trigger": "jump"},
                   {"t": 2, "stick": {"speed": 130, "direction": 90}}]})";
  Result<AnimationScript> script = parse_animation_script(json, "jump.json", "/");
  ASSERT_TRUE(script.ok()) << script.error().message;
  Result<ScriptRunner> runner = ScriptRunner::create(*asset, *script);
  ASSERT_TRUE(runner.ok()) << runner.error().message;
  ScriptFrame frame;
  std::vector<std::string> states;
  std::string clip_in_jump;
  int searches_in_jump = 0;
  Vec3 jump_start{}, jump_end{};
  for (int k = 0; k < runner->frame_count(); ++k) {
    ASSERT_TRUE(runner->next(frame).ok());
    if (states.empty() || states.back() != frame.state) states.push_back(frame.state);
    if (frame.state == "jump") {
      if (clip_in_jump.empty()) jump_start = frame.matching->world.translation;
      clip_in_jump = frame.players.back().motion;
      searches_in_jump += frame.matching->searched;
      jump_end = frame.matching->world.translation;
    }
  }
  EXPECT_EQ(states, (std::vector<std::string>{"move", "jump", "move"}));
  EXPECT_EQ(clip_in_jump, "002_04");
  EXPECT_EQ(searches_in_jump, 0);  // the action plays; the matcher waits
  // The jump is on the spot; afterwards the stick's +X is followed by matching.
  EXPECT_LT(std::hypot(jump_end.x - jump_start.x, jump_end.z - jump_start.z), 60);
  EXPECT_GT(frame.matching->world.translation.x - jump_end.x, 200);
  EXPECT_LT(facing_degrees_off(frame.matching->yaw, kPi / 2), 25);

  // A matching state entered by a fade is refused, naming the place.
  std::string faded = json;
  faded.replace(faded.rfind(R"("kind": "inertialize")"), 21, R"("kind": "fade")");
  script = parse_animation_script(faded, "jump.json", "/");
  ASSERT_TRUE(script.ok()) << script.error().message;
  runner = ScriptRunner::create(*asset, *script);
  ASSERT_FALSE(runner.ok());
  EXPECT_EQ(runner.error().message,
            "jump.json: state_machine.transitions[1].kind: a motion-matching state is entered by "
            "inertialization");
}

}  // namespace
}  // namespace marrow::test
