// MD5 mesh (.md5mesh, Doom 3), in memory: marrow's own reader, no longer assimp's.
#include <string_view>

#include "load_and_play.h"
#include "marrow/io/md5.h"

MARROW_FUZZ_TARGET(md5mesh) {
  return marrow::fuzz::load_and_play(size, "fuzz.md5mesh", "read_md5mesh", [&] {
    return marrow::read_md5mesh(std::string_view(reinterpret_cast<const char*>(data), size),
                                "fuzz.md5mesh");
  });
}
