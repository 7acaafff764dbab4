/// @file
/// Wavefront OBJ import (static meshes, through tinyobjloader): one SkinnedMesh per object/group
/// with positions, normals, UVs and triangulated indices, no skin, under a single root joint named
/// after the file. Errors name the file and the line. See docs/formats.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "marrow/io/asset.h"

namespace marrow {

Result<Asset> read_obj(const std::string& path);
/// From memory: `name` is used in messages and for the root joint; material libraries are not
/// read.
Result<Asset> read_obj(std::span<const std::uint8_t> bytes, const std::string& name);

}  // namespace marrow
