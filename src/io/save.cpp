#include "marrow/io/save.h"

#include <algorithm>
#include <filesystem>

#include "marrow/io/archive.h"
#include "marrow/io/gltf_export.h"

namespace marrow {

Status save_asset(const Asset& asset, const std::string& path, std::vector<std::string>* notes) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".glb" || ext == ".gltf") return write_gltf(asset, path, {}, notes);
  if (ext == ".marrow") return write_archive(asset, path, notes);
  return Error{path + ": cannot write '" + ext + "' files (marrow writes .glb, .gltf and .marrow)"};
}

}  // namespace marrow
