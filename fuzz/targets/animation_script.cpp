// The controller's animation scripts (`marrow play`, `marrow render --script`): the JSON parsed
// under the heap budget, then, when it parses, run on a small humanoid (script_character.h)
// for up to kMaxScriptFrames frames, as `marrow play` runs it. A state machine given inline is
// parsed and run with it. Errors must name the script.
#include <string_view>

#include "fuzz_target.h"
#include "heap_budget.h"
#include "marrow/io/animation_script.h"
#include "marrow/io/script_runner.h"
#include "script_character.h"

MARROW_FUZZ_TARGET(animation_script) {
  const std::string where = "fuzz.json";
  marrow::Result<marrow::AnimationScript> script = marrow::Error{};
  {
    const marrow::fuzz::HeapWatch watch;
    script = marrow::parse_animation_script(
        std::string_view(reinterpret_cast<const char*>(data), size), where);
    marrow::fuzz::expect_within_budget(watch, size, marrow::fuzz::kDefaultLoadBudget,
                                       "parse_animation_script");
  }
  if (!script) {
    marrow::fuzz::expect_documented_error(script.error(), where);
    return 0;
  }
  return marrow::fuzz::run_script(*script, where);
}
