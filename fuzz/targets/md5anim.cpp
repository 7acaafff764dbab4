// MD5 animation (.md5anim, Doom 3), in memory.
#include <string_view>

#include "load_and_play.h"
#include "marrow/io/md5.h"

MARROW_FUZZ_TARGET(md5anim) {
  return marrow::fuzz::load_and_play(size, "fuzz.md5anim", "read_md5anim", [&] {
    return marrow::read_md5anim(std::string_view(reinterpret_cast<const char*>(data), size),
                                "fuzz.md5anim");
  });
}
