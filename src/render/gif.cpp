#include "marrow/render/gif.h"

#include <algorithm>
#include <cmath>

namespace marrow::render {
namespace {

constexpr int kHistogramBits = 5;
constexpr int kBins = 1 << (3 * kHistogramBits);

int bin_of(const std::uint8_t* p) {
  constexpr int s = 8 - kHistogramBits;
  return ((p[0] >> s) << (2 * kHistogramBits)) | ((p[1] >> s) << kHistogramBits) | (p[2] >> s);
}

struct Bin {
  int index = 0;
  std::uint64_t count = 0;
  std::uint64_t sum[3] = {0, 0, 0};  // of the full 8-bit colours that fell in the bin
  int channel(int c) const {
    return (index >> ((2 - c) * kHistogramBits)) & ((1 << kHistogramBits) - 1);
  }
};

struct Box {
  std::size_t begin = 0, end = 0;  // range of bins
  std::uint64_t count = 0;
  int range[3] = {0, 0, 0};
  int widest = 0;
};

Box make_box(const std::vector<Bin>& bins, std::size_t begin, std::size_t end) {
  Box box{begin, end, 0, {0, 0, 0}, 0};
  int lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0};
  for (std::size_t i = begin; i < end; ++i) {
    box.count += bins[i].count;
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], bins[i].channel(c));
      hi[c] = std::max(hi[c], bins[i].channel(c));
    }
  }
  for (int c = 0; c < 3; ++c) {
    box.range[c] = hi[c] - lo[c];
    if (box.range[c] > box.range[box.widest]) box.widest = c;
  }
  return box;
}

void put16(std::vector<std::uint8_t>& out, int v) {
  out.push_back(static_cast<std::uint8_t>(v & 0xff));
  out.push_back(static_cast<std::uint8_t>((v >> 8) & 0xff));
}

// Writes codes least-significant bit first, as GIF packs them.
class BitWriter {
 public:
  explicit BitWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void write(int code, int width) {
    acc_ |= static_cast<std::uint32_t>(code) << bits_;
    bits_ += width;
    while (bits_ >= 8) {
      out_.push_back(static_cast<std::uint8_t>(acc_ & 0xff));
      acc_ >>= 8;
      bits_ -= 8;
    }
  }
  void flush() {
    if (bits_ > 0) out_.push_back(static_cast<std::uint8_t>(acc_ & 0xff));
    acc_ = 0;
    bits_ = 0;
  }

 private:
  std::vector<std::uint8_t>& out_;
  std::uint32_t acc_ = 0;
  int bits_ = 0;
};

}  // namespace

IndexedImage quantize(std::span<const std::uint8_t> rgb, std::size_t max_colors) {
  max_colors = std::clamp<std::size_t>(max_colors, 2, 256);
  IndexedImage result;
  const std::size_t pixels = rgb.size() / 3;
  std::vector<Bin> histogram(kBins);
  for (std::size_t i = 0; i < pixels; ++i) {
    const std::uint8_t* p = &rgb[i * 3];
    Bin& bin = histogram[bin_of(p)];
    ++bin.count;
    for (int c = 0; c < 3; ++c) bin.sum[c] += p[c];
  }
  std::vector<Bin> bins;
  for (int i = 0; i < kBins; ++i) {
    if (histogram[i].count == 0) continue;
    histogram[i].index = i;
    bins.push_back(histogram[i]);
  }
  if (bins.empty()) {
    result.palette = {Rgb{}, Rgb{}};
    return result;
  }
  // Median cut: split the box with the most pixels times the widest channel range, at the
  // pixel-weighted median of that channel, until there are enough boxes or none can split.
  std::vector<Box> boxes = {make_box(bins, 0, bins.size())};
  while (boxes.size() < max_colors) {
    std::size_t best = boxes.size();
    double best_score = 0;
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      if (boxes[b].end - boxes[b].begin < 2) continue;
      const double score = static_cast<double>(boxes[b].count) * boxes[b].range[boxes[b].widest];
      if (score > best_score) {
        best_score = score;
        best = b;
      }
    }
    if (best == boxes.size()) break;
    const Box box = boxes[best];
    const int c = box.widest;
    std::sort(bins.begin() + static_cast<std::ptrdiff_t>(box.begin),
              bins.begin() + static_cast<std::ptrdiff_t>(box.end),
              [c](const Bin& a, const Bin& b) { return a.channel(c) < b.channel(c); });
    std::uint64_t half = 0;
    std::size_t split = box.begin + 1;
    for (std::size_t i = box.begin; i + 1 < box.end; ++i) {
      half += bins[i].count;
      split = i + 1;
      if (half * 2 >= box.count) break;
    }
    boxes[best] = make_box(bins, box.begin, split);
    boxes.push_back(make_box(bins, split, box.end));
  }
  for (const Box& box : boxes) {
    std::uint64_t sum[3] = {0, 0, 0};
    for (std::size_t i = box.begin; i < box.end; ++i) {
      for (int c = 0; c < 3; ++c) sum[c] += bins[i].sum[c];
    }
    result.palette.push_back({static_cast<std::uint8_t>((sum[0] + box.count / 2) / box.count),
                              static_cast<std::uint8_t>((sum[1] + box.count / 2) / box.count),
                              static_cast<std::uint8_t>((sum[2] + box.count / 2) / box.count)});
  }
  if (result.palette.size() < 2) result.palette.push_back(Rgb{});
  // Each used bin goes to the palette entry nearest to its mean colour.
  std::vector<std::int16_t> nearest(kBins, -1);
  for (const Bin& bin : bins) {
    const float mean[3] = {static_cast<float>(bin.sum[0]) / bin.count,
                           static_cast<float>(bin.sum[1]) / bin.count,
                           static_cast<float>(bin.sum[2]) / bin.count};
    float best = 1e30f;
    for (std::size_t e = 0; e < result.palette.size(); ++e) {
      const Rgb q = result.palette[e];
      const float dr = mean[0] - q.r, dg = mean[1] - q.g, db = mean[2] - q.b;
      const float d = dr * dr + dg * dg + db * db;
      if (d < best) {
        best = d;
        nearest[bin.index] = static_cast<std::int16_t>(e);
      }
    }
  }
  result.indices.resize(pixels);
  for (std::size_t i = 0; i < pixels; ++i) {
    result.indices[i] = static_cast<std::uint8_t>(nearest[bin_of(&rgb[i * 3])]);
  }
  return result;
}

std::vector<std::uint8_t> lzw_compress(std::span<const std::uint8_t> indices, int min_code_size) {
  std::vector<std::uint8_t> out;
  BitWriter bits(out);
  const int clear = 1 << min_code_size, end_of_information = clear + 1;
  // The string table as a hash from (prefix code, next index) to code.
  constexpr std::size_t kTableSize = 1 << 14;
  std::vector<std::int32_t> keys(kTableSize, -1);
  std::vector<std::int16_t> codes(kTableSize);
  int width = min_code_size + 1;
  int next = end_of_information + 1;
  auto reset = [&] {
    std::fill(keys.begin(), keys.end(), -1);
    width = min_code_size + 1;
    next = end_of_information + 1;
  };
  bits.write(clear, width);
  if (indices.empty()) {
    bits.write(end_of_information, width);
    bits.flush();
    return out;
  }
  int prefix = indices[0];
  for (std::size_t i = 1; i < indices.size(); ++i) {
    const int k = indices[i];
    const std::int32_t key = (prefix << 8) | k;
    std::size_t slot = (static_cast<std::uint32_t>(key) * 2654435761u) >> 18;
    while (keys[slot] != -1 && keys[slot] != key) slot = (slot + 1) & (kTableSize - 1);
    if (keys[slot] == key) {
      prefix = codes[slot];
      continue;
    }
    bits.write(prefix, width);
    // The decoder adds this entry one code later; it reads the next code at the width that
    // fits its own next free code, which is one less than ours.
    keys[slot] = key;
    codes[slot] = static_cast<std::int16_t>(next++);
    if (next > (1 << width) && width < 12) ++width;
    if (next >= 4095) {  // table full: start over (decoders cap codes at 4095)
      bits.write(clear, width);
      reset();
    }
    prefix = k;
  }
  bits.write(prefix, width);
  if (next == (1 << width) && width < 12) ++width;  // the decoder adds one more entry here
  bits.write(end_of_information, width);
  bits.flush();
  return out;
}

int gif_frame_delay(int frame, double fps) {
  const long start = std::lround(frame * 100.0 / fps), end = std::lround((frame + 1) * 100.0 / fps);
  return static_cast<int>(std::max(1L, end - start));
}

GifEncoder::GifEncoder(int width, int height, int loop_count)
    : width_(width), height_(height), loop_count_(loop_count) {}

void GifEncoder::write_header() {
  const char* signature = "GIF89a";
  out_.insert(out_.end(), signature, signature + 6);
  put16(out_, width_);
  put16(out_, height_);
  out_.push_back(0x70);  // no global colour table; 8 bits of colour resolution
  out_.push_back(0);     // background colour index
  out_.push_back(0);     // pixel aspect ratio: unspecified
  // NETSCAPE2.0 application extension: loop count.
  const char* netscape = "NETSCAPE2.0";
  out_.insert(out_.end(), {0x21, 0xff, 0x0b});
  out_.insert(out_.end(), netscape, netscape + 11);
  out_.insert(out_.end(), {0x03, 0x01});
  put16(out_, loop_count_);
  out_.push_back(0);
}

bool GifEncoder::add_frame(const Image& frame, int delay_cs) {
  if (finished_ || frame.width != width_ || frame.height != height_ ||
      frame.rgb.size() != static_cast<std::size_t>(width_) * height_ * 3)
    return false;
  if (frames_ == 0) write_header();
  // Only the rectangle that differs from the previous frame (the rest stays on the canvas).
  int x0 = 0, y0 = 0, x1 = width_ - 1, y1 = height_ - 1;
  if (frames_ > 0) {
    x0 = width_;
    y0 = height_;
    x1 = -1;
    y1 = -1;
    for (int y = 0; y < height_; ++y) {
      const std::size_t row = static_cast<std::size_t>(y) * width_ * 3;
      for (int x = 0; x < width_; ++x) {
        const std::size_t at = row + static_cast<std::size_t>(x) * 3;
        if (frame.rgb[at] == previous_.rgb[at] && frame.rgb[at + 1] == previous_.rgb[at + 1] &&
            frame.rgb[at + 2] == previous_.rgb[at + 2])
          continue;
        x0 = std::min(x0, x);
        x1 = std::max(x1, x);
        y0 = std::min(y0, y);
        y1 = std::max(y1, y);
      }
    }
    if (x1 < 0) x0 = y0 = x1 = y1 = 0;  // unchanged: one pixel, for the delay
  }
  const int w = x1 - x0 + 1, h = y1 - y0 + 1;
  std::vector<std::uint8_t> region(static_cast<std::size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y) {
    const std::uint8_t* src = &frame.rgb[(static_cast<std::size_t>(y0 + y) * width_ + x0) * 3];
    std::copy(src, src + static_cast<std::size_t>(w) * 3,
              region.begin() + static_cast<std::ptrdiff_t>(y) * w * 3);
  }
  const IndexedImage indexed = quantize(region);
  int table_bits = 1;
  while ((1u << table_bits) < indexed.palette.size()) ++table_bits;

  // Graphic control extension: disposal 1 (leave in place), the delay, no transparency.
  out_.insert(out_.end(), {0x21, 0xf9, 0x04, 0x04});
  put16(out_, std::clamp(delay_cs, 0, 65535));
  out_.insert(out_.end(), {0x00, 0x00});
  // Image descriptor with a local colour table.
  out_.push_back(0x2c);
  put16(out_, x0);
  put16(out_, y0);
  put16(out_, w);
  put16(out_, h);
  out_.push_back(static_cast<std::uint8_t>(0x80 | (table_bits - 1)));
  for (std::size_t e = 0; e < (1u << table_bits); ++e) {
    const Rgb c = e < indexed.palette.size() ? indexed.palette[e] : Rgb{};
    out_.insert(out_.end(), {c.r, c.g, c.b});
  }
  const int min_code_size = std::max(2, table_bits);
  out_.push_back(static_cast<std::uint8_t>(min_code_size));
  const std::vector<std::uint8_t> data = lzw_compress(indexed.indices, min_code_size);
  for (std::size_t at = 0; at < data.size(); at += 255) {
    const std::size_t n = std::min<std::size_t>(255, data.size() - at);
    out_.push_back(static_cast<std::uint8_t>(n));
    out_.insert(out_.end(), data.begin() + static_cast<std::ptrdiff_t>(at),
                data.begin() + static_cast<std::ptrdiff_t>(at + n));
  }
  out_.push_back(0);
  previous_ = frame;
  ++frames_;
  return true;
}

void GifEncoder::finish() {
  if (finished_) return;
  if (frames_ == 0) {  // a valid file even without frames: header only
    write_header();
  }
  out_.push_back(0x3b);
  finished_ = true;
}

std::vector<std::uint8_t> GifEncoder::take_bytes() {
  std::vector<std::uint8_t> bytes;
  bytes.swap(out_);
  return bytes;
}

}  // namespace marrow::render
