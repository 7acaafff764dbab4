/// @file
/// DirectX .X import: text ('txt '), binary ('bin ') and MSZIP-compressed ('tzip', 'bzip') files.
/// Every Frame becomes a joint, every Mesh a SkinnedMesh (skinned when it has SkinWeights), every
/// AnimationSet a Clip. The conventions (row-vector matrices, the conjugated key quaternions,
/// ticks per second, errors) are described in docs/formats_x.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "marrow/io/asset.h"

namespace marrow {

/// Reads a .x file. Errors name the file and the line (text) or byte offset (binary). Of
/// `options`, only ticks_per_second is used: the rate of sets when the file has no
/// AnimTicksPerSecond.
Result<Asset> read_x(const std::string& path, const LoadOptions& options = {});
/// From memory: `name` is used in messages ("name:line: ...").
Result<Asset> read_x(std::span<const std::uint8_t> bytes, const std::string& name,
                     const LoadOptions& options = {});

/// The DirectX default when a file has no AnimTicksPerSecond.
inline constexpr double kXDefaultTicksPerSecond = 4800.0;

}  // namespace marrow
