/// @file
/// Valve's Studiomdl Data (.smd), read by marrow itself: reference SMDs (nodes, a one-frame
/// skeleton that is the bind pose, triangles with per-vertex bone links) and animation SMDs
/// (nodes and a skeleton of many frames). Conventions and errors: docs/formats_md5_smd.md.
#pragma once

#include <string>
#include <string_view>

#include "marrow/io/asset.h"

namespace marrow {

/// The frame rate of an SMD animation when the caller gives none: studiomdl's default for a
/// $sequence (the rate lives in the .qc file, not in the SMD).
inline constexpr double kSmdDefaultFramesPerSecond = 30.0;

/// Reads an .smd. Every node becomes a joint (file order), resting at the skeleton's first
/// frame; triangles become one SkinnedMesh per material, skinned to every node; a skeleton of
/// several frames (or any skeleton in a file without triangles) becomes one clip named after
/// the file's stem, at options.ticks_per_second frames per second when given, else 30. Errors
/// name the file and the line.
Result<Asset> read_smd(const std::string& path, const LoadOptions& options = {});
/// From memory: `name` is used in messages and names the clip.
Result<Asset> read_smd(std::string_view text, const std::string& name,
                       const LoadOptions& options = {});

}  // namespace marrow
