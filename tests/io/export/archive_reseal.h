// Writing into archive bytes and sealing them again: the hostile-archive tests damage a file,
// then recompute both CRCs so the damage reaches the structural checks behind them.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <vector>

namespace formats_test {

inline void put_u32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b.at(at + static_cast<std::size_t>(i)) = static_cast<std::uint8_t>(v >> (8 * i));
}

// Recomputes both checksums so a damaged file passes the CRC and reaches the structural checks.
inline void reseal(std::vector<std::uint8_t>& b) {
  put_u32(
      b, 24,
      static_cast<std::uint32_t>(::crc32(0, b.data() + 32, static_cast<unsigned>(b.size() - 32))));
  put_u32(b, 28, static_cast<std::uint32_t>(::crc32(0, b.data(), 28)));
}

}  // namespace formats_test
