// The binary glTF container: a 12-byte header, a JSON chunk and an optional BIN chunk.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace marrow::gltf {

struct GlbChunks {
  std::span<const std::uint8_t> json;
  std::span<const std::uint8_t> bin;  // empty when the file has none
  bool has_bin = false;               // whether there was a BIN chunk at all
};

bool has_glb_magic(std::span<const std::uint8_t> bytes);
// Splits a .glb; throws GltfError naming `name` and the byte offset on any inconsistency (a file
// shorter than the header whose bytes match the magic so far is reported as truncated).
GlbChunks split_glb(std::span<const std::uint8_t> bytes, const std::string& name);

}  // namespace marrow::gltf
