// The controller's state machines (the "state_machine" member of a script, or its own file):
// parsed under the heap budget, then, when it parses, put on a fixed stage — the script
// character's clips with sync markers on Walk and Run and two blend spaces, "locomotion" (1D) and
// "strafe" (2D), all of which a machine may name — and run for up to kMaxScriptFrames frames with
// no timeline, so its own transitions (on initial parameter values, at markers) drive it.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz_target.h"
#include "heap_budget.h"
#include "marrow/io/animation_script.h"
#include "script_character.h"

namespace {

constexpr std::string_view kStage = R"({
  "fps": 30, "duration": 4, "sync_groups": ["markers", "phase"],
  "markers": {"Walk": [{"time": 0.1, "name": "left_down"}, {"time": 0.6, "name": "right_down"}],
              "Run": [{"time": 0.05, "name": "left_down"}, {"time": 0.35, "name": "right_down"}]},
  "events": {"Walk": [{"time": 0.5, "name": "step"}]},
  "blend_spaces": [
    {"name": "locomotion", "dimensions": 1,
     "samples": [{"clip": "Idle", "x": 0, "sync": false}, {"clip": "Walk", "x": 1},
                 {"clip": "Run", "x": 2}]},
    {"name": "strafe", "dimensions": 2,
     "samples": [{"clip": "Idle", "x": 0, "y": 0, "sync": false}, {"clip": "Walk", "x": 0, "y": 1},
                 {"clip": "Run", "x": 1, "y": 2}, {"clip": "TPose", "x": -1, "y": 1, "sync": false}]}]
})";

const marrow::AnimationScript& stage() {
  static const marrow::AnimationScript script = [] {
    marrow::Result<marrow::AnimationScript> parsed =
        marrow::parse_animation_script(kStage, "fuzz_stage.json");
    if (!parsed) {
      std::fprintf(stderr, "fuzz: the state machine's stage does not parse: %s\n",
                   parsed.error().message.c_str());
      std::abort();
    }
    return std::move(parsed).value();
  }();
  return script;
}

}  // namespace

MARROW_FUZZ_TARGET(state_machine) {
  const std::string where = "fuzz.json";
  marrow::Result<marrow::StateMachineDesc> desc = marrow::Error{};
  {
    const marrow::fuzz::HeapWatch watch;
    desc = marrow::parse_state_machine(std::string_view(reinterpret_cast<const char*>(data), size),
                                       where);
    marrow::fuzz::expect_within_budget(watch, size, marrow::fuzz::kDefaultLoadBudget,
                                       "parse_state_machine");
  }
  if (!desc) {
    marrow::fuzz::expect_documented_error(desc.error(), where);
    return 0;
  }
  marrow::AnimationScript script = stage();
  script.where = where;
  script.state_machine = std::move(desc).value();
  return marrow::fuzz::run_script(script, where);
}
