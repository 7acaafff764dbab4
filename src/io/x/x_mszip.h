// MSZIP, the compression of 'tzip' and 'bzip' .X files: after the 16-byte header a DWORD gives
// the size of the uncompressed file, then blocks follow, each a WORD uncompressed size, a WORD
// compressed size (counting the 'CK' signature), 'CK' and raw deflate data whose window carries
// over from the previous block. Inflated by zlib natively (x_inflate_zlib.cpp) and by the
// browser's inflate in the WebAssembly build (x_inflate_web.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/budget.h"

namespace marrow::xfile {

struct Inflated {
  std::vector<std::uint8_t> bytes;  // the body that follows the header, uncompressed
  std::uint32_t declared_size = 0;  // the size the file declares (with or without the header)
};

/// What inflate_raw_block() made of one block: the bytes it wrote, or why it could not.
struct BlockInflate {
  std::size_t produced = 0;
  std::string error;  ///< empty on success
};

/// Raw deflate data `in` inflated into `out`, with `dictionary` as the window already seen (empty
/// for the first block). Stops when `out` is full or the input ends.
BlockInflate inflate_raw_block(std::span<const std::uint8_t> in,
                               std::span<const std::uint8_t> dictionary,
                               std::span<std::uint8_t> out);

// `body` follows the 16-byte header, which starts at byte 0 of `file`. Throws XError naming
// the byte offset of a damaged block. Each block's output is charged to `budget` before it is
// inflated, and the whole is capped at what deflate can produce from the input (1032:1).
Inflated inflate_mszip(std::span<const std::uint8_t> body, const std::string& file,
                       io::DocumentBudget& budget);

}  // namespace marrow::xfile
