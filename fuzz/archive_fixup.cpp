#include "archive_fixup.h"

#include <zlib.h>

#include "marrow/io/archive.h"

namespace marrow::fuzz {
namespace {

void put_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace

void fix_archive_checksums(std::vector<std::uint8_t>& bytes) {
  if (bytes.size() < kArchiveHeaderBytes) return;
  const std::uint64_t payload = bytes.size() - kArchiveHeaderBytes;
  for (int i = 0; i < 8; ++i) bytes[16 + i] = static_cast<std::uint8_t>(payload >> (8 * i));
  put_u32(bytes.data() + 24, static_cast<std::uint32_t>(crc32(0, bytes.data() + kArchiveHeaderBytes,
                                                              static_cast<uInt>(payload))));
  put_u32(bytes.data() + 28, static_cast<std::uint32_t>(crc32(0, bytes.data(), 28)));
}

}  // namespace marrow::fuzz
