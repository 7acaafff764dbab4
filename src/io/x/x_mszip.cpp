#include "x_mszip.h"

#include <algorithm>

#include "x_tokenizer.h"

namespace marrow::xfile {
namespace {

constexpr std::size_t kHeaderSize = 16;
constexpr std::size_t kWindow = 32768;

[[noreturn]] void fail(const std::string& file, std::size_t byte, const std::string& what) {
  throw XError(file + ": byte " + std::to_string(byte) + ": " + what);
}

std::uint16_t u16(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint16_t>(b[at] | (b[at + 1] << 8));
}

}  // namespace

Inflated inflate_mszip(std::span<const std::uint8_t> body, const std::string& file,
                       io::DocumentBudget& budget) {
  Inflated out;
  if (body.size() < 4) fail(file, kHeaderSize, "compressed .X file ends before its size field");
  out.declared_size = static_cast<std::uint32_t>(body[0] | (body[1] << 8) | (body[2] << 16)) |
                      (static_cast<std::uint32_t>(body[3]) << 24);
  // Deflate cannot expand better than 1032:1; anything claiming more is damaged or hostile.
  const std::size_t cap = static_cast<std::size_t>(
      std::min<std::uint64_t>(std::uint64_t{body.size()} * 1032 + 65536, std::uint64_t{1} << 31));
  // The declared size is only a hint: reserve no more than the budget allows.
  out.bytes.reserve(static_cast<std::size_t>(
      std::min<std::uint64_t>({out.declared_size, cap, budget.limit() - budget.used()})));
  std::size_t pos = 4;
  std::vector<std::uint8_t> block;
  while (pos < body.size()) {
    const std::size_t at = kHeaderSize + pos;
    if (body.size() - pos < 4) {
      // A few bytes of padding after the last block are harmless.
      if (std::all_of(body.begin() + static_cast<std::ptrdiff_t>(pos), body.end(),
                      [](std::uint8_t b) { return b == 0; })) {
        break;
      }
      fail(file, at, "compressed block header is cut short");
    }
    const std::size_t usize = u16(body, pos);
    const std::size_t csize = u16(body, pos + 2);
    pos += 4;
    if (csize < 2 || csize > body.size() - pos) {
      fail(file, at,
           "compressed block of " + std::to_string(csize) + " bytes does not fit the " +
               std::to_string(body.size() - pos) + " bytes left");
    }
    if (body[pos] != 'C' || body[pos + 1] != 'K') {
      fail(file, at + 4, "compressed block lacks its 'CK' signature");
    }
    if (out.bytes.size() + usize > cap) {
      fail(file, at, "compressed data expands beyond what its size allows");
    }
    budget.charge(usize,
                  [&] { return file + ": byte " + std::to_string(at) + ": compressed block"; });
    // The window carries over: the previous output is the dictionary of this block.
    const std::size_t dict = std::min(out.bytes.size(), kWindow);
    block.assign(usize + 1, 0);  // one spare byte shows a block that inflates to more
    const BlockInflate inflated = inflate_raw_block(
        body.subspan(pos + 2, csize - 2),
        std::span<const std::uint8_t>(out.bytes).subspan(out.bytes.size() - dict), block);
    if (!inflated.error.empty() || inflated.produced != usize) {
      fail(file, at,
           "compressed block is damaged (inflated " + std::to_string(inflated.produced) +
               " bytes, the block declares " + std::to_string(usize) +
               (inflated.error.empty() ? std::string() : "; " + inflated.error) + ")");
    }
    out.bytes.insert(out.bytes.end(), block.begin(),
                     block.begin() + static_cast<std::ptrdiff_t>(usize));
    pos += csize;
  }
  return out;
}

}  // namespace marrow::xfile
