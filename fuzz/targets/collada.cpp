// Collada (.dae), in memory: marrow's own reader of skeletons, skins, morph controllers and
// animation curves (baked to clips within their tolerance).
#include "marrow/io/collada.h"
#include "load_and_play.h"

MARROW_FUZZ_TARGET(collada) {
  return marrow::fuzz::load_and_play(size, "fuzz.dae", "read_collada", [&] {
    return marrow::read_collada(marrow::fuzz::bytes_of(data, size), "fuzz.dae");
  });
}
