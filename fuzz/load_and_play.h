// The body of an importer's fuzz target: load under the heap budget, accept only a documented
// error, and check and play whatever loads.
#pragma once

#include <string>

#include "asset_checks.h"
#include "fuzz_target.h"
#include "heap_budget.h"
#include "marrow/io/asset.h"

namespace marrow::fuzz {

// `load` returns Result<Asset>; `name` is the file name it was given (errors must start with it).
template <typename Load>
int load_and_play(std::size_t input_size, const std::string& name, const char* what, Load&& load,
                  const Budget& budget = kDefaultLoadBudget) {
  Result<Asset> asset = Error{};
  {
    const HeapWatch watch;
    asset = load();
    expect_within_budget(watch, input_size, budget, what);
  }
  if (!asset) {
    expect_documented_error(asset.error(), name);
    return 0;
  }
  check_and_exercise(*asset, name);
  return 0;
}

}  // namespace marrow::fuzz
