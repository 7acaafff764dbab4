// marrow's archive with its length and checksums made right after mutation (archive_fixup.h),
// so the fuzzer reaches the section parsers behind the CRC; read as an asset and as a
// motion-matching database (whose MOTN section an asset reader skips).
#include <vector>

#include "archive_fixup.h"
#include "load_and_play.h"
#include "marrow/io/archive.h"
#include "marrow/io/motion_database_archive.h"

namespace {

// A database that loads must search: a query of its size finds a frame.
void load_and_search(const std::vector<std::uint8_t>& bytes) {
  using namespace marrow;
  Result<std::shared_ptr<const MotionDatabase>> database = Error{};
  {
    const fuzz::HeapWatch watch;
    database = read_motion_database(bytes, "fuzz.marrow");
    fuzz::expect_within_budget(watch, bytes.size(), fuzz::kDefaultLoadBudget,
                               "read_motion_database");
  }
  if (!database) {
    fuzz::expect_documented_error(database.error(), "fuzz.marrow");
    return;
  }
  const std::vector<float> query((*database)->dims(), 0.5f);
  MARROW_FUZZ_CHECK((*database)->search(query).frame != kNoMotionFrame,
                    "a loaded motion database found no frame");
}

}  // namespace

MARROW_FUZZ_TARGET(archive_crc) {
  std::vector<std::uint8_t> bytes(data, data + size);
  marrow::fuzz::fix_archive_checksums(bytes);
  load_and_search(bytes);
  return marrow::fuzz::load_and_play(size, "fuzz.marrow", "read_archive",
                                     [&] { return marrow::read_archive(bytes, "fuzz.marrow"); });
}
