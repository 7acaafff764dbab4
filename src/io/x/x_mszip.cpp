#include "x_mszip.h"

#include <zlib.h>

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

// Owns a raw-deflate zlib stream for one block.
class Inflater {
 public:
  Inflater() = default;
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  ~Inflater() {
    if (ready_) inflateEnd(&z_);
  }
  bool init() {
    ready_ = inflateInit2(&z_, -MAX_WBITS) == Z_OK;
    return ready_;
  }
  z_stream& z() { return z_; }

 private:
  z_stream z_{};
  bool ready_ = false;
};

}  // namespace

Inflated inflate_mszip(std::span<const std::uint8_t> body, const std::string& file,
                       io::DocumentBudget& budget) {
  Inflated out;
  if (body.size() < 4) fail(file, kHeaderSize, "compressed .X file ends before its size field");
  out.declared_size = static_cast<std::uint32_t>(body[0] | (body[1] << 8) | (body[2] << 16)) |
                      (static_cast<std::uint32_t>(body[3]) << 24);
  // Deflate cannot expand better than 1032:1; anything claiming more is damaged or hostile.
  const std::size_t cap = std::min<std::size_t>(body.size() * 1032 + 65536, std::size_t{1} << 31);
  // The declared size is only a hint: reserve no more than the budget allows.
  out.bytes.reserve(
      std::min<std::size_t>({out.declared_size, cap, budget.limit() - budget.used()}));
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
    Inflater inflater;
    if (!inflater.init()) fail(file, at, "cannot start zlib");
    z_stream& z = inflater.z();
    if (!out.bytes.empty()) {
      // The window carries over: the previous output is the dictionary of this block.
      const std::size_t dict = std::min(out.bytes.size(), kWindow);
      if (inflateSetDictionary(&z, out.bytes.data() + out.bytes.size() - dict,
                               static_cast<uInt>(dict)) != Z_OK) {
        fail(file, at, "cannot carry the deflate window into this block");
      }
    }
    block.assign(usize + 1, 0);  // one spare byte shows a block that inflates to more
    z.next_in = const_cast<Bytef*>(body.data() + pos + 2);
    z.avail_in = static_cast<uInt>(csize - 2);
    z.next_out = block.data();
    z.avail_out = static_cast<uInt>(block.size());
    const int rc = inflate(&z, Z_SYNC_FLUSH);
    const std::size_t produced = block.size() - z.avail_out;
    if ((rc != Z_STREAM_END && rc != Z_OK && rc != Z_BUF_ERROR) || produced != usize) {
      fail(file, at,
           "compressed block is damaged (inflated " + std::to_string(produced) +
               " bytes, the block declares " + std::to_string(usize) +
               (z.msg ? std::string("; zlib: ") + z.msg : std::string()) + ")");
    }
    out.bytes.insert(out.bytes.end(), block.begin(),
                     block.begin() + static_cast<std::ptrdiff_t>(usize));
    pos += csize;
  }
  return out;
}

}  // namespace marrow::xfile
