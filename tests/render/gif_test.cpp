// The GIF encoder checked by the test's own decoder (gif_decoder.h) and by stb_image's: LZW
// round trips at every code size and across table resets, exact colours for images with few
// colours, close colours for a full gradient, frame rectangles, delays and looping.
#include <gtest/gtest.h>

#include <stb_image.h>
#include <random>

#include "gif_decoder.h"
#include "marrow/render/gif.h"

using namespace marrow::render;

namespace {

std::vector<std::uint8_t> encode(const std::vector<Image>& frames, double fps) {
  GifEncoder encoder(frames[0].width, frames[0].height);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    encoder.add_frame(frames[i], gif_frame_delay(static_cast<int>(i), fps));
  }
  encoder.finish();
  return encoder.take_bytes();
}

Image stripes(int w, int h, int phase) {
  Image image(w, h);
  const Rgb colors[4] = {{255, 0, 0}, {0, 200, 0}, {10, 20, 250}, {250, 250, 250}};
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const Rgb c = colors[((x + phase) / 3 + y / 5) % 4];
      std::uint8_t* p = &image.rgb[(static_cast<std::size_t>(y) * w + x) * 3];
      p[0] = c.r;
      p[1] = c.g;
      p[2] = c.b;
    }
  }
  return image;
}

}  // namespace

TEST(GifLzw, RoundTripsAtEveryCodeSize) {
  std::mt19937 rng(7);
  for (int min_code_size = 2; min_code_size <= 8; ++min_code_size) {
    for (std::size_t n : {1u, 2u, 3u, 100u, 5000u, 20000u}) {
      std::vector<std::uint8_t> indices(n);
      // Random data fills the table quickly (many clear codes); runs exercise long strings.
      for (std::size_t i = 0; i < n; ++i) {
        indices[i] = static_cast<std::uint8_t>(i % 7 < 3 ? rng() % (1u << min_code_size) : 1);
      }
      const std::vector<std::uint8_t> data = lzw_compress(indices, min_code_size);
      std::vector<std::uint8_t> decoded;
      std::string error;
      ASSERT_TRUE(gif_test::lzw_decode(data, min_code_size, n, decoded, error))
          << "code size " << min_code_size << ", " << n << " indices: " << error;
      EXPECT_EQ(decoded, indices) << "code size " << min_code_size << ", " << n;
    }
  }
}

TEST(GifLzw, CompressesRepetition) {
  const std::vector<std::uint8_t> flat(100000, 3);
  // A run of n identical indices needs about sqrt(2n) codes of at most 12 bits.
  EXPECT_LT(lzw_compress(flat, 8).size(), 1000u);
}

TEST(GifQuantize, FewColoursStayExact) {
  const Image image = stripes(37, 23, 0);
  const IndexedImage q = quantize(image.rgb);
  ASSERT_LE(q.palette.size(), 256u);
  for (std::size_t i = 0; i < q.indices.size(); ++i) {
    const Rgb c = q.palette[q.indices[i]];
    ASSERT_EQ(c, (Rgb{image.rgb[i * 3], image.rgb[i * 3 + 1], image.rgb[i * 3 + 2]})) << i;
  }
}

TEST(GifQuantize, GradientStaysClose) {
  // 64 x 64 with 4096 distinct colours: median cut to 256 must stay within a few levels.
  Image image(64, 64);
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      std::uint8_t* p = &image.rgb[(y * 64 + x) * 3];
      p[0] = static_cast<std::uint8_t>(x * 4);
      p[1] = static_cast<std::uint8_t>(y * 4);
      p[2] = static_cast<std::uint8_t>(128);
    }
  }
  const IndexedImage q = quantize(image.rgb);
  EXPECT_LE(q.palette.size(), 256u);
  double error = 0;
  int worst = 0;
  for (std::size_t i = 0; i < q.indices.size(); ++i) {
    const Rgb c = q.palette[q.indices[i]];
    const int d = std::abs(c.r - image.rgb[i * 3]) + std::abs(c.g - image.rgb[i * 3 + 1]) +
                  std::abs(c.b - image.rgb[i * 3 + 2]);
    error += d;
    worst = std::max(worst, d);
  }
  EXPECT_LT(error / q.indices.size(), 12.0);  // 256 boxes over a 256 x 256 square: ~16 wide
  EXPECT_LT(worst, 40);
}

TEST(GifEncoder, DecodesToTheFramesWithDelaysAndLooping) {
  std::vector<Image> frames;
  for (int f = 0; f < 7; ++f) frames.push_back(stripes(41, 29, f * 2));
  frames.push_back(frames.back());  // an unchanged frame still counts, for its delay
  const std::vector<std::uint8_t> bytes = encode(frames, 30);
  const gif_test::DecodedGif gif = gif_test::decode_gif(bytes);
  ASSERT_EQ(gif.error, "");
  EXPECT_EQ(gif.width, 41);
  EXPECT_EQ(gif.height, 29);
  EXPECT_EQ(gif.loop_count, 0);  // forever
  ASSERT_EQ(gif.frames.size(), frames.size());
  for (std::size_t f = 0; f < frames.size(); ++f) {
    EXPECT_EQ(gif.frames[f], frames[f].rgb) << "frame " << f;  // 4 colours: exact
  }
  // 30 fps: 8 frames last 8/30 s = 26.67 hundredths, as 3, 4, 3, 3, 4, 3, 3, 4 = 27.
  const std::vector<int> expected = {3, 4, 3, 3, 4, 3, 3, 4};
  EXPECT_EQ(gif.delays, expected);

  // stb_image, a second decoder, agrees on count, size and pixels.
  int *delays = nullptr, w = 0, h = 0, count = 0, comp = 0;
  unsigned char* pixels = stbi_load_gif_from_memory(bytes.data(), static_cast<int>(bytes.size()),
                                                    &delays, &w, &h, &count, &comp, 3);
  ASSERT_NE(pixels, nullptr) << stbi_failure_reason();
  EXPECT_EQ(w, 41);
  EXPECT_EQ(h, 29);
  ASSERT_EQ(count, 8);
  for (int f = 0; f < count; ++f) {
    const std::vector<std::uint8_t> frame(pixels + static_cast<std::size_t>(f) * w * h * 3,
                                          pixels + static_cast<std::size_t>(f + 1) * w * h * 3);
    EXPECT_EQ(frame, frames[static_cast<std::size_t>(f)].rgb) << "stb frame " << f;
    EXPECT_EQ(delays[f], expected[static_cast<std::size_t>(f)] * 10);  // stb reports ms
  }
  stbi_image_free(pixels);
  stbi_image_free(delays);
}

TEST(GifEncoder, ManyColoursAndLargeFrames) {
  // A 300 x 200 frame of 60000 distinct-ish colours: the table fills and resets many times.
  Image image(300, 200);
  std::mt19937 rng(3);
  for (auto& b : image.rgb) b = static_cast<std::uint8_t>(rng());
  const std::vector<std::uint8_t> bytes = encode({image}, 10);
  const gif_test::DecodedGif gif = gif_test::decode_gif(bytes);
  ASSERT_EQ(gif.error, "");
  ASSERT_EQ(gif.frames.size(), 1u);
  EXPECT_EQ(gif.delays[0], 10);
  // Every decoded pixel is a palette colour near its source (noise quantizes coarsely).
  double error = 0;
  for (std::size_t i = 0; i < image.rgb.size(); ++i) {
    error += std::abs(gif.frames[0][i] - image.rgb[i]);
  }
  EXPECT_LT(error / image.rgb.size(), 40.0);
  // stb_image reads the same pixels through all those table resets.
  int w = 0, h = 0, c = 0;
  unsigned char* pixels =
      stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &c, 3);
  ASSERT_NE(pixels, nullptr) << stbi_failure_reason();
  EXPECT_EQ(std::vector<std::uint8_t>(pixels, pixels + 300 * 200 * 3), gif.frames[0]);
  stbi_image_free(pixels);
}

TEST(GifEncoder, TinyAndSingleColourImages) {
  // One pixel, one colour: a two-entry table and the smallest LZW code size.
  Image one(1, 1, {9, 200, 31});
  Image flat(8, 1, {255, 255, 255});
  Image two(3, 2, {0, 0, 0});
  two.rgb[3] = 250;  // one red pixel
  for (const Image* image : {&one, &flat, &two}) {
    const gif_test::DecodedGif gif = gif_test::decode_gif(encode({*image, *image}, 25));
    ASSERT_EQ(gif.error, "");
    ASSERT_EQ(gif.frames.size(), 2u);
    EXPECT_EQ(gif.frames[0], image->rgb);
    EXPECT_EQ(gif.frames[1], image->rgb);
  }
}

TEST(GifEncoder, RefusesFramesOfAnotherSize) {
  GifEncoder encoder(16, 16);
  EXPECT_TRUE(encoder.add_frame(stripes(16, 16, 0), 4));
  EXPECT_FALSE(encoder.add_frame(stripes(16, 8, 0), 4));
  encoder.finish();
  EXPECT_FALSE(encoder.add_frame(stripes(16, 16, 0), 4));
  const gif_test::DecodedGif gif = gif_test::decode_gif(encoder.take_bytes());
  ASSERT_EQ(gif.error, "");
  EXPECT_EQ(gif.frames.size(), 1u);
}

TEST(GifEncoder, FrameDelays) {
  EXPECT_EQ(gif_frame_delay(0, 25), 4);
  EXPECT_EQ(gif_frame_delay(0, 50), 2);
  int total = 0;
  for (int f = 0; f < 60; ++f) total += gif_frame_delay(f, 24);
  EXPECT_EQ(total, 250);  // 60 frames at 24 fps: 2.5 s exactly
}
