/// @file
/// glTF 2.0 import (.gltf with external or data-URI buffers, and .glb).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "marrow/io/asset.h"

namespace marrow {

Result<Asset> read_gltf(const std::string& path);
/// From memory: `name` is used in messages; external buffers resolve against `base_dir`.
Result<Asset> read_gltf(std::span<const std::uint8_t> bytes, const std::string& name,
                        const std::string& base_dir);

}  // namespace marrow
