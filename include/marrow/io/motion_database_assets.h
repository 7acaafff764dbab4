/// @file
/// A motion-matching database made from loaded files, as `marrow match`, animation scripts'
/// "motion_matching" and Python's marrow.MotionDatabase make it: the clips of every asset (or those
/// named) on the first asset's skeleton, the locomotion schema (control/motion_database.h) on a
/// root joint and two ankles, each clip's first seconds optionally left out of the search, and
/// optionally every clip mirrored, its sides found by the humanoid match in a pose the character
/// stands in (as `marrow retarget` picks one).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/control/motion_database.h"
#include "marrow/io/asset.h"

namespace marrow {

struct MotionDatabaseRecipe {
  std::string root, left_foot, right_foot;
  std::vector<std::string> clips{};  ///< the clips to use, by name; empty: every clip
  /// Clips that play but are never searched, by name (a state machine's actions): in the
  /// database whole, every frame excluded.
  std::vector<std::string> actions{};
  float exclude_start = 0;      ///< seconds at each clip's start kept out of the search
  float trajectory_weight = 4;  ///< the trajectory features' weight
  float sample_rate = 60;       ///< database frames per second
  bool mirror = false;          ///< also every clip mirrored left to right
};

/// Errors: no asset, an asset without clips, a clip or action named that no asset has (listing
/// them), the humanoid match's (mirroring), MotionDatabase::build's.
Result<std::shared_ptr<const MotionDatabase>> build_motion_database(
    std::span<const Asset* const> assets, const MotionDatabaseRecipe& recipe);

}  // namespace marrow
