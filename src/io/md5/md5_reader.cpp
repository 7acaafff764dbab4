// The MD5 entry points: an .md5mesh with the .md5anim files beside it, or an .md5anim alone.
#include <algorithm>
#include <filesystem>

#include "common/reader_support.h"
#include "marrow/io/md5.h"
#include "md5_internal.h"

namespace marrow {
namespace {

using md5::Md5Error;

std::string stem_of(const std::string& name, const char* fallback) {
  const std::string stem = std::filesystem::path(name).stem().string();
  return stem.empty() ? fallback : stem;
}

std::string_view as_text(const std::vector<std::uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Why `anim` does not fit `asset`'s skeleton, or nothing when joint i is the mesh's joint i.
std::optional<std::string> mismatch(const Asset& asset, const md5::Anim& anim,
                                    std::vector<JointIndex>& joint_of) {
  const std::size_t n = anim.joints.size();
  std::size_t mesh_joints = 0;
  for (std::int64_t s : asset.source_index) mesh_joints += s >= 0 ? 1 : 0;
  if (n != mesh_joints) {
    return "its " + std::to_string(n) + " joints are not the mesh's " + std::to_string(mesh_joints);
  }
  joint_of.assign(n, kNoParent);
  for (std::size_t i = 0; i < n; ++i) {
    const std::optional<JointIndex> joint = asset.joint_of_source(static_cast<std::int64_t>(i));
    if (!joint) return "the mesh has no joint " + std::to_string(i);
    joint_of[i] = *joint;
    const md5::JointRec& a = anim.joints[i];
    if (asset.skeleton.name(*joint) != a.name) {
      return "joint " + std::to_string(i) + " is '" + a.name + "' where the mesh has '" +
             asset.skeleton.name(*joint) + "'";
    }
    const JointIndex parent = asset.skeleton.parent(*joint);
    const JointIndex anim_parent = a.parent < 0 ? kNoParent : joint_of[a.parent];
    if (parent != anim_parent) {
      return "joint " + std::to_string(i) + " '" + a.name + "' has another parent than the mesh's";
    }
  }
  return std::nullopt;
}

Asset read_anim_document(std::string_view text, const std::string& name) {
  io::DocumentBudget budget(text.size());
  md5::Anim anim = md5::parse_anim(text, name, budget);
  anim.name = stem_of(name, "animation");
  Asset asset;
  asset.source = name;
  std::vector<JointDesc> descs(anim.joints.size());
  for (std::size_t j = 0; j < descs.size(); ++j) {
    descs[j].name = anim.joints[j].name;
    descs[j].parent = anim.joints[j].parent;
    descs[j].rest.translation = anim.base_position[j];
    descs[j].rest.rotation = anim.base_orientation[j];
  }
  Result<std::vector<JointIndex>> joints =
      io::build_asset_skeleton(asset, descs, name + ": hierarchy");
  if (!joints) throw Md5Error(joints.error().message);
  const std::vector<JointIndex> joint_of = std::move(joints).value();
  asset.clips.push_back(md5::build_anim_clip(anim, joint_of, asset.skeleton.size(), name, budget));
  return asset;
}

// Doom 3 keeps a model's animations in its folder: take those whose joints are the mesh's.
void add_anims_beside(Asset& asset, const std::string& mesh_path) {
  const std::filesystem::path folder = std::filesystem::path(mesh_path).parent_path();
  std::error_code ec;
  std::vector<std::filesystem::path> anims;
  for (std::filesystem::directory_iterator it(folder.empty() ? "." : folder, ec), end;
       !ec && it != end; it.increment(ec)) {
    std::string ext = it->path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == ".md5anim" && it->is_regular_file(ec)) anims.push_back(it->path());
  }
  std::sort(anims.begin(), anims.end());  // clips in a stable order
  for (const std::filesystem::path& p : anims) {
    const std::string name = p.string();
    Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(name);
    const Status st = bytes ? add_md5anim(asset, as_text(*bytes), name) : Status(bytes.error());
    if (!st) asset.warnings.push_back("not taken as a clip: " + st.error().message);
  }
}

}  // namespace

Result<Asset> read_md5mesh(std::string_view text, const std::string& name) {
  return io::catch_parse_errors<Md5Error>(name, [&] {
    io::DocumentBudget budget(text.size());
    return md5::read_mesh_document(text, name, budget);
  });
}

Result<Asset> read_md5mesh(const std::string& path, const LoadOptions& options) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  Result<Asset> asset = read_md5mesh(as_text(*bytes), path);
  if (asset && options.md5_anims_beside_mesh) add_anims_beside(*asset, path);
  return asset;
}

Result<Asset> read_md5anim(std::string_view text, const std::string& name) {
  return io::catch_parse_errors<Md5Error>(name, [&] { return read_anim_document(text, name); });
}

Result<Asset> read_md5anim(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  return read_md5anim(as_text(*bytes), path);
}

Status add_md5anim(Asset& asset, std::string_view text, const std::string& name) {
  Result<Clip> clip = io::catch_parse_errors<Md5Error>(name, [&]() -> Clip {
    io::DocumentBudget budget(text.size());
    md5::Anim anim = md5::parse_anim(text, name, budget);
    anim.name = stem_of(name, "animation");
    std::vector<JointIndex> joint_of;
    if (std::optional<std::string> why = mismatch(asset, anim, joint_of)) {
      throw Md5Error(name + ": does not fit the mesh's skeleton: " + *why);
    }
    return md5::build_anim_clip(anim, joint_of, asset.skeleton.size(), name, budget);
  });
  if (!clip) return clip.error();
  asset.clips.push_back(std::move(clip).value());
  asset.rate_sources.resize(asset.clips.size(), RateSource::kFile);
  return {};
}

}  // namespace marrow
