// Binary glTF (.glb): the container and its JSON and BIN chunks, in memory. base_dir is an
// empty private folder, so a buffer URI names a file that is not there.
#include "file_set.h"
#include "load_and_play.h"
#include "marrow/io/gltf.h"

MARROW_FUZZ_TARGET(glb) {
  const std::string folder = marrow::fuzz::write_file_set({});
  return marrow::fuzz::load_and_play(size, "fuzz.glb", "read_gltf", [&] {
    return marrow::read_gltf({data, size}, "fuzz.glb", folder);
  });
}
