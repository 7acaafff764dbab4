// Material images (PNG, JPEG) as `marrow render` decodes them for textured pictures: a glTF's
// embedded or referenced image, an OBJ's map_Kd. Decoded by stb_image (Debian's libstb) behind
// Texture::decode's own header check; then mipmapped and sampled. The budget is larger than a
// model's: PNG's deflate and JPEG's entropy coding reach about a thousand decoded bytes per
// encoded byte, and the mip chain adds a third.
#include <cmath>

#include "fuzz_target.h"
#include "heap_budget.h"
#include "marrow/render/texture.h"

MARROW_FUZZ_TARGET(image) {
  constexpr marrow::fuzz::Budget kImageBudget{4096, std::size_t{64} << 20};
  const std::string name = "fuzz.png";
  marrow::Result<marrow::render::Texture> texture = marrow::Error{};
  {
    const marrow::fuzz::HeapWatch watch;
    texture = marrow::render::Texture::decode(marrow::fuzz::bytes_of(data, size), name);
    marrow::fuzz::expect_within_budget(watch, size, kImageBudget, "Texture::decode");
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
