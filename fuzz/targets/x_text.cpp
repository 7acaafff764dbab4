// DirectX .X, the whole file as given (text seeds; the header may mutate into any encoding).
#include "load_and_play.h"
#include "marrow/io/x_file.h"

MARROW_FUZZ_TARGET(x_text) {
  return marrow::fuzz::load_and_play(size, "fuzz.x", "read_x", [&] {
    return marrow::read_x(std::span<const std::uint8_t>(data, size), "fuzz.x");
  });
}
