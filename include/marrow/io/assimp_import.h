// FBX, Collada (.dae), MD5 (.md5mesh) and Valve SMD import through assimp (Debian's libassimp).
// See docs/formats_assimp.md for what assimp loses or bends and what this layer corrects.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "marrow/io/asset.h"

namespace marrow {

// Reads `path` with assimp. Every aiNode becomes a joint; errors name the file and carry
// assimp's own message.
Result<Asset> read_assimp(const std::string& path);
// From memory: `name` is used in messages and its extension tells assimp the format.
Result<Asset> read_assimp(std::span<const std::uint8_t> bytes, const std::string& name);

// True for the extensions read_assimp is meant for (.fbx .dae .md5mesh .smd), any case.
bool is_assimp_extension(const std::string& lower_extension);

}  // namespace marrow
