// Wavefront OBJ with its material libraries. An input with no further file goes through the
// in-memory reader; one with further files (a .mtl, file_set.h) is written into the private
// folder as fuzz.obj and its siblings and read by path, as load_asset reads an OBJ that has its
// .mtl beside it.
#include "marrow/io/obj.h"
#include "file_set.h"
#include "load_and_play.h"

MARROW_FUZZ_TARGET(obj) {
  const marrow::fuzz::FileSet files = marrow::fuzz::split_file_set({data, size});
  if (files.others.empty()) {
    marrow::fuzz::write_file_set(files);  // clears the previous input's files
    return marrow::fuzz::load_and_play(size, "fuzz.obj", "read_obj",
                                       [&] { return marrow::read_obj(files.main, "fuzz.obj"); });
  }
  const std::string path = marrow::fuzz::write_file_set(files, "fuzz.obj") + "/fuzz.obj";
  return marrow::fuzz::load_and_play(size, path, "read_obj",
                                     [&] { return marrow::read_obj(path); });
}
