/// @file
/// What every importer delivers: a skeleton, its clips and its skinned meshes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/clip/compiled_clip.h"
#include "marrow/io/material.h"
#include "marrow/skeleton/skeleton.h"
#include "marrow/skin/skinned_mesh.h"

namespace marrow {

/// Where a clip's ticks per second came from: the file itself, the format's default because the
/// file gives none (.X without AnimTicksPerSecond: 4800; SMD: 30; assimp's "not specified": 25),
/// or LoadOptions::ticks_per_second / --ticks-per-second.
enum class RateSource : std::uint8_t { kFile, kDefault, kOption };

/// "file", "default" or "option".
std::string_view rate_source_name(RateSource source);

struct Asset {
  std::string source;  ///< the file it came from, as named by the caller
  /// Every node of the source's hierarchy, parent-before-child (scene ancestors of the skin
  /// joints, mesh nodes and all), so global transforms are complete.
  Skeleton skeleton;
  /// Per joint: its index in the source file's node list (-1 for a joint the importer made).
  std::vector<std::int64_t> source_index;
  std::vector<Clip> clips;
  std::vector<Skin> skins;
  std::vector<SkinnedMesh> meshes;
  /// Surfaces: SkinnedMesh::material indexes `materials`, a material's texture `images`.
  std::vector<Material> materials;
  std::vector<MaterialImage> images;
  /// What the import changed or dropped, in words (e.g. "morph targets ignored").
  std::vector<std::string> warnings;
  /// Per clip, where its rate came from; empty, or shorter than `clips`, means kFile for the rest.
  /// The glTF writer and the archive keep it, so a guessed rate stays a guess after conversion
  /// (an archive older than version 4 reads as kFile).
  std::vector<RateSource> rate_sources;
  /// Per clip, its compiled form (clip/compiled_clip.h) when there is one: what an archive holds
  /// (docs/formats_archive.md) and `marrow compile` makes, so a game plays compact clips without
  /// compiling them at load. Empty, or shorter than `clips`, means none for the rest. Code that
  /// replaces or reorders `clips` must keep this parallel (or clear it); compiled_clip() refuses
  /// an entry that no longer fits its clip.
  std::vector<std::optional<CompiledClip>> compiled_clips;

  /// True when some skin uses the joint.
  bool is_skin_joint(JointIndex joint) const;
  /// The joint made from source node `index`, if any.
  std::optional<JointIndex> joint_of_source(std::int64_t index) const;
  /// A clip by name, or by its index written as a number.
  std::optional<std::size_t> find_clip(std::string_view name_or_index) const;
  /// find_clip, or an error naming the file, the clip asked for and the clips there are.
  Result<std::size_t> require_clip(std::string_view name_or_index) const;
  /// Each of `names` through require_clip, in the order given, once each (a clip named twice is
  /// kept once); every clip, in file order, when `names` is empty.
  Result<std::vector<std::size_t>> require_clips(std::span<const std::string> names) const;
  /// Keeps only the clips at `indices` (in that order) with their rate sources and compiled
  /// forms: what `convert --clip` and `compile --clip --out` write.
  void keep_clips(std::span<const std::size_t> indices);
  /// Where clip `clip`'s ticks per second came from.
  RateSource rate_source(std::size_t clip) const;
  /// Clip `clip`'s compiled form, or null when it has none (or the entry was made for another
  /// clip: another name, duration or joint count).
  const CompiledClip* compiled_clip(std::size_t clip) const;
};

/// How load_asset reads a file. A plain struct: every field has a default, and new fields keep
/// the old behaviour unless set.
struct LoadOptions {
  /// Formats read through assimp (FBX; Collada when read_assimp is called directly) are imported
  /// in a child process (the helper executable marrow-import-helper) with the limits below: a
  /// crash, hang or runaway allocation inside assimp becomes an error naming the file instead of
  /// taking the caller's process down. false imports them in this process.
  bool isolate_importers = true;
  /// The child's memory limit in bytes; 0: 1 GiB plus 32 bytes per byte of the file.
  std::uint64_t importer_memory_bytes = 0;
  /// The child's wall-clock limit in seconds.
  double importer_seconds = 120;
  /// The helper to run; empty: $MARROW_IMPORT_HELPER, then beside the running executable, then
  /// the build tree marrow was built in.
  std::string importer_helper;
  /// The rate of clips whose file gives none (.X without AnimTicksPerSecond, SMD, an assimp
  /// animation that says 0); 0 keeps each format's default. A rate the file gives always wins.
  /// A clip converted earlier at a default rate (marked so in a glTF's extras or an archive) is
  /// read again at this one: its times scaled by the old rate over this one.
  double ticks_per_second = 0;
  /// An .md5mesh also takes, as clips, the .md5anim files in its folder whose joint hierarchy is
  /// the mesh's (the way Doom 3 keeps a model's animations beside it; docs/formats_md5_smd.md).
  bool md5_anims_beside_mesh = true;
};

/// Reads any file marrow understands, choosing the importer by content and extension.
Result<Asset> load_asset(const std::string& path, const LoadOptions& options = {});

/// The extensions load_asset reads (lower case, with the dot: ".gltf", ".x", ...).
std::span<const std::string_view> readable_extensions();
/// Whether load_asset reads files with this path's extension (any case).
bool is_readable_extension(const std::string& path);

}  // namespace marrow
