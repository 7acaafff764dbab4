// A small GIF decoder written for the tests, independent of marrow's encoder: it follows the
// GIF89a specification (blocks, colour tables, LZW with variable code width, clear and end
// codes, disposal into a canvas) and fails loudly on anything it does not understand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gif_test {

struct DecodedGif {
  int width = 0, height = 0;
  int loop_count = -1;                            // from NETSCAPE2.0; -1 when absent
  std::vector<int> delays;                        // per frame, hundredths of a second
  std::vector<std::vector<std::uint8_t>> frames;  // composited RGB canvas after each frame
  std::string error;                              // empty when the file decoded
};

// Decodes GIF LZW data (the concatenated sub-blocks) into colour indices. Returns false on a
// malformed stream.
inline bool lzw_decode(const std::vector<std::uint8_t>& data, int min_code_size,
                       std::size_t expected, std::vector<std::uint8_t>& out, std::string& error) {
  const int clear = 1 << min_code_size, end = clear + 1;
  std::vector<std::vector<std::uint8_t>> table;
  auto reset = [&] {
    table.clear();
    for (int i = 0; i < clear; ++i) table.push_back({static_cast<std::uint8_t>(i)});
    table.push_back({});  // clear
    table.push_back({});  // end
  };
  reset();
  int width = min_code_size + 1;
  std::size_t bit = 0;
  int previous = -1;
  bool ended = false;
  while (!ended) {
    if (bit + width > data.size() * 8) {
      error = "LZW data ran out before the end code";
      return false;
    }
    int code = 0;
    for (int i = 0; i < width; ++i, ++bit) {
      code |= ((data[bit / 8] >> (bit % 8)) & 1) << i;
    }
    if (code == clear) {
      reset();
      width = min_code_size + 1;
      previous = -1;
      continue;
    }
    if (code == end) {
      ended = true;
      break;
    }
    std::vector<std::uint8_t> entry;
    if (code < static_cast<int>(table.size())) {
      entry = table[code];
      if (entry.empty()) {
        error = "reserved code used as data";
        return false;
      }
      if (previous >= 0) {
        std::vector<std::uint8_t> added = table[previous];
        added.push_back(entry[0]);
        if (table.size() < 4096) table.push_back(added);
      }
    } else if (code == static_cast<int>(table.size()) && previous >= 0) {
      entry = table[previous];
      entry.push_back(table[previous][0]);
      if (table.size() < 4096) table.push_back(entry);
    } else {
      error = "code " + std::to_string(code) + " is not in the table (size " +
              std::to_string(table.size()) + ")";
      return false;
    }
    out.insert(out.end(), entry.begin(), entry.end());
    previous = code;
    if (static_cast<int>(table.size()) == (1 << width) && width < 12) ++width;
  }
  if (out.size() != expected) {
    error =
        "decoded " + std::to_string(out.size()) + " indices, expected " + std::to_string(expected);
    return false;
  }
  return true;
}

inline DecodedGif decode_gif(const std::vector<std::uint8_t>& b) {
  DecodedGif gif;
  std::size_t at = 0;
  auto need = [&](std::size_t n) {
    if (at + n > b.size()) throw std::string("truncated at byte " + std::to_string(at));
  };
  auto u8 = [&] {
    need(1);
    return b[at++];
  };
  auto u16 = [&] {
    need(2);
    const int v = b[at] | (b[at + 1] << 8);
    at += 2;
    return v;
  };
  auto sub_blocks = [&] {
    std::vector<std::uint8_t> data;
    for (int n = u8(); n != 0; n = u8()) {
      need(static_cast<std::size_t>(n));
      data.insert(data.end(), b.begin() + static_cast<std::ptrdiff_t>(at),
                  b.begin() + static_cast<std::ptrdiff_t>(at + n));
      at += static_cast<std::size_t>(n);
    }
    return data;
  };
  try {
    need(6);
    if (std::string(b.begin(), b.begin() + 6) != "GIF89a") throw std::string("not GIF89a");
    at = 6;
    gif.width = u16();
    gif.height = u16();
    const int flags = u8();
    const int background = u8();
    (void)background;
    u8();  // aspect
    std::vector<std::uint8_t> global;
    if (flags & 0x80) {
      const std::size_t n = 3u << ((flags & 7) + 1);
      need(n);
      global.assign(b.begin() + static_cast<std::ptrdiff_t>(at),
                    b.begin() + static_cast<std::ptrdiff_t>(at + n));
      at += n;
    }
    std::vector<std::uint8_t> canvas(static_cast<std::size_t>(gif.width) * gif.height * 3, 0);
    int delay = 0, disposal = 0, transparent = -1;
    for (;;) {
      const int block = u8();
      if (block == 0x3b) break;
      if (block == 0x21) {
        const int label = u8();
        if (label == 0xf9) {
          if (u8() != 4) throw std::string("graphic control extension of wrong size");
          const int packed = u8();
          delay = u16();
          const int index = u8();
          disposal = (packed >> 2) & 7;
          transparent = (packed & 1) ? index : -1;
          if (u8() != 0) throw std::string("graphic control extension not terminated");
        } else if (label == 0xff) {
          const std::vector<std::uint8_t> data = sub_blocks();
          // The first sub-block holds the 11-byte identifier; the loop count follows it.
          if (data.size() >= 14 && std::string(data.begin(), data.begin() + 11) == "NETSCAPE2.0" &&
              data[11] == 1)
            gif.loop_count = data[12] | (data[13] << 8);
        } else {
          sub_blocks();
        }
        continue;
      }
      if (block != 0x2c) throw std::string("unknown block " + std::to_string(block));
      const int left = u16(), top = u16(), w = u16(), h = u16();
      const int packed = u8();
      if (packed & 0x40) throw std::string("interlaced frames are not expected");
      if (left + w > gif.width || top + h > gif.height)
        throw std::string("frame outside the logical screen");
      std::vector<std::uint8_t> table = global;
      if (packed & 0x80) {
        const std::size_t n = 3u << ((packed & 7) + 1);
        need(n);
        table.assign(b.begin() + static_cast<std::ptrdiff_t>(at),
                     b.begin() + static_cast<std::ptrdiff_t>(at + n));
        at += n;
      }
      if (table.empty()) throw std::string("frame without colour table");
      const int min_code_size = u8();
      if (min_code_size < 2 || min_code_size > 8) throw std::string("bad LZW minimum code size");
      const std::vector<std::uint8_t> data = sub_blocks();
      std::vector<std::uint8_t> indices;
      std::string error;
      if (!lzw_decode(data, min_code_size, static_cast<std::size_t>(w) * h, indices, error))
        throw "frame " + std::to_string(gif.frames.size()) + ": " + error;
      for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
          const int index = indices[static_cast<std::size_t>(y) * w + x];
          if (index == transparent) continue;
          if (static_cast<std::size_t>(index) * 3 + 2 >= table.size())
            throw std::string("index beyond the colour table");
          std::uint8_t* p = &canvas[(static_cast<std::size_t>(top + y) * gif.width + left + x) * 3];
          p[0] = table[index * 3];
          p[1] = table[index * 3 + 1];
          p[2] = table[index * 3 + 2];
        }
      }
      if (disposal > 1) throw std::string("only disposal 0 or 1 is expected");
      gif.frames.push_back(canvas);
      gif.delays.push_back(delay);
      delay = 0;
      transparent = -1;
    }
  } catch (const std::string& e) {
    gif.error = e;
  }
  return gif;
}

}  // namespace gif_test
