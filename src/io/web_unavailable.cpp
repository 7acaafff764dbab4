// The readers the WebAssembly build leaves out (docs/web.md), each replaced by one clear error:
// assimp (FBX) is a native library with no WebAssembly build among Debian's packages, and so is
// pugixml (Collada's XML). Native builds compile the real readers instead of this file.
#include <string>

#include "marrow/io/assimp_import.h"
#include "marrow/io/collada.h"

namespace marrow {
namespace {

Error not_in_browser(const std::string& file, const std::string& what) {
  return make_error(file, what + " is not read in the browser build of marrow (" +
                              "it needs a library that is not built for WebAssembly); convert " +
                              "it to glTF with the `marrow convert` command");
}

}  // namespace

bool is_assimp_extension(const std::string& e) {
  return e == ".fbx" || e == ".dae";
}

Result<Asset> read_assimp(const std::string& path, const LoadOptions&) {
  return not_in_browser(path, "FBX (through assimp)");
}

Result<Asset> read_assimp(std::span<const std::uint8_t>, const std::string& name,
                          const LoadOptions&) {
  return not_in_browser(name, "FBX (through assimp)");
}

Result<Asset> read_assimp_isolated(const std::string& path, const LoadOptions&) {
  return not_in_browser(path, "FBX (through assimp)");
}

Result<Asset> read_collada(const std::string& path) {
  return not_in_browser(path, "Collada (its XML library, pugixml)");
}

Result<Asset> read_collada(std::span<const std::uint8_t>, const std::string& name,
                           const ColladaBakeTolerance&) {
  return not_in_browser(name, "Collada (its XML library, pugixml)");
}

}  // namespace marrow
