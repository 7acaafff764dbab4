#include "marrow/render/texture.h"

#include <algorithm>
#include <cmath>

#include <stb_image.h>

namespace marrow::render {
namespace {

// Texel index along one axis for wrap mode `wrap`.
int wrap_index(int i, int size, TextureWrap wrap) {
  switch (wrap) {
    case TextureWrap::kClampToEdge:
      return std::clamp(i, 0, size - 1);
    case TextureWrap::kMirroredRepeat: {
      const int period = 2 * size;
      int m = i % period;
      if (m < 0) m += period;
      return m < size ? m : period - 1 - m;
    }
    case TextureWrap::kRepeat:
    default: {
      const int m = i % size;
      return m < 0 ? m + size : m;
    }
  }
}

// A coordinate far outside [0, 1] (or not finite) folded to a range where float keeps texel
// precision and the int conversion is defined; wrapping is periodic, so nothing changes.
float fold(float u) {
  if (!std::isfinite(u)) return 0;
  if (u > 1e4f || u < -1e4f) return u - std::floor(u);
  return u;
}

}  // namespace

float srgb_to_linear(float c) {
  return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

float linear_to_srgb(float c) {
  c = std::clamp(c, 0.0f, 1.0f);
  return c <= 0.0031308f ? c * 12.92f : 1.055f * std::pow(c, 1 / 2.4f) - 0.055f;
}

Result<Texture> Texture::from_rgba(int width, int height, std::span<const std::uint8_t> rgba,
                                   TextureWrap wrap_u, TextureWrap wrap_v) {
  if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide)
    return Error{"texture size " + std::to_string(width) + "x" + std::to_string(height) +
                 " is outside 1.." + std::to_string(kMaxSide)};
  if (rgba.size() != static_cast<std::size_t>(width) * height * 4)
    return Error{"texture data does not match its size"};
  Texture t;
  t.wrap_u_ = wrap_u;
  t.wrap_v_ = wrap_v;
  t.levels_.push_back({width, height, {rgba.begin(), rgba.end()}});
  // Each level halves the previous one (odd sides round down, at least 1), each texel the mean
  // of the 2x2 (or fewer, at an odd edge) texels it covers.
  while (t.levels_.back().width > 1 || t.levels_.back().height > 1) {
    const Level& src = t.levels_.back();
    Level dst{std::max(1, src.width / 2), std::max(1, src.height / 2), {}};
    dst.rgba.resize(static_cast<std::size_t>(dst.width) * dst.height * 4);
    for (int y = 0; y < dst.height; ++y) {
      for (int x = 0; x < dst.width; ++x) {
        const int x0 = std::min(2 * x, src.width - 1), x1 = std::min(2 * x + 1, src.width - 1);
        const int y0 = std::min(2 * y, src.height - 1), y1 = std::min(2 * y + 1, src.height - 1);
        for (int c = 0; c < 4; ++c) {
          auto at = [&](int xx, int yy) {
            return src.rgba[(static_cast<std::size_t>(yy) * src.width + xx) * 4 + c];
          };
          const int sum = at(x0, y0) + at(x1, y0) + at(x0, y1) + at(x1, y1);
          dst.rgba[(static_cast<std::size_t>(y) * dst.width + x) * 4 + c] =
              static_cast<std::uint8_t>((sum + 2) / 4);
        }
      }
    }
    t.levels_.push_back(std::move(dst));
  }
  return t;
}

Result<Texture> Texture::decode(std::span<const std::uint8_t> encoded, const std::string& name,
                                TextureWrap wrap_u, TextureWrap wrap_v) {
  if (encoded.empty()) return Error{name + ": empty image"};
  if (encoded.size() > static_cast<std::size_t>(INT32_MAX)) return Error{name + ": too large"};
  const int length = static_cast<int>(encoded.size());
  int w = 0, h = 0, channels = 0;
  // The header first: refuse huge images before stb allocates for them.
  if (!stbi_info_from_memory(encoded.data(), length, &w, &h, &channels)) {
    return Error{name + ": not a PNG or JPEG image stb_image can read (" +
                 std::string(stbi_failure_reason() ? stbi_failure_reason() : "unknown") + ")"};
  }
  if (w < 1 || h < 1 || w > kMaxSide || h > kMaxSide) {
    return Error{name + ": image size " + std::to_string(w) + "x" + std::to_string(h) +
                 " is outside 1.." + std::to_string(kMaxSide)};
  }
  unsigned char* pixels = stbi_load_from_memory(encoded.data(), length, &w, &h, &channels, 4);
  if (!pixels) {
    return Error{name + ": cannot decode the image (" +
                 std::string(stbi_failure_reason() ? stbi_failure_reason() : "unknown") + ")"};
  }
  Result<Texture> t =
      from_rgba(w, h, std::span<const std::uint8_t>(pixels, static_cast<std::size_t>(w) * h * 4),
                wrap_u, wrap_v);
  stbi_image_free(pixels);
  if (!t) return Error{name + ": " + t.error().message};
  return t;
}

std::array<float, 4> Texture::texel(int level, int x, int y) const {
  const Level& l = levels_[static_cast<std::size_t>(std::clamp(level, 0, level_count() - 1))];
  x = wrap_index(x, l.width, wrap_u_);
  y = wrap_index(y, l.height, wrap_v_);
  const std::uint8_t* p = &l.rgba[(static_cast<std::size_t>(y) * l.width + x) * 4];
  constexpr float k = 1.0f / 255.0f;
  return {p[0] * k, p[1] * k, p[2] * k, p[3] * k};
}

std::array<float, 4> Texture::bilinear(const Level& level, float u, float v) const {
  // Texel centres sit at (i + 0.5) / size. The four neighbours' wrapped indices are computed
  // once, then read straight from the level.
  const float x = fold(u) * level.width - 0.5f, y = fold(v) * level.height - 0.5f;
  const float fx = std::floor(x), fy = std::floor(y);
  const int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
  const float tx = x - fx, ty = y - fy;
  // Inside the image (the common case) no wrapping is needed, and no integer division.
  const bool inside_x = x0 >= 0 && x0 + 1 < level.width;
  const bool inside_y = y0 >= 0 && y0 + 1 < level.height;
  const auto ax = static_cast<std::size_t>(inside_x ? x0 : wrap_index(x0, level.width, wrap_u_));
  const auto bx =
      static_cast<std::size_t>(inside_x ? x0 + 1 : wrap_index(x0 + 1, level.width, wrap_u_));
  const std::size_t row0 =
      static_cast<std::size_t>(inside_y ? y0 : wrap_index(y0, level.height, wrap_v_)) * level.width;
  const std::size_t row1 =
      static_cast<std::size_t>(inside_y ? y0 + 1 : wrap_index(y0 + 1, level.height, wrap_v_)) *
      level.width;
  const std::uint8_t* a = &level.rgba[(row0 + ax) * 4];
  const std::uint8_t* b = &level.rgba[(row0 + bx) * 4];
  const std::uint8_t* c = &level.rgba[(row1 + ax) * 4];
  const std::uint8_t* d = &level.rgba[(row1 + bx) * 4];
  constexpr float k = 1.0f / 255.0f;
  const float wa = (1 - tx) * (1 - ty) * k, wb = tx * (1 - ty) * k, wc = (1 - tx) * ty * k,
              wd = tx * ty * k;
  std::array<float, 4> out;
  for (int i = 0; i < 4; ++i) out[i] = a[i] * wa + b[i] * wb + c[i] * wc + d[i] * wd;
  return out;
}

std::array<float, 4> Texture::sample(float u, float v, float lod) const {
  if (!(lod > 0)) return bilinear(levels_.front(), u, v);  // magnified, or NaN
  const float top = static_cast<float>(level_count() - 1);
  if (lod >= top) return bilinear(levels_.back(), u, v);
  const int l = static_cast<int>(lod);
  const float t = lod - l;
  const auto a = bilinear(levels_[static_cast<std::size_t>(l)], u, v);
  if (t == 0) return a;
  const auto b = bilinear(levels_[static_cast<std::size_t>(l) + 1], u, v);
  return {a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t,
          a[3] + (b[3] - a[3]) * t};
}

}  // namespace marrow::render
