// Textures checked against values computed from the texture itself: a quad drawn straight on
// shows each texel at the pixel whose centre maps to the texel's centre, bilinear in between;
// minified, a fine checkerboard averages to grey (mip-mapping) instead of aliasing; tilted in
// depth, the texture follows the perspective-correct rule (hand-computed boundary); alpha masks
// cut holes; and glTF materials (embedded and missing images, factors, vertex colours) reach
// the picture through the importer and the scene.
#include <gtest/gtest.h>
#include <stb_image_write.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "marrow/io/asset.h"
#include "marrow/render/rasterizer.h"
#include "marrow/render/scene.h"
#include "marrow/render/texture.h"
#include "shared_asset.h"

using namespace marrow;
using namespace marrow::render;

namespace {

// A texture whose texel (x, y) has red 8x + 3, green 16y + 5, blue 200 - 4x - 8y.
std::vector<std::uint8_t> ramp_rgba(int w, int h) {
  std::vector<std::uint8_t> rgba;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      rgba.insert(rgba.end(),
                  {static_cast<std::uint8_t>(8 * x + 3), static_cast<std::uint8_t>(16 * y + 5),
                   static_cast<std::uint8_t>(200 - 4 * x - 8 * y), 255});
    }
  }
  return rgba;
}

// A full-viewport quad in clip space (the image's corners), w per corner (left, right), with
// texture coordinates (0, 0) at the top-left corner and (1, 1) at the bottom-right, unlit white.
void draw_quad(Rasterizer& r, const Texture& texture, float w_left = 1, float w_right = 1,
               AlphaMode mode = AlphaMode::kOpaque) {
  auto corner = [](float x, float y, float w, float u, float v) {
    return ClipCorner{{x * w, y * w, 0, w}, {1, 1, 1}, 1, u, v};
  };
  const ClipCorner tl = corner(-1, 1, w_left, 0, 0), tr = corner(1, 1, w_right, 1, 0);
  const ClipCorner br = corner(1, -1, w_right, 1, 1), bl = corner(-1, -1, w_left, 0, 1);
  const Surface surface{&texture, mode, 0.5f};
  const ClipCorner a[3] = {tl, tr, br}, b[3] = {tl, br, bl};
  r.draw_clip_triangle(a, surface);
  r.draw_clip_triangle(b, surface);
}

// The test's own bilinear filter over texels with centres at (i + 0.5) / size, clamped at the
// edges (the quad's coordinates stay inside [0, 1]).
float bilinear(const std::vector<std::uint8_t>& rgba, int w, int h, float u, float v, int c) {
  const float x = u * w - 0.5f, y = v * h - 0.5f;
  const int x0 = static_cast<int>(std::floor(x)), y0 = static_cast<int>(std::floor(y));
  const float tx = x - x0, ty = y - y0;
  auto at = [&](int xx, int yy) {
    xx = std::clamp(xx, 0, w - 1);
    yy = std::clamp(yy, 0, h - 1);
    return static_cast<float>(rgba[(static_cast<std::size_t>(yy) * w + xx) * 4 + c]);
  };
  const float top = at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx;
  const float bottom = at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx;
  return top * (1 - ty) + bottom * ty;
}

}  // namespace

TEST(Texture, MipLevelsHalveAndAverage) {
  // 4x2 texels: level 1 is 2x1, each the mean of a 2x2 block; level 2 is 1x1.
  const std::vector<std::uint8_t> rgba = {
      0,  0, 0, 255, 40, 0, 0, 255, 100, 0, 0, 255, 100, 0, 0, 255,
      80, 0, 0, 255, 40, 0, 0, 255, 20,  0, 0, 255, 60,  0, 0, 255,
  };
  Result<Texture> t =
      Texture::from_rgba(4, 2, rgba, TextureWrap::kClampToEdge, TextureWrap::kClampToEdge);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->level_count(), 3);
  EXPECT_EQ(t->level_width(1), 2);
  EXPECT_EQ(t->level_height(1), 1);
  EXPECT_NEAR(t->texel(1, 0, 0)[0] * 255, (0 + 40 + 80 + 40) / 4.0, 0.51);
  EXPECT_NEAR(t->texel(1, 1, 0)[0] * 255, (100 + 100 + 20 + 60) / 4.0, 0.51);
  EXPECT_NEAR(t->texel(2, 0, 0)[0] * 255, (40 + 70) / 2.0, 1.01);
}

TEST(Texture, WrapModesFoldCoordinatesAsGltfSays) {
  const std::vector<std::uint8_t> rgba = {10, 0, 0, 255, 20, 0, 0, 255, 30, 0, 0, 255};
  Result<Texture> repeat = Texture::from_rgba(3, 1, rgba);
  Result<Texture> clamp =
      Texture::from_rgba(3, 1, rgba, TextureWrap::kClampToEdge, TextureWrap::kClampToEdge);
  Result<Texture> mirror =
      Texture::from_rgba(3, 1, rgba, TextureWrap::kMirroredRepeat, TextureWrap::kRepeat);
  ASSERT_TRUE(repeat && clamp && mirror);
  EXPECT_NEAR(repeat->texel(0, 4, 0)[0] * 255, 20, 0.01);   // 4 mod 3 = 1
  EXPECT_NEAR(repeat->texel(0, -1, 0)[0] * 255, 30, 0.01);  // -1 mod 3 = 2
  EXPECT_NEAR(clamp->texel(0, 7, 0)[0] * 255, 30, 0.01);
  EXPECT_NEAR(mirror->texel(0, 3, 0)[0] * 255, 30, 0.01);  // 0 1 2 | 2 1 0
  EXPECT_NEAR(mirror->texel(0, 5, 0)[0] * 255, 10, 0.01);
  EXPECT_NEAR(mirror->texel(0, -1, 0)[0] * 255, 10, 0.01);
}

TEST(Texture, StraightOnQuadShowsEachTexelAtItsCentreAndBilinearBetween) {
  // 8x8 texels on 40x40 pixels: five pixels per texel, so pixel 5i + 2's centre (5i + 2.5) / 40
  // is texel i's centre (i + 0.5) / 8 and must show it exactly.
  const std::vector<std::uint8_t> rgba = ramp_rgba(8, 8);
  Result<Texture> t =
      Texture::from_rgba(8, 8, rgba, TextureWrap::kClampToEdge, TextureWrap::kClampToEdge);
  ASSERT_TRUE(t.ok());
  Rasterizer r(40, 40);
  r.clear({0, 0, 0});
  draw_quad(r, *t);
  for (int j = 0; j < 8; ++j) {
    for (int i = 0; i < 8; ++i) {
      const Rgb p = r.image().at(5 * i + 2, 5 * j + 2);
      const std::uint8_t* texel = &rgba[(static_cast<std::size_t>(j) * 8 + i) * 4];
      EXPECT_NEAR(p.r, texel[0], 1) << i << "," << j;
      EXPECT_NEAR(p.g, texel[1], 1) << i << "," << j;
      EXPECT_NEAR(p.b, texel[2], 1) << i << "," << j;
    }
  }
  // Every pixel: the test's bilinear filter at the pixel centre's coordinates.
  for (int y = 0; y < 40; y += 3) {
    for (int x = 0; x < 40; x += 3) {
      const float u = (x + 0.5f) / 40, v = (y + 0.5f) / 40;
      const Rgb p = r.image().at(x, y);
      EXPECT_NEAR(p.r, bilinear(rgba, 8, 8, u, v, 0), 1.01) << x << "," << y;
      EXPECT_NEAR(p.g, bilinear(rgba, 8, 8, u, v, 1), 1.01) << x << "," << y;
      EXPECT_NEAR(p.b, bilinear(rgba, 8, 8, u, v, 2), 1.01) << x << "," << y;
    }
  }
}

TEST(Texture, MinifiedCheckerboardAveragesToGreyInsteadOfAliasing) {
  // 64x64 one-texel checks on 16x16 pixels: 4 texels per pixel, level 2, where each texel is
  // the mean of a 4x4 block of checks: half black, half white.
  std::vector<std::uint8_t> rgba;
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      const std::uint8_t v = (x + y) % 2 ? 255 : 0;
      rgba.insert(rgba.end(), {v, v, v, 255});
    }
  }
  Result<Texture> t = Texture::from_rgba(64, 64, rgba);
  ASSERT_TRUE(t.ok());
  Rasterizer r(16, 16);
  r.clear({0, 0, 0});
  draw_quad(r, *t);
  for (int y = 0; y < 16; ++y) {
    for (int x = 0; x < 16; ++x) EXPECT_NEAR(r.image().at(x, y).r, 127.5, 2) << x << "," << y;
  }
}

TEST(Texture, TiltedQuadFollowsThePerspectiveCorrectRule) {
  // Left half red, right half blue; the quad's left edge at w = 1, its right edge at w = 3.
  // At screen fraction s across, u = (s / 3) / ((1 - s) + s / 3): u = 1/2 at s = 3/4, not at
  // the middle (affine interpolation would put it at s = 1/2).
  std::vector<std::uint8_t> rgba;
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 64; ++x) {
      rgba.insert(rgba.end(), x < 32 ? std::initializer_list<std::uint8_t>{255, 0, 0, 255}
                                     : std::initializer_list<std::uint8_t>{0, 0, 255, 255});
    }
  }
  Result<Texture> t =
      Texture::from_rgba(64, 4, rgba, TextureWrap::kClampToEdge, TextureWrap::kClampToEdge);
  ASSERT_TRUE(t.ok());
  Rasterizer r(80, 20);
  r.clear({0, 0, 0});
  draw_quad(r, *t, 1, 3);
  // The boundary lies at pixel 0.75 * 80 = 60: red well left of it, blue well right.
  for (int x : {10, 40, 56}) EXPECT_GT(r.image().at(x, 10).r, 200) << x;
  for (int x : {63, 70, 78}) EXPECT_GT(r.image().at(x, 10).b, 200) << x;
  // Exactly: the red fraction at pixel x is the test's bilinear filter at its u. Around the
  // boundary the texture is slightly minified (about 1.07 texels per pixel there), so trilinear
  // filtering blends a little of level 1 in: those three pixels are checked above only.
  for (int x = 0; x < 80; ++x) {
    if (std::abs(x - 60) <= 1) continue;
    const float s = (x + 0.5f) / 80;
    const float u = (s / 3) / ((1 - s) + s / 3);
    EXPECT_NEAR(r.image().at(x, 10).r, bilinear(rgba, 64, 4, u, 0.5f, 0), 3) << x;
  }
}

TEST(Texture, AlphaMaskCutsHolesAtTheCutoff) {
  // Alpha 0 in the left half, 255 in the right: with MASK at 0.5 the left half stays background.
  std::vector<std::uint8_t> rgba;
  for (int x = 0; x < 16; ++x) {
    rgba.insert(rgba.end(), {200, 200, 200, static_cast<std::uint8_t>(x < 8 ? 0 : 255)});
  }
  Result<Texture> t =
      Texture::from_rgba(16, 1, rgba, TextureWrap::kClampToEdge, TextureWrap::kClampToEdge);
  ASSERT_TRUE(t.ok());
  Rasterizer r(32, 8);
  r.clear({10, 20, 30});
  draw_quad(r, *t, 1, 1, AlphaMode::kMask);
  EXPECT_EQ(r.image().at(4, 4), (Rgb{10, 20, 30}));
  EXPECT_EQ(r.depth()[4 * 32 + 4], 1.0f);  // nothing written where masked
  EXPECT_EQ(r.image().at(28, 4), (Rgb{200, 200, 200}));
}

TEST(Texture, UnreadableBytesAreAnErrorNamingTheImage) {
  const std::vector<std::uint8_t> junk = {1, 2, 3, 4, 5};
  Result<Texture> t = Texture::decode(junk, "skin.png");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("skin.png"), std::string::npos) << t.error().message;
}

namespace {

// A greyscale baseline JPEG of `side` x `side` pixels with `coded` bytes of scan data, built by
// hand: one quantization table of ones, Huffman tables each with a single one-bit code (DC
// category 0, AC end-of-block), so a zero byte codes four blocks (DC difference 0, then EOB) and
// every pixel decodes to 128, the level shift of a zero DC (ITU-T T.81, A.3.1). `scan_tables`
// names the scan's DC and AC tables (high and low four bits); only tables 0 are defined.
std::vector<std::uint8_t> flat_grey_jpeg(int side, std::size_t coded,
                                         std::uint8_t scan_tables = 0x00, int components = 1) {
  std::vector<std::uint8_t> out = {0xFF, 0xD8};
  auto segment = [&](std::uint8_t marker, std::vector<std::uint8_t> body) {
    const std::size_t length = body.size() + 2;
    out.insert(out.end(), {0xFF, marker, static_cast<std::uint8_t>(length >> 8),
                           static_cast<std::uint8_t>(length & 255)});
    out.insert(out.end(), body.begin(), body.end());
  };
  std::vector<std::uint8_t> dqt(65, 1);
  dqt[0] = 0;
  segment(0xDB, dqt);
  const auto hi = static_cast<std::uint8_t>(side >> 8), lo = static_cast<std::uint8_t>(side & 255);
  std::vector<std::uint8_t> frame = {8, hi, lo, hi, lo, static_cast<std::uint8_t>(components)};
  std::vector<std::uint8_t> scan = {static_cast<std::uint8_t>(components)};
  for (int c = 1; c <= components; ++c) {
    frame.insert(frame.end(), {static_cast<std::uint8_t>(c), 0x11, 0});  // 1x1, table 0
    scan.insert(scan.end(), {static_cast<std::uint8_t>(c), scan_tables});
  }
  scan.insert(scan.end(), {0, 63, 0});
  segment(0xC0, frame);
  for (std::uint8_t table : {0x00, 0x10}) {
    std::vector<std::uint8_t> dht = {table, 1};
    dht.resize(17, 0);
    dht.push_back(0);  // the one symbol: DC category 0, or AC end-of-block
    segment(0xC4, dht);
  }
  segment(0xDA, scan);
  out.resize(out.size() + coded, 0);
  out.insert(out.end(), {0xFF, 0xD9});
  return out;
}

}  // namespace

TEST(Texture, CompleteHandBuiltJpegDecodesToItsDcLevel) {
  // 64 x 64 pixels: 64 blocks of two bits each, 16 bytes.
  Result<Texture> t = Texture::decode(flat_grey_jpeg(64, 16), "flat.jpg");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->width(), 64);
  EXPECT_NEAR(t->texel(0, 10, 20)[0], 128 / 255.0f, 1e-6f);
  EXPECT_NEAR(t->texel(0, 63, 63)[2], 128 / 255.0f, 1e-6f);
}

TEST(Texture, CmykJpegIsInvertedCmykAsAdobeWritesIt) {
  // Four components, each block at its DC level 128. With no Adobe marker a four-component JPEG
  // is CMYK, stored inverted (Adobe's convention, which libjpeg leaves to the caller): red is
  // C x K / 255 = 128 x 128 / 255 = 64.25, rounded to 64; alpha is opaque. 64 interleaved MCUs
  // of four two-bit blocks: 64 bytes.
  Result<Texture> t = Texture::decode(flat_grey_jpeg(64, 64, 0x00, 4), "cmyk.jpg");
  ASSERT_TRUE(t.ok()) << t.error().message;
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(t->texel(0, 5, 7)[c], 64 / 255.0f, 1e-6f) << c;
  EXPECT_EQ(t->texel(0, 5, 7)[3], 1.0f);
}

TEST(Texture, JpegTooShortForItsBlocksIsRefusedAsTruncated) {
  // Decoders fill a scan that stops short with grey, so a 144-byte header could stand for a
  // 4000 x 4000 picture (the fuzzer's finding, 90 MB of texels). Every block costs at least
  // one bit: 4000 x 4000 pixels are 250,000 blocks, 31,250 bytes.
  Result<Texture> t = Texture::decode(flat_grey_jpeg(4000, 4), "huge.jpg");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("huge.jpg: truncated"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("31250"), std::string::npos) << t.error().message;
}

TEST(Texture, JpegWhoseScanStopsShortIsAnError) {
  // 64 blocks need 16 bytes; with 2 the scan meets the end-of-image marker early. The file is
  // long enough for the size bound, so this is libjpeg-turbo's warning, which decode refuses.
  Result<Texture> t = Texture::decode(flat_grey_jpeg(64, 2), "short.jpg");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("short.jpg: Corrupt JPEG data: premature end of data segment"),
            std::string::npos)
      << t.error().message;
}

TEST(Texture, JpegScanNamingAnUndefinedHuffmanTableGetsTheStandardOne) {
  // AC table 1 is never defined. The fuzzer found Debian 12's stb_image reading such a table's
  // uninitialized memory; libjpeg-turbo uses T.81's example tables instead (as Motion-JPEG files
  // expect), here the chrominance AC table of K.3.3.2, whose end-of-block code is "00". So a
  // block is DC "0" and EOB "00", three bits: 64 blocks in 24 zero bytes, every pixel 128.
  Result<Texture> t = Texture::decode(flat_grey_jpeg(64, 24, 0x01), "tables.jpg");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_NEAR(t->texel(0, 33, 60)[1], 128 / 255.0f, 1e-6f);
  // One byte fewer and the scan stops short.
  EXPECT_FALSE(Texture::decode(flat_grey_jpeg(64, 23, 0x01), "tables.jpg").ok());
}

TEST(Texture, ImagesOtherThanPngAndJpegAreRefusedByTheirSignature) {
  // An 18-byte TGA header for 7185 x 2457 true-colour pixels and no pixels: stb_image reads TGA
  // and pads the missing pixels with zeros (the fuzzer's second finding, 94 MB of texels).
  const std::vector<std::uint8_t> tga = {0, 0, 2, 0,    0,    0,    0,    0,  0,
                                         0, 0, 0, 0x11, 0x1C, 0x99, 0x09, 24, 0};
  Result<Texture> t = Texture::decode(tga, "skin.tga");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("skin.tga: not a PNG or JPEG image"), std::string::npos)
      << t.error().message;
}

TEST(Texture, PngTooShortForItsRowsIsRefusedAsTruncated) {
  // A 4096 x 4096 RGBA header: 4096 rows of 1 + 16384 bytes, which deflate (at most 1032:1)
  // cannot code in fewer than 65,031 bytes.
  std::vector<std::uint8_t> png = {137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H', 'D',
                                   'R', 0,  0,  16, 0,  0,  0,  16, 0, 8, 6, 0,  0,   0};
  const std::uint32_t crc = 0;  // stb_image does not check chunk CRCs
  for (int i = 3; i >= 0; --i) png.push_back(static_cast<std::uint8_t>(crc >> (8 * i)));
  png.insert(png.end(), {0, 0, 0, 2, 'I', 'D', 'A', 'T', 0x78, 0x9C, 0, 0, 0, 0});
  png.insert(png.end(), {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82});
  Result<Texture> t = Texture::decode(png, "huge.png");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("huge.png: truncated"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("65031"), std::string::npos) << t.error().message;
}

namespace {

void append_png(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(context);
  out->insert(out->end(), static_cast<std::uint8_t*>(data),
              static_cast<std::uint8_t*>(data) + size);
}

std::string base64(const std::vector<std::uint8_t>& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t n = (bytes[i] << 16) | (i + 1 < bytes.size() ? bytes[i + 1] << 8 : 0) |
                            (i + 2 < bytes.size() ? bytes[i + 2] : 0);
    out += k[(n >> 18) & 63];
    out += k[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? k[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? k[n & 63] : '=';
  }
  return out;
}

// A glTF quad facing +Z (x, y in [-1, 1]) with UVs (0, 0) at the top-left, material 0 as
// given, and the buffer as a data URI.
std::string quad_gltf(const std::string& material, const std::string& images,
                      const std::string& extra_attributes = "",
                      const std::string& extra_buffer = "", std::size_t extra_bytes = 0) {
  std::vector<std::uint8_t> buffer;
  auto put = [&](float f) {
    std::uint8_t b[4];
    std::memcpy(b, &f, 4);
    buffer.insert(buffer.end(), b, b + 4);
  };
  for (float v : {-1.f, 1.f, 0.f, 1.f, 1.f, 0.f, 1.f, -1.f, 0.f, -1.f, -1.f, 0.f}) put(v);
  for (float v : {0.f, 0.f, 1.f, 0.f, 1.f, 1.f, 0.f, 1.f}) put(v);
  for (std::uint16_t i : {0, 2, 1, 0, 3, 2}) {
    buffer.push_back(static_cast<std::uint8_t>(i));
    buffer.push_back(0);
  }
  for (std::size_t i = 0; i < extra_bytes; ++i)
    buffer.push_back(static_cast<std::uint8_t>(extra_buffer[i]));
  return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
    "nodes": [{"mesh": 0}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1)" +
         extra_attributes + R"(}, "indices": 2, "material": 0}]}],
    "materials": [)" +
         material + R"(], )" + images + R"(
    "buffers": [{"byteLength": )" +
         std::to_string(buffer.size()) + R"(, "uri": "data:application/octet-stream;base64,)" +
         base64(buffer) + R"("}],
    "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                    {"buffer": 0, "byteOffset": 48, "byteLength": 32},
                    {"buffer": 0, "byteOffset": 80, "byteLength": 12})" +
         (extra_bytes ? R"(, {"buffer": 0, "byteOffset": 92, "byteLength": )" +
                            std::to_string(extra_bytes) + "}"
                      : std::string()) +
         R"(],
    "accessors": [
      {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
       "min": [-1, -1, 0], "max": [1, 1, 0]},
      {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
      {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"})" +
         (extra_bytes ? R"(, {"bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC4"})"
                      : std::string()) +
         "]}";
}

struct TextureDir {
  std::filesystem::path dir;
  explicit TextureDir(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / ("marrow_texture_test_" + name)) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~TextureDir() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream((dir / name).string(), std::ios::binary) << text;
    return (dir / name).string();
  }
};

// Draws the asset straight on from +Z, unlit-looking: the quad fills the picture.
Image draw_straight_on(const Asset& asset, std::vector<std::string>* notes = nullptr) {
  SceneStyle style;
  style.background_top = style.background_bottom = {0, 0, 0};
  Result<SceneRenderer> scene = SceneRenderer::create(asset, style);
  EXPECT_TRUE(scene.ok()) << (scene ? "" : scene.error().message);
  if (!scene) return {};
  if (notes) *notes = scene->notes();
  std::vector<Mat4> model(asset.skeleton.size(), Mat4::identity());
  scene->set_pose(model);
  Camera camera;
  camera.vertical_fov = 0.5f;
  camera.aspect = 1;
  // Far enough for the quad (height 2) to fill 80 % of the view.
  const float distance = 1 / std::tan(camera.vertical_fov / 2) / 0.8f;
  camera.view = look_at({0, 0, distance}, {0, 0, 0}, {0, 1, 0});
  Rasterizer r(50, 50);
  scene->draw(r, camera);
  return r.image();
}

}  // namespace

TEST(TexturedAsset, EmbeddedPngTimesFactorReachesThePicture) {
  // An 8x8 PNG in four 4x4 quarters: red, green / blue, white. Factor 1: the middle of the
  // top-left quarter shows red times the lighting; with the factor's red at 0.5 (linear), red
  // drops to sRGB(0.5) = 0.735 of it.
  std::vector<std::uint8_t> texels;
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 8; ++x) {
      const int quarter = (y >= 4) * 2 + (x >= 4);
      const std::uint8_t colours[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
      texels.insert(texels.end(), colours[quarter], colours[quarter] + 3);
    }
  }
  std::vector<std::uint8_t> png;
  ASSERT_TRUE(stbi_write_png_to_func(append_png, &png, 8, 8, 3, texels.data(), 24));
  const std::string images = R"("textures": [{"source": 0, "sampler": 0}],
    "samplers": [{"wrapS": 33071, "wrapT": 33071}],
    "images": [{"mimeType": "image/png", "uri": "data:image/png;base64,)" +
                             base64(png) + R"("}],)";
  TextureDir ws("embedded");
  auto render_with = [&](const std::string& factor) {
    const std::string file = ws.write(
        "quad.gltf", quad_gltf(R"({"pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                                   "baseColorFactor": )" +
                                   factor + "}}",
                               images));
    Result<Asset> asset = load_asset(file);
    EXPECT_TRUE(asset.ok()) << (asset ? "" : asset.error().message);
    if (!asset) return Image{};
    EXPECT_EQ(asset->materials.size(), 1u);
    EXPECT_EQ(asset->images.size(), 1u);
    return draw_straight_on(*asset);
  };
  const Image full = render_with("[1, 1, 1, 1]");
  const Image half = render_with("[0.5, 1, 1, 1]");
  ASSERT_EQ(full.width, 50);
  // The quad spans pixels 5..45; its quarters' centres are at 15 and 35.
  const Rgb red = full.at(15, 15), green = full.at(35, 15), blue = full.at(15, 35),
            white = full.at(35, 35);
  EXPECT_GT(red.r, 100);
  EXPECT_LT(red.g + red.b, 4);
  EXPECT_GT(green.g, 100);
  EXPECT_LT(green.r + green.b, 4);
  EXPECT_GT(blue.b, 100);
  EXPECT_LT(blue.r + blue.g, 4);
  // One lighting term for the whole flat quad: white shows it, red equals it.
  EXPECT_NEAR(red.r, white.r, 1);
  EXPECT_NEAR(white.r, white.g, 1);
  const Rgb half_red = half.at(15, 15);
  EXPECT_NEAR(half_red.r, red.r * 0.7354, 1.5);  // sRGB encoding of linear 0.5
}

TEST(TexturedAsset, MissingTextureFallsBackToTheFactorWithOneNote) {
  TextureDir ws("missing");
  const std::string file = ws.write(
      "quad.gltf",
      quad_gltf(R"({"pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                   "baseColorFactor": [0, 1, 0, 1]}})",
                R"("textures": [{"source": 0}], "images": [{"uri": "no_such_skin.png"}],)"));
  Result<Asset> asset = load_asset(file);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  std::vector<std::string> notes;
  const Image image = draw_straight_on(*asset, &notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("no_such_skin.png"), std::string::npos) << notes[0];
  const Rgb centre = image.at(25, 25);
  EXPECT_GT(centre.g, 100);
  EXPECT_EQ(centre.r, 0);
  EXPECT_EQ(centre.b, 0);
}

TEST(TexturedAsset, VertexColoursMultiplyTheFactor) {
  // COLOR_0: red at the top corners, blue at the bottom ones; the factor halves nothing.
  std::string colors;
  for (const float c :
       {1.f, 0.f, 0.f, 1.f, 1.f, 0.f, 0.f, 1.f, 0.f, 0.f, 1.f, 1.f, 0.f, 0.f, 1.f, 1.f}) {
    char b[4];
    std::memcpy(b, &c, 4);
    colors.append(b, 4);
  }
  TextureDir ws("colors");
  const std::string file = ws.write(
      "quad.gltf", quad_gltf(R"({"pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1]}})", "",
                             R"(, "COLOR_0": 3)", colors, colors.size()));
  Result<Asset> asset = load_asset(file);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  ASSERT_EQ(asset->meshes[0].colors.size(), 4u);
  const Image image = draw_straight_on(*asset);
  const Rgb top = image.at(25, 7), bottom = image.at(25, 43);
  EXPECT_GT(top.r, 100);
  EXPECT_LT(top.b, 40);
  EXPECT_GT(bottom.b, 100);
  EXPECT_LT(bottom.r, 40);
}

TEST(TexturedAsset, XMaterialsAndTextureFileNamesAreRead) {
  // test.x: one Material, face colour 0.8 grey (a display value: linear 0.6038), texture
  // ".\\test.png", which is not beside it: one note, the material's colour.
  const std::string path = marrow::test::shared_asset_path("x/test.x");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent";
  Result<Asset> asset = load_asset(path);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  ASSERT_EQ(asset->materials.size(), 1u);
  const Material& m = asset->materials[0];
  EXPECT_NEAR(m.base_color_factor[0], 0.6038f, 1e-3f);
  EXPECT_EQ(m.base_color_factor[3], 1.0f);
  ASSERT_EQ(m.base_color.image, 0);
  ASSERT_EQ(asset->images.size(), 1u);
  EXPECT_EQ(std::filesystem::path(asset->images[0].path).filename(), "test.png");
  EXPECT_EQ(asset->images[0].path.find('\\'), std::string::npos);
  for (const SkinnedMesh& mesh : asset->meshes) EXPECT_EQ(mesh.material, 0);
  Result<SceneRenderer> scene = SceneRenderer::create(*asset, {});
  ASSERT_TRUE(scene.ok());
  ASSERT_EQ(scene->notes().size(), 1u);
  EXPECT_NE(scene->notes()[0].find("test.png"), std::string::npos) << scene->notes()[0];
}

TEST(TexturedAsset, ObjMtlDiffuseAndMapKdAreRead) {
  // A quad with a material library beside it: Kd and map_Kd (an 8x8 PNG written here).
  TextureDir ws("obj");
  std::vector<std::uint8_t> texels(8 * 8 * 3, 0);
  for (std::size_t i = 0; i < texels.size(); i += 3) texels[i + 2] = 255;  // blue
  std::vector<std::uint8_t> png;
  ASSERT_TRUE(stbi_write_png_to_func(append_png, &png, 8, 8, 3, texels.data(), 24));
  ws.write("blue.png", std::string(png.begin(), png.end()));
  ws.write("quad.mtl", "newmtl paint\nKd 1 0.5 1\nmap_Kd blue.png\n");
  const std::string obj = ws.write("quad.obj",
                                   "mtllib quad.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\n"
                                   "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl paint\n"
                                   "f 1/1 2/2 3/3\nf 1/1 3/3 4/4\n");
  Result<Asset> asset = load_asset(obj);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  ASSERT_EQ(asset->materials.size(), 1u);
  EXPECT_EQ(asset->materials[0].name, "paint");
  EXPECT_FLOAT_EQ(asset->materials[0].base_color_factor[1], 0.5f);
  ASSERT_EQ(asset->materials[0].base_color.image, 0);
  EXPECT_EQ(asset->meshes[0].material, 0);
  std::vector<std::string> notes;
  const Image image = draw_straight_on(*asset, &notes);
  EXPECT_TRUE(notes.empty());
  // Blue texel x factor (1, 0.5, 1): blue, no red or green.
  const Rgb centre = image.at(25, 25);
  EXPECT_GT(centre.b, 100);
  EXPECT_EQ(centre.r, 0);
  EXPECT_EQ(centre.g, 0);
}
