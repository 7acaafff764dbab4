/// @file
/// What a surface looks like, as importers read it and writers keep it: glTF's metallic-roughness
/// material (factors and textures), its alpha modes, and the images textures come from, kept as
/// the source encoded them. The renderer draws the base colour; the rest travels through
/// conversions untouched.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"

namespace marrow {

/// An image a texture samples, kept encoded (PNG or JPEG) as the file holds it: decoding is the
/// renderer's business. Either `bytes` holds it (embedded in the file) or `path` names a file.
struct MaterialImage {
  std::string name;                 ///< as the source calls it (for messages)
  std::string path;                 ///< a file beside the source, resolved; empty when embedded
  std::vector<std::uint8_t> bytes;  ///< the encoded image when embedded
  std::string mime_type;            ///< "image/png", "image/jpeg" or "" when unknown
};

/// How texture coordinates outside [0, 1] wrap (glTF sampler wrapS / wrapT).
enum class TextureWrap { kRepeat, kClampToEdge, kMirroredRepeat };

/// glTF's alpha modes: opaque ignores alpha; mask draws where alpha >= cutoff; blend mixes.
enum class AlphaMode { kOpaque, kMask, kBlend };

/// KHR_texture_transform: texture coordinates are scaled, then rotated (radians, counter-clockwise
/// in UV space), then offset.
struct TextureTransform {
  std::array<float, 2> offset{0, 0};
  float rotation = 0;
  std::array<float, 2> scale{1, 1};

  friend bool operator==(const TextureTransform&, const TextureTransform&) = default;
};

/// One texture of a material: an image, how it is sampled and which coordinates it reads.
struct TextureRef {
  int image = -1;              ///< index into Asset::images; -1 for none
  std::uint32_t texcoord = 0;  ///< TEXCOORD_n it reads (marrow's meshes carry set 0)
  TextureWrap wrap_u = TextureWrap::kRepeat;
  TextureWrap wrap_v = TextureWrap::kRepeat;
  int mag_filter = 0;  ///< glTF sampler magFilter / minFilter codes; 0 when unspecified
  int min_filter = 0;
  std::optional<TextureTransform> transform;

  bool present() const { return image >= 0; }
  friend bool operator==(const TextureRef&, const TextureRef&) = default;
};

/// glTF 2.0's metallic-roughness material, which every reader maps its format's material into
/// (docs/formats.md, "Materials"). Formats without metal and roughness (.X, OBJ, Collada's
/// phong, MD5, SMD) give a non-metal, fully rough surface, the defaults here; glTF's reader
/// applies glTF's own defaults (metallic 1, roughness 1) where its file says nothing.
struct Material {
  std::string name;
  /// Linear RGBA multiplied with the base-colour texture and the vertex colour.
  std::array<float, 4> base_color_factor{1, 1, 1, 1};
  TextureRef base_color;
  float metallic_factor = 0;
  float roughness_factor = 1;
  TextureRef metallic_roughness;  ///< blue: metal, green: roughness
  TextureRef normal;
  float normal_scale = 1;
  TextureRef occlusion;  ///< red channel
  float occlusion_strength = 1;
  TextureRef emissive;
  std::array<float, 3> emissive_factor{0, 0, 0};
  float emissive_strength = 1;  ///< KHR_materials_emissive_strength
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  float alpha_cutoff = 0.5f;
  bool double_sided = false;
  bool unlit = false;  ///< KHR_materials_unlit

  friend bool operator==(const Material&, const Material&) = default;
};

/// The encoded bytes of an image: embedded, or read from its file (at most 256 MiB). Errors name
/// the file.
Result<std::vector<std::uint8_t>> image_bytes(const MaterialImage& image);

/// "image/png" or "image/jpeg" by the bytes' signature (the two encodings glTF holds), or "" for
/// anything else.
std::string image_mime_type(std::span<const std::uint8_t> bytes);

}  // namespace marrow
