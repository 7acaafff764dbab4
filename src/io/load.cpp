#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "format_sniff.h"
#include "marrow/clip/clip_builder.h"
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

// The file's first bytes, for sniff_file_kind; empty when it cannot be read (the reader then says
// why).
std::vector<std::uint8_t> read_head(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> head(io::kSniffBytes);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

Result<Asset> read_kind(io::FileKind kind, const std::string& path, const LoadOptions& options) {
  using io::FileKind;
  switch (kind) {
    case FileKind::kGltfJson:
    case FileKind::kGlb:
    case FileKind::kOtherJson:
      return read_gltf(path);
    case FileKind::kArchive:
      return read_archive(path);
    case FileKind::kBvh:
      return read_bvh(path);
    case FileKind::kXText:
    case FileKind::kXBinary:
    case FileKind::kXCompressed:
      return read_x(path, options);
    case FileKind::kCollada:
    case FileKind::kOtherXml:
      return read_collada(path);
    case FileKind::kFbxBinary:
    case FileKind::kFbxAscii:
      return options.isolate_importers ? read_assimp_isolated(path, options)
                                       : read_assimp(path, options);
    case FileKind::kObj:
      return read_obj(path);
    case FileKind::kMd5Mesh:
      return read_md5mesh(path, options);
    case FileKind::kMd5Anim:
      return read_md5anim(path);
    case FileKind::kSmd:
      return read_smd(path, options);
    case FileKind::kUnknown:
      break;
  }
  return Error{path + ": no reader for this file"};
}

// A file whose content is another format than its name says: read as what it is, with a note,
// or refused naming what it is.
Result<Asset> read_misnamed(io::FileKind content, const std::string& path, const std::string& ext,
                            const LoadOptions& options) {
  const std::string named =
      ext.empty() ? "a name without an extension" : "the name's '" + ext + "'";
  if (!io::is_readable_kind(content))
    return Error{path + ": its content is " + io::describe_kind(content) + ", not what " + named +
                 " says"};
  Result<Asset> asset = read_kind(content, path, options);
  if (!asset)
    return Error{asset.error().message + " (read as " + io::describe_kind(content) +
                 ", which its content is, rather than by " + named + ")"};
  asset->warnings.insert(asset->warnings.begin(),
                         "its content is " + std::string(io::describe_kind(content)) +
                             ", not what " + named + " says: read as what it is");
  return asset;
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

namespace {

// A clip whose rate was a format's default when an earlier conversion read it (a glTF's or an
// archive's record says so) counted its keys in ticks of that default: at the rate the user now
// gives, each tick is old / new times as long.
Status apply_rate_option(Asset& asset, double ticks_per_second) {
  for (std::size_t c = 0; c < asset.clips.size(); ++c) {
    if (asset.rate_source(c) != RateSource::kDefault) continue;
    const Clip& clip = asset.clips[c];
    const double old_rate = clip.ticks_per_second();
    if (old_rate != ticks_per_second && old_rate > 0) {
      Result<Clip> rescaled =
          rescale_clip_time(clip, old_rate / ticks_per_second, ticks_per_second, asset.source);
      if (!rescaled) return rescaled.error();
      std::ostringstream note;
      note << "clip '" << clip.name() << "': its " << old_rate
           << " ticks/s were a default, not the file's; read at " << ticks_per_second
           << " ticks/s (--ticks-per-second), its times scaled by " << old_rate / ticks_per_second;
      if (c < asset.compiled_clips.size() && asset.compiled_clips[c]) {
        asset.compiled_clips[c].reset();
        note << "; its compiled form, made for the old times, is dropped";
      }
      asset.warnings.push_back(note.str());
      asset.clips[c] = std::move(rescaled).value();
    }
    asset.rate_sources.resize(asset.clips.size(), RateSource::kFile);
    asset.rate_sources[c] = RateSource::kOption;
  }
  return {};
}

Result<Asset> read_asset(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error{path + ": is a directory, not a file"};
  if (!std::filesystem::exists(path, ec)) return Error{path + ": no such file"};
  if (!std::filesystem::is_regular_file(path, ec))
    return Error{path + ": not a regular file (a device, socket or pipe)"};
  const std::string ext = lower_extension(path);
  const io::FileKind content = io::sniff_file_kind(read_head(path));
  const io::FileKind named = io::kind_of_extension(ext);
  if (!io::fits(content, named)) return read_misnamed(content, path, ext, options);
  if (named != io::FileKind::kUnknown) return read_kind(named, path, options);
  if (is_assimp_extension(ext)) {
    return options.isolate_importers ? read_assimp_isolated(path, options)
                                     : read_assimp(path, options);
  }
  return Error{path + ": unsupported file type '" + ext +
               "' (marrow reads .gltf, .glb, .x, .bvh, .fbx, .dae, .md5mesh, .md5anim, .smd, .obj "
               "and .marrow)"};
}

}  // namespace

Result<Asset> load_asset(const std::string& path, const LoadOptions& options) {
  Result<Asset> asset = read_asset(path, options);
  if (asset && options.ticks_per_second > 0) {
    if (Status st = apply_rate_option(*asset, options.ticks_per_second); !st) return st.error();
  }
  return asset;
}

}  // namespace marrow
