// The controller's state machines (the "state_machine" member of a script, or its own file):
// parsed under the heap budget, then, when it parses, bound to the script character's clips and
// run for up to kMaxScriptFrames frames with no timeline, so its own transitions (exit times,
// markers, parameter defaults) drive it.
#include <string_view>

#include "fuzz_target.h"
#include "heap_budget.h"
#include "marrow/io/animation_script.h"
#include "script_character.h"

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
  marrow::AnimationScript script;
  script.where = where;
  script.duration = 4;
  script.state_machine = std::move(desc).value();
  return marrow::fuzz::run_script(script, where);
}
