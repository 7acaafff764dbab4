// Material images (PNG, JPEG) as `marrow render` decodes them for textured pictures: a glTF's
// embedded or referenced image, an OBJ's map_Kd. Decoded by stb_image (PNG) or libjpeg-turbo
// (JPEG), Debian's, behind Texture::decode's own header checks (signature, size, and enough
// coded data for the size); then mipmapped and sampled.
#include <algorithm>
#include <cmath>

#include "fuzz_target.h"
#include "heap_budget.h"
#include "marrow/render/texture.h"

namespace {

// The budget is each format's own worst case, which Texture::decode's truncation checks make
// a bound: texels and mips hold 16/3 bytes per pixel. A complete PNG inflates at most 1032:1
// (RFC 1951) into rows of channels x depth bits per pixel; a complete JPEG codes at least one
// bit per 8x8 block of each component, the fewest when two components split the sampling
// (4x1 and 1x4: 1/1024 byte per pixel). Anything else is refused before any allocation.
marrow::fuzz::Budget image_budget(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kConstant = std::size_t{64} << 20;
  static constexpr std::uint8_t kPng[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  if (size >= 26 && std::equal(kPng, kPng + 8, data)) {
    const std::size_t depth = data[24], type = data[25];
    const std::size_t channels = type == 2 ? 3 : type == 4 ? 2 : type == 6 ? 4 : 1;
    const std::size_t bits = std::max<std::size_t>(1, channels * depth);
    // 1032 raw bytes per input byte, 32 / bits RGBA bytes per raw byte, 4/3 with the mips.
    return {(1032 * 128 + 3 * bits - 1) / (3 * bits), kConstant};
  }
  // 1024 pixels per input byte, 16/3 bytes per pixel.
  return {(1024 * 16 + 2) / 3, kConstant};
}

}  // namespace

MARROW_FUZZ_TARGET(image) {
  const marrow::fuzz::Budget budget = image_budget(data, size);
  const std::string name = "fuzz.png";
  marrow::Result<marrow::render::Texture> texture = marrow::Error{};
  {
    const marrow::fuzz::HeapWatch watch;
    texture = marrow::render::Texture::decode(marrow::fuzz::bytes_of(data, size), name);
    marrow::fuzz::expect_within_budget(watch, size, budget, "Texture::decode");
  }
  if (!texture) {
    marrow::fuzz::expect_documented_error(texture.error(), name);
    return 0;
  }
  for (float uv : {-0.25f, 0.0f, 0.5f, 0.999f, 3.5f}) {
    for (float lod : {0.0f, 1.5f, 40.0f}) {
      for (float c : texture->sample(uv, 1.0f - uv, lod))
        // Bilinear weights summing to 1 in floats can land a rounding step past 1.
        MARROW_FUZZ_CHECK(std::isfinite(c) && c >= -1e-6f && c <= 1.0f + 1e-5f,
                          "a texel is in [0, 1]");
    }
  }
  return 0;
}
