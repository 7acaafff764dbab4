// BVH (Biovision Hierarchy), in memory.
#include <string_view>

#include "load_and_play.h"
#include "marrow/io/bvh.h"

MARROW_FUZZ_TARGET(bvh) {
  return marrow::fuzz::load_and_play(size, "fuzz.bvh", "read_bvh", [&] {
    return marrow::read_bvh(std::string_view(reinterpret_cast<const char*>(data), size),
                            "fuzz.bvh");
  });
}
