/// @file
/// Measuring automatic weights against an artist's: strip a rigged mesh's weights, recompute
/// them, and compare the weights and the animated meshes (docs/autoskin.md).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/skin/autoskin.h"

namespace marrow::autoskin {

struct Evaluation {
  std::size_t vertices = 0;
  std::size_t bones = 0;  ///< skin joints
  /// (a) Weights: mean over vertices of sum_j |w_auto - w_artist| (0 = identical, 2 = disjoint);
  /// precision and recall of the influences above 1e-4 (auto versus artist).
  double mean_l1 = 0;
  double precision = 0, recall = 0;
  /// (b) Deformation: distance between the auto-skinned and the artist-skinned vertex (linear
  /// blend skinning, same palette), over every frame of every clip sampled at `frame_rate`,
  /// relative to the diagonal of the artist mesh's bounding box in the rest pose.
  std::size_t clips = 0, frames = 0;
  double mean_distance = 0, max_distance = 0;  ///< relative; 0 when there is no clip
  double diagonal = 0;                         ///< the diagonal used (model units)
  /// (c) Seconds spent computing the weights (welding included).
  double seconds = 0;
  std::vector<std::string> notes;  ///< the method's notes
};

/// `meshes` are the meshes bound to `skin` (their influences index skin.joints).
Result<Evaluation> evaluate(const Skeleton& skeleton, std::span<const Clip> clips, const Skin& skin,
                            std::span<const SkinnedMesh> meshes, const Options& options,
                            float frame_rate = 30.0f);

}  // namespace marrow::autoskin
