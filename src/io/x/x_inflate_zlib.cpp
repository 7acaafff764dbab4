// One MSZIP block's raw deflate data inflated by zlib (native builds; x_mszip.h).
#include <zlib.h>

#include "x_mszip.h"

namespace marrow::xfile {
namespace {

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

BlockInflate inflate_raw_block(std::span<const std::uint8_t> in,
                               std::span<const std::uint8_t> dictionary,
                               std::span<std::uint8_t> out) {
  Inflater inflater;
  if (!inflater.init()) return {0, "cannot start zlib"};
  z_stream& z = inflater.z();
  if (!dictionary.empty() &&
      inflateSetDictionary(&z, dictionary.data(), static_cast<uInt>(dictionary.size())) != Z_OK) {
    return {0, "cannot carry the deflate window into this block"};
  }
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_SYNC_FLUSH);
  BlockInflate result{out.size() - z.avail_out, {}};
  if (rc != Z_STREAM_END && rc != Z_OK && rc != Z_BUF_ERROR) {
    result.error = std::string("zlib: ") + (z.msg ? z.msg : "error " + std::to_string(rc));
  }
  return result;
}

}  // namespace marrow::xfile
