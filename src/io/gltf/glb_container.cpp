#include "glb_container.h"

#include <algorithm>
#include <cstring>

#include "gltf_error.h"

namespace marrow::gltf {
namespace {

constexpr std::uint32_t kMagic = 0x46546C67;      // "glTF"
constexpr std::uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr std::uint32_t kChunkBin = 0x004E4942;   // "BIN\0"

std::uint32_t read_u32(std::span<const std::uint8_t> bytes, std::size_t offset) {
  const std::uint8_t* p = bytes.data() + offset;
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}

std::string at(const std::string& name, std::size_t offset) {
  return name + ": byte " + std::to_string(offset);
}

}  // namespace

bool has_glb_magic(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= 4 && read_u32(bytes, 0) == kMagic;
}

GlbChunks split_glb(std::span<const std::uint8_t> bytes, const std::string& name) {
  const std::size_t magic_bytes = std::min<std::size_t>(bytes.size(), 4);
  if (!std::equal(bytes.begin(), bytes.begin() + magic_bytes, "glTF")) {
    fail(at(name, 0), "wrong magic, not a binary glTF file");
  }
  if (bytes.size() < 12)
    fail(at(name, 0), "truncated GLB header (" + std::to_string(bytes.size()) + " bytes)");
  const std::uint32_t version = read_u32(bytes, 4);
  if (version != 2)
    fail(at(name, 4), "GLB version " + std::to_string(version) + ", only 2 is supported");
  const std::uint32_t length = read_u32(bytes, 8);
  if (length > bytes.size()) {
    fail(at(name, 8), "header says " + std::to_string(length) + " bytes but the file has " +
                          std::to_string(bytes.size()) + " (truncated?)");
  }
  if (length < 12) fail(at(name, 8), "header length " + std::to_string(length) + " is too small");

  GlbChunks chunks;
  std::size_t offset = 12;
  bool first = true;
  while (offset < length) {
    if (length - offset < 8) fail(at(name, offset), "truncated chunk header");
    const std::uint32_t chunk_length = read_u32(bytes, offset);
    const std::uint32_t chunk_type = read_u32(bytes, offset + 4);
    if (chunk_length > length - offset - 8) {
      fail(at(name, offset), "chunk of " + std::to_string(chunk_length) +
                                 " bytes runs past the end of the file (truncated?)");
    }
    const auto data = bytes.subspan(offset + 8, chunk_length);
    if (first) {
      if (chunk_type != kChunkJson) fail(at(name, offset + 4), "first chunk is not JSON");
      chunks.json = data;
      first = false;
    } else if (chunk_type == kChunkBin && !chunks.has_bin) {
      chunks.bin = data;
      chunks.has_bin = true;
    }  // Unknown chunk types are skipped, as the spec asks.
    offset += 8 + std::size_t(chunk_length);
    offset = (offset + 3) & ~std::size_t(3);  // chunks are 4-byte aligned
  }
  if (first) fail(at(name, 12), "no JSON chunk");
  return chunks;
}

}  // namespace marrow::gltf
