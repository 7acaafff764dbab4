// What every fuzz target does with an Asset an importer accepted: check the invariants an
// application relies on (every index in range, counts that agree, finite numbers), then use it
// the way an application does: sample every clip at several times with and without a cursor,
// blend, local-to-model, build each skinned mesh and skin it with both methods, and round-trip
// it through marrow's archive. A broken invariant aborts with a message (a finding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "marrow/io/asset.h"

namespace marrow::fuzz {

// Aborts with a message naming `where` and the first broken invariant.
void check_asset(const Asset& asset, const std::string& where);

// Plays the asset (see above). Work is bounded: at most a few clips, times and meshes.
void exercise_asset(const Asset& asset, const std::string& where);

// check_asset, then exercise_asset.
void check_and_exercise(const Asset& asset, const std::string& where);

}  // namespace marrow::fuzz
