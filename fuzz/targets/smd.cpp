// Valve SMD (reference or animation), in memory.
#include <string_view>

#include "load_and_play.h"
#include "marrow/io/smd.h"

MARROW_FUZZ_TARGET(smd) {
  return marrow::fuzz::load_and_play(size, "fuzz.smd", "read_smd", [&] {
    return marrow::read_smd(std::string_view(reinterpret_cast<const char*>(data), size),
                            "fuzz.smd");
  });
}
