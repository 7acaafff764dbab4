// Blend shapes through assimp (FBX): an aiMesh's aiAnimMeshes become sparse MorphTargets, an
// aiAnimation's aiMeshMorphAnim channels become weight tracks. docs/formats_assimp.md says what
// assimp gives and what this layer does with it.
#pragma once

#include <assimp/anim.h>
#include <assimp/mesh.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "marrow/clip/clip_builder.h"
#include "marrow/skin/morph.h"

namespace marrow::assimp_detail {

// The targets of `src` (assimp stores whole replacement vertices: deltas are taken against the
// mesh's own, and only vertices that move are kept). Errors name `where` and the anim mesh.
Status read_anim_meshes(const aiMesh* src, const std::string& where, SkinnedMesh& mesh);

// Adds one weight track per animated target of each morph channel of `anim` (times divided by
// `ticks_per_second`). A channel is named "<node>*<geometry index>" by assimp's FBX importer;
// `joint_of_node` finds the node's joint, `layout` its slots. A channel whose node has no
// targets, or a key naming a target the node lacks, is an error naming `where`.
Status read_morph_channels(
    const aiAnimation* anim, double ticks_per_second, const std::string& where,
    const std::function<std::optional<JointIndex>(const std::string&)>& joint_of_node,
    const MorphLayout& layout, ClipBuilder& builder, std::vector<std::string>& warnings);

}  // namespace marrow::assimp_detail
