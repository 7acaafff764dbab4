// marrow's archive (.marrow) as given: the header and CRC checks are the first thing a mutation
// meets.
#include "load_and_play.h"
#include "marrow/io/archive.h"

MARROW_FUZZ_TARGET(archive_raw) {
  return marrow::fuzz::load_and_play(size, "fuzz.marrow", "read_archive", [&] {
    return marrow::read_archive(std::span<const std::uint8_t>(data, size), "fuzz.marrow");
  });
}
