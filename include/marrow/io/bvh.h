/// @file
/// BVH (Biovision Hierarchy) import: a skeleton from HIERARCHY, one clip from MOTION.
/// The conventions (End Site joints, position channels replacing OFFSET, Euler order, errors)
/// are described in docs/formats_bvh.md.
#pragma once

#include <string>
#include <string_view>

#include "marrow/io/asset.h"

namespace marrow {

/// Reads a .bvh file. The clip is named after the file's stem ("motion" when it has none).
Result<Asset> read_bvh(const std::string& path);
/// From memory: `name` is used in messages ("name:line: ...") and gives the clip its name.
Result<Asset> read_bvh(std::string_view text, const std::string& name);

}  // namespace marrow
