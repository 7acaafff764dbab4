/// @file
/// An animated GIF (GIF89a) encoder written for marrow: per-frame palettes chosen by median cut,
/// LZW compression, NETSCAPE2.0 looping and per-frame delays. Frames after the first store only
/// the rectangle that changed. Bytes are produced incrementally so a long animation can be
/// streamed to a file.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "marrow/render/rasterizer.h"

namespace marrow::render {

/// A palette of at most 256 colours for one image, and each pixel's index into it.
struct IndexedImage {
  std::vector<Rgb> palette;
  std::vector<std::uint8_t> indices;
};

/// Median cut over a 15-bit colour histogram: at most `max_colors` (2..256) entries, each the
/// mean colour of its box; each pixel maps to its nearest entry. Images with no more distinct
/// 15-bit colours than `max_colors` keep their colours up to that precision.
IndexedImage quantize(std::span<const std::uint8_t> rgb, std::size_t max_colors = 256);

/// GIF LZW for one image: `indices` (each < 2^min_code_size) compressed, without the sub-block
/// framing. min_code_size is 2..8.
std::vector<std::uint8_t> lzw_compress(std::span<const std::uint8_t> indices, int min_code_size);

/// The delay of frame `frame` (from 0) at `fps`, in hundredths of a second, rounded so that the
/// total duration stays exact (30 fps gives 3, 4, 3, 3, 4, 3, ...). At least 1.
int gif_frame_delay(int frame, double fps);

class GifEncoder {
 public:
  /// loop_count 0 loops forever.
  GifEncoder(int width, int height, int loop_count = 0);

  /// Appends one frame (width x height) shown for `delay_cs` hundredths of a second. Returns
  /// false, adding nothing, for a frame of another size or after finish().
  bool add_frame(const Image& frame, int delay_cs);
  /// Appends the trailer; no frame may follow.
  void finish();
  /// The bytes produced since the last call (the header arrives with the first frame).
  std::vector<std::uint8_t> take_bytes();

  int frame_count() const { return frames_; }

 private:
  void write_header();
  int width_, height_, loop_count_;
  int frames_ = 0;
  bool finished_ = false;
  Image previous_;
  std::vector<std::uint8_t> out_;
};

}  // namespace marrow::render
