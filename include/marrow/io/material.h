// What a surface looks like, as importers read it: glTF's metallic-roughness base colour (factor
// and texture), its alpha modes, and the images textures come from. Only what marrow draws is
// kept; the rest of a material (metal, roughness, normal maps) is dropped by the importers.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace marrow {

// An image a texture samples, kept encoded (PNG or JPEG) as the file holds it: decoding is the
// renderer's business. Either `bytes` holds it (embedded in the file) or `path` names a file.
struct MaterialImage {
  std::string name;                 // as the source calls it (for messages)
  std::string path;                 // a file beside the source, resolved; empty when embedded
  std::vector<std::uint8_t> bytes;  // the encoded image when embedded
  std::string mime_type;            // "image/png", "image/jpeg" or "" when unknown
};

// How texture coordinates outside [0, 1] wrap (glTF sampler wrapS / wrapT).
enum class TextureWrap { kRepeat, kClampToEdge, kMirroredRepeat };

// glTF's alpha modes: opaque ignores alpha; mask draws where alpha >= cutoff; blend mixes.
enum class AlphaMode { kOpaque, kMask, kBlend };

struct Material {
  std::string name;
  // Linear RGBA multiplied with the texture and the vertex colour.
  std::array<float, 4> base_color_factor{1, 1, 1, 1};
  int base_color_texture = -1;  // index into Asset::images; -1 for none
  TextureWrap wrap_u = TextureWrap::kRepeat;
  TextureWrap wrap_v = TextureWrap::kRepeat;
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  float alpha_cutoff = 0.5f;
  bool double_sided = false;
};

}  // namespace marrow
