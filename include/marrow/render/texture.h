/// @file
/// Textures for the software rasterizer: RGBA8 images with a full mip chain (box-filtered), sampled
/// bilinearly within a level and linearly between levels (trilinear), with glTF's wrap modes.
/// Decoding goes through stb_image (PNG) and libjpeg-turbo (JPEG).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/io/material.h"

namespace marrow::render {

class Texture {
 public:
  /// The largest image decoded (either side), so a hostile header cannot ask for gigabytes.
  static constexpr int kMaxSide = 8192;

  /// From RGBA8 pixels, rows top to bottom: texture coordinate (0, 0) is the first pixel's
  /// corner, as glTF has it. Builds the mip chain. `rgba` must hold width * height * 4 bytes.
  static Result<Texture> from_rgba(int width, int height, std::span<const std::uint8_t> rgba,
                                   TextureWrap wrap_u = TextureWrap::kRepeat,
                                   TextureWrap wrap_v = TextureWrap::kRepeat);
  /// An encoded PNG or JPEG; anything else, a side over kMaxSide or a file too short for its
  /// size is an error starting with `name`.
  static Result<Texture> decode(std::span<const std::uint8_t> encoded, const std::string& name,
                                TextureWrap wrap_u = TextureWrap::kRepeat,
                                TextureWrap wrap_v = TextureWrap::kRepeat);

  int width() const { return levels_.front().width; }
  int height() const { return levels_.front().height; }
  int level_count() const { return static_cast<int>(levels_.size()); }
  /// Level l's size and texel (x, y) as RGBA in [0, 1] (coordinates wrapped).
  int level_width(int l) const { return levels_[static_cast<std::size_t>(l)].width; }
  int level_height(int l) const { return levels_[static_cast<std::size_t>(l)].height; }
  std::array<float, 4> texel(int level, int x, int y) const;

  /// Bilinear at (u, v) in level `lod` (0 the full image), trilinear for fractional lod; lod is
  /// clamped to the chain. RGBA in [0, 1].
  std::array<float, 4> sample(float u, float v, float lod) const;

 private:
  struct Level {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba;
  };
  std::array<float, 4> bilinear(const Level& level, float u, float v) const;
  /// from_rgba without the copy, for decoded images (their pixels and the mips are the budget).
  static Result<Texture> from_owned_rgba(int width, int height, std::vector<std::uint8_t> rgba,
                                         TextureWrap wrap_u, TextureWrap wrap_v);
  std::vector<Level> levels_;
  TextureWrap wrap_u_ = TextureWrap::kRepeat, wrap_v_ = TextureWrap::kRepeat;
};

/// sRGB transfer functions (IEC 61966-2-1) for colours in [0, 1].
float srgb_to_linear(float c);
float linear_to_srgb(float c);

}  // namespace marrow::render
