// marrow's archive with its length and checksums made right after mutation (archive_fixup.h),
// so the fuzzer reaches the section parsers behind the CRC.
#include <vector>

#include "archive_fixup.h"
#include "load_and_play.h"
#include "marrow/io/archive.h"

MARROW_FUZZ_TARGET(archive_crc) {
  std::vector<std::uint8_t> bytes(data, data + size);
  marrow::fuzz::fix_archive_checksums(bytes);
  return marrow::fuzz::load_and_play(size, "fuzz.marrow", "read_archive",
                                     [&] { return marrow::read_archive(bytes, "fuzz.marrow"); });
}
