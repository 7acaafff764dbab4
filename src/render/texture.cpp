#include "marrow/render/texture.h"

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <new>

// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>
// After jpeglib.h, which it needs.
#include <jerror.h>
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

// The fewest bytes a complete JPEG of w x h pixels in `components` colour components can hold.
// Huffman coding gives every 8x8 block of every component at least one bit, its DC difference's
// code (ITU-T T.81, F.1.2.1 and G.1.2.1). One component is coded at the image's size (A.2.2), so
// w x h / 64 blocks; with more, the components sampled most across and most down cover at least
// a quarter of the image in the other direction each, so w x h / 128 blocks at the least, however
// the sampling factors are set. Decoders fill what a file lacks with grey (a progressive file
// may just omit scans, with no warning), so without this a 222-byte header would be accepted
// as a 4000 x 4000 picture.
std::size_t jpeg_min_coded_bytes(std::size_t w, std::size_t h, int components) {
  const std::size_t blocks = components == 1 ? ((w + 7) / 8) * ((h + 7) / 8) : w * h / 128;
  return (blocks + 7) / 8;
}

// The fewest bytes of image data (IDAT) a complete PNG with this header can hold: deflate codes
// at most 258 bytes with two one-bit codes (RFC 1951, 3.2.5), so it never inflates more than
// 1032:1; the filtered rows hold one filter byte and ceil(width x bits per pixel / 8) bytes each
// (PNG 1.2, 6.1 and 7.2; an interlaced image holds more). `png` starts with a PNG signature and
// an IHDR stb_image accepted (so the sides are within kMaxSide and the depth at most 16).
std::size_t png_min_idat_bytes(std::span<const std::uint8_t> png) {
  if (png.size() < 26) return 0;
  const std::uint8_t* ihdr = &png[16];  // after the signature, the chunk's length and "IHDR"
  auto be32 = [](const std::uint8_t* p) {
    return (std::size_t{p[0]} << 24) | (std::size_t{p[1]} << 16) | (std::size_t{p[2]} << 8) | p[3];
  };
  const std::size_t width = be32(ihdr), height = be32(ihdr + 4), depth = ihdr[8];
  // Colour type 2 is RGB, 4 grey and alpha, 6 RGBA; 0 (grey) and 3 (palette) are one channel.
  const std::uint8_t type = ihdr[9];
  const std::size_t channels = type == 2 ? 3 : type == 4 ? 2 : type == 6 ? 4 : 1;
  return height * (1 + (width * channels * depth + 7) / 8) / 1032;
}

// libjpeg reports errors by longjmp: the manager comes first so libjpeg's pointer to it is a
// pointer to the whole.
struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jpeg_fail(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  errors->manager.format_message(info, errors->message);
  std::longjmp(errors->jump, 1);
}

// A scan that stops short is an error (libjpeg would fill the rest with grey); other warnings,
// such as stray bytes before a marker, which many cameras write, are not.
void jpeg_warn(j_common_ptr info, int level) {
  if (level >= 0) return;  // trace messages
  const int code = info->err->msg_code;
  if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER) jpeg_fail(info);
  ++info->err->num_warnings;
}

// Decodes a JPEG into RGBA rows (`rgba`, the caller's, so its state is defined after a
// longjmp). On failure returns false with the reason in `why`. Nothing with a destructor lives
// in this frame, which libjpeg's longjmp would skip, and nothing may throw past
// jpeg_destroy_decompress.
bool decode_jpeg(std::span<const std::uint8_t> jpeg, std::vector<std::uint8_t>& rgba, int& width,
                 int& height, char (&why)[256]) {
  jpeg_decompress_struct info;
  JpegErrors errors;
  info.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpeg_fail;
  errors.manager.emit_message = jpeg_warn;
  if (setjmp(errors.jump)) {
    std::snprintf(why, sizeof why, "%s", errors.message);
    jpeg_destroy_decompress(&info);
    return false;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  jpeg_read_header(&info, TRUE);
  width = static_cast<int>(std::min<JDIMENSION>(info.image_width, INT32_MAX));
  height = static_cast<int>(std::min<JDIMENSION>(info.image_height, INT32_MAX));
  // The header first: refuse huge or truncated images before anything is allocated for them.
  const std::size_t needed = jpeg_min_coded_bytes(
      static_cast<std::size_t>(width), static_cast<std::size_t>(height), info.num_components);
  if (width < 1 || height < 1 || width > Texture::kMaxSide || height > Texture::kMaxSide) {
    std::snprintf(why, sizeof why, "image size %dx%d is outside 1..%d", width, height,
                  Texture::kMaxSide);
  } else if (jpeg.size() < needed) {
    std::snprintf(why, sizeof why,
                  "truncated: a %dx%d image needs at least %zu bytes of coded data, the file "
                  "has %zu",
                  width, height, needed, jpeg.size());
  }
  if (why[0]) {
    jpeg_destroy_decompress(&info);
    return false;
  }
  // libjpeg-turbo writes RGBA from YCbCr, RGB and grey itself; CMYK and YCCK come out as CMYK,
  // stored inverted as Adobe's encoders write it, converted below.
  const bool cmyk = info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK;
  info.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
  try {
    rgba.resize(static_cast<std::size_t>(width) * height * 4);
  } catch (const std::bad_alloc&) {
    std::snprintf(why, sizeof why, "out of memory for %dx%d pixels", width, height);
    jpeg_destroy_decompress(&info);
    return false;
  }
  jpeg_start_decompress(&info);
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = &rgba[static_cast<std::size_t>(info.output_scanline) * width * 4];
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  if (cmyk) {
    for (std::size_t i = 0; i < rgba.size(); i += 4) {
      const int k = rgba[i + 3];
      for (int c = 0; c < 3; ++c)
        rgba[i + c] = static_cast<std::uint8_t>((rgba[i + c] * k + 127) / 255);
      rgba[i + 3] = 255;
    }
  }
  return true;
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
  if (rgba.size() != static_cast<std::size_t>(std::max(width, 0)) * std::max(height, 0) * 4)
    return Error{"texture data does not match its size"};
  return from_owned_rgba(width, height, {rgba.begin(), rgba.end()}, wrap_u, wrap_v);
}

Result<Texture> Texture::from_owned_rgba(int width, int height, std::vector<std::uint8_t> rgba,
                                         TextureWrap wrap_u, TextureWrap wrap_v) {
  if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide)
    return Error{"texture size " + std::to_string(width) + "x" + std::to_string(height) +
                 " is outside 1.." + std::to_string(kMaxSide)};
  if (rgba.size() != static_cast<std::size_t>(width) * height * 4)
    return Error{"texture data does not match its size"};
  Texture t;
  t.wrap_u_ = wrap_u;
  t.wrap_v_ = wrap_v;
  t.levels_.push_back({width, height, std::move(rgba)});
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
  // Materials are PNG or JPEG, the two image types glTF 2.0 allows. stb_image would read BMP,
  // TGA, PSD, GIF, HDR, PIC and PNM too, some padded with zeros when they stop short (a 26-byte
  // TGA header asked for 7185 x 2457 texels), so the signature decides.
  static constexpr std::uint8_t kPng[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  const bool png = encoded.size() >= 8 && std::equal(kPng, kPng + 8, encoded.begin());
  const bool jpeg =
      encoded.size() >= 3 && encoded[0] == 0xFF && encoded[1] == 0xD8 && encoded[2] == 0xFF;
  if (jpeg) {
    // libjpeg-turbo: Debian 12's stb_image reads Huffman tables a scan names but the file never
    // defined (its memory uninitialized) and asserts on the codes it finds there.
    std::vector<std::uint8_t> rgba;
    int w = 0, h = 0;
    char why[256] = {};
    if (!decode_jpeg(encoded, rgba, w, h, why)) return Error{name + ": " + why};
    Result<Texture> t = from_owned_rgba(w, h, std::move(rgba), wrap_u, wrap_v);
    if (!t) return Error{name + ": " + t.error().message};
    return t;
  }
  if (!png) return Error{name + ": not a PNG or JPEG image (no PNG or JPEG signature)"};
  const int length = static_cast<int>(encoded.size());
  int w = 0, h = 0, channels = 0;
  // The header first: refuse huge or truncated images before stb allocates for them.
  if (!stbi_info_from_memory(encoded.data(), length, &w, &h, &channels)) {
    return Error{name + ": not a PNG image stb_image can read (" +
                 std::string(stbi_failure_reason() ? stbi_failure_reason() : "unknown") + ")"};
  }
  if (w < 1 || h < 1 || w > kMaxSide || h > kMaxSide) {
    return Error{name + ": image size " + std::to_string(w) + "x" + std::to_string(h) +
                 " is outside 1.." + std::to_string(kMaxSide)};
  }
  const std::size_t needed = png_min_idat_bytes(encoded);
  if (encoded.size() < needed) {
    return Error{name + ": truncated: a " + std::to_string(w) + "x" + std::to_string(h) +
                 " image needs at least " + std::to_string(needed) +
                 " bytes of coded data, the file has " + std::to_string(encoded.size())};
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
