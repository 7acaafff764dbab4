// What every importer delivers: a skeleton, its clips and its skinned meshes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/io/material.h"
#include "marrow/skeleton/skeleton.h"
#include "marrow/skin/skinned_mesh.h"

namespace marrow {

struct Asset {
  std::string source;  // the file it came from, as named by the caller
  // Every node of the source's hierarchy, parent-before-child (scene ancestors of the skin
  // joints, mesh nodes and all), so global transforms are complete.
  Skeleton skeleton;
  // Per joint: its index in the source file's node list (-1 for a joint the importer made).
  std::vector<std::int64_t> source_index;
  std::vector<Clip> clips;
  std::vector<Skin> skins;
  std::vector<SkinnedMesh> meshes;
  // Surfaces: SkinnedMesh::material indexes `materials`, a material's texture `images`.
  std::vector<Material> materials;
  std::vector<MaterialImage> images;
  // What the import changed or dropped, in words (e.g. "morph targets ignored").
  std::vector<std::string> warnings;

  // True when some skin uses the joint.
  bool is_skin_joint(JointIndex joint) const;
  // The joint made from source node `index`, if any.
  std::optional<JointIndex> joint_of_source(std::int64_t index) const;
  // A clip by name, or by its index written as a number.
  std::optional<std::size_t> find_clip(std::string_view name_or_index) const;
};

// Reads any file marrow understands, choosing the importer by content and extension.
Result<Asset> load_asset(const std::string& path);

// The extensions load_asset reads (lower case, with the dot: ".gltf", ".x", ...).
std::span<const std::string_view> readable_extensions();
// Whether load_asset reads files with this path's extension (any case).
bool is_readable_extension(const std::string& path);

}  // namespace marrow
