// The binary glTF container: a 12-byte header, a JSON chunk and an optional BIN chunk.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace marrow::gltf {

struct GlbChunks {
  std::span<const std::uint8_t> json;
  std::span<const std::uint8_t> bin;  // empty when the file has none
};

bool has_glb_magic(std::span<const std::uint8_t> bytes);
// Splits a .glb; throws GltfError naming `name` and the byte offset on any inconsistency.
GlbChunks split_glb(std::span<const std::uint8_t> bytes, const std::string& name);

}  // namespace marrow::gltf
