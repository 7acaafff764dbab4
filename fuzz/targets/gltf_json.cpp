// glTF 2.0 JSON (.gltf): the document in memory, its external buffers as further files of the
// input (file_set.h), found through base_dir as read_gltf resolves them.
#include "file_set.h"
#include "load_and_play.h"
#include "marrow/io/gltf.h"

MARROW_FUZZ_TARGET(gltf_json) {
  const marrow::fuzz::FileSet files = marrow::fuzz::split_file_set({data, size});
  const std::string folder = marrow::fuzz::write_file_set(files);
  return marrow::fuzz::load_and_play(size, "fuzz.gltf", "read_gltf", [&] {
    return marrow::read_gltf(files.main, "fuzz.gltf", folder);
  });
}
