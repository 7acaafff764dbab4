#include <algorithm>
#include <filesystem>
#include <fstream>

#include "marrow/io/archive.h"
#include "marrow/io/asset.h"
#include "marrow/io/assimp_import.h"
#include "marrow/io/bvh.h"
#include "marrow/io/collada.h"
#include "marrow/io/gltf.h"
#include "marrow/io/md5.h"
#include "marrow/io/obj.h"
#include "marrow/io/smd.h"
#include "marrow/io/x_file.h"

namespace marrow {
namespace {

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

bool starts_with_glb_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::equal(magic, magic + 4, "glTF");
}

bool starts_with_archive_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::uint8_t magic[8] = {};
  return in.read(reinterpret_cast<char*>(magic), 8) && has_archive_magic(magic);
}

constexpr std::string_view kReadable[] = {".gltf",    ".glb",     ".x",   ".bvh", ".fbx",   ".dae",
                                          ".md5mesh", ".md5anim", ".smd", ".obj", ".marrow"};

}  // namespace

std::span<const std::string_view> readable_extensions() {
  return kReadable;
}

bool is_readable_extension(const std::string& path) {
  const std::string ext = lower_extension(path);
  return std::find(std::begin(kReadable), std::end(kReadable), ext) != std::end(kReadable);
}

Result<Asset> load_asset(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error{path + ": no such file"};
  }
  const std::string ext = lower_extension(path);
  if (ext == ".gltf" || ext == ".glb" || starts_with_glb_magic(path)) return read_gltf(path);
  if (ext == ".marrow" || starts_with_archive_magic(path)) return read_archive(path);
  if (ext == ".obj") return read_obj(path);
  if (ext == ".bvh") return read_bvh(path);
  if (ext == ".x") return read_x(path, options);
  if (ext == ".md5mesh") return read_md5mesh(path, options);
  if (ext == ".md5anim") return read_md5anim(path);
  if (ext == ".smd") return read_smd(path, options);
  if (ext == ".dae") return read_collada(path);
  if (is_assimp_extension(ext)) {
    return options.isolate_importers ? read_assimp_isolated(path, options)
                                     : read_assimp(path, options);
  }
  return Error{path + ": unsupported file type '" + ext +
               "' (marrow reads .gltf, .glb, .x, .bvh, .fbx, .dae, .md5mesh, .md5anim, .smd, .obj "
               "and .marrow)"};
}

}  // namespace marrow
