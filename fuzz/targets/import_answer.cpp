// The parent side of the isolated FBX import: what the child process writes back (a frame with
// each clip's rate source, then a .marrow archive). A crashed or compromised child can send
// anything, so the parent reads it as outside bytes. The archive's length and checksums are
// made right after mutation (archive_fixup.h) so the fuzzer reaches the parsers behind them.
#include <cstdint>
#include <cstring>
#include <vector>

#include "archive_fixup.h"
#include "load_and_play.h"
#include "marrow/io/assimp_import.h"

MARROW_FUZZ_TARGET(import_answer) {
  std::vector<std::uint8_t> bytes(data, data + size);
  // The frame: 8 magic bytes, a little-endian clip count, one rate-source byte per clip.
  if (bytes.size() >= 12) {
    std::uint32_t clips = 0;
    std::memcpy(&clips, bytes.data() + 8, 4);
    if (clips <= bytes.size() - 12) {
      std::vector<std::uint8_t> archive(bytes.begin() + 12 + clips, bytes.end());
      marrow::fuzz::fix_archive_checksums(archive);
      bytes.resize(12 + clips);
      bytes.insert(bytes.end(), archive.begin(), archive.end());
    }
  }
  // Errors name the imported file ("walk.fbx (as returned by the isolated importer): ...").
  return marrow::fuzz::load_and_play(size, "walk.fbx", "read_import_answer",
                                     [&] { return marrow::read_import_answer(bytes, "walk.fbx"); });
}
