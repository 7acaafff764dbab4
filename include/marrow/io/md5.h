/// @file
/// Doom 3's MD5 (.md5mesh, .md5anim), read by marrow itself. An .md5mesh holds the skeleton in
/// its bind pose and meshes skinned by weights; each animation is an .md5anim of its own, kept
/// beside the mesh. How the two meet, the conventions and the errors: docs/formats_md5_smd.md.
#pragma once

#include <string>
#include <string_view>

#include "marrow/io/asset.h"

namespace marrow {

/// Reads an .md5mesh: one joint per MD5 joint (file order), one SkinnedMesh per mesh with
/// vertices, and one Skin over every joint. With options.md5_anims_beside_mesh, every .md5anim
/// in the same folder whose joints are the mesh's (count, names, parents) becomes a clip named
/// after its file's stem; the others are named in the warnings. Errors name the file and line.
Result<Asset> read_md5mesh(const std::string& path, const LoadOptions& options = {});
/// From memory: `name` is used in messages; no .md5anim is looked for.
Result<Asset> read_md5mesh(std::string_view text, const std::string& name);

/// Reads an .md5anim on its own: a skeleton from its hierarchy with the base frame as the rest
/// pose, and one clip named after the file's stem (so it serves as a --clip-file).
Result<Asset> read_md5anim(const std::string& path);
Result<Asset> read_md5anim(std::string_view text, const std::string& name);

/// Adds the .md5anim `text` (named `name`) as one more clip of `asset`, read from an .md5mesh.
/// Fails, changing nothing, when its joints are not the mesh's: same count, and joint i with the
/// same name and parent.
Status add_md5anim(Asset& asset, std::string_view text, const std::string& name);

}  // namespace marrow
