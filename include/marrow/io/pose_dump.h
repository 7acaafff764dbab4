/// @file
/// Global node transforms of a clip at given times, as `marrow pose` prints them.
#pragma once

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"

namespace marrow {

struct PoseSamples {
  std::vector<float> times;
  /// world[s][j]: model matrix of joint j at times[s], joints in skeleton order.
  std::vector<std::vector<Mat4>> world;
  /// weights[s]: the morph-target weights at times[s], one per slot of the asset's MorphLayout
  /// (skin/morph.h); empty vectors when the asset has no morph targets.
  std::vector<std::vector<float>> weights;
  /// Set when the poses come from a compiled clip (clip/compiled_clip.h) instead of the exact one:
  /// its bound and the virtual vertices' distance (model units), the largest virtual-vertex error
  /// at `times` measured against the exact clip, where the compiled clip came from ("stored in
  /// the archive") and the bound in words.
  struct Compiled {
    float bound = 0;
    float distance = 0;
    float max_error = 0;
    std::string origin;
    std::string description;
  };
  std::optional<Compiled> compiled;
};

/// Samples clip `clip_index` (or the rest pose when the asset has no clips and index is -1) at
/// each time after wrapping it with `wrap`.
PoseSamples sample_world(const Asset& asset, int clip_index, std::span<const float> times,
                         WrapMode wrap = WrapMode::kClamp);

/// {"file", "clip", "clip_index", "duration", "nodes": [{"index", "name", "joint"}],
///  "samples": [{"t", "world": [[16 floats, column-major] per node]}]}, nodes in source order.
/// With morph targets, also "morphs": [{"node": source index, "name", "targets": [names]}] (one
/// per node whose meshes have targets) and per sample "weights": [[one per target] per morph].
/// From a compiled clip, also "compiled": {"error_bound", "distance", "max_error", "origin"}.
void write_pose_json(std::ostream& out, const Asset& asset, int clip_index,
                     const PoseSamples& samples);
/// A readable table: per sample, per node, position, rotation (quaternion) and scale; from a
/// compiled clip, a line with its bound and measured error first.
void write_pose_text(std::ostream& out, const Asset& asset, int clip_index,
                     const PoseSamples& samples);

/// Joints in the order of their source nodes (what `marrow pose` lists).
std::vector<JointIndex> joints_in_source_order(const Asset& asset);

}  // namespace marrow
