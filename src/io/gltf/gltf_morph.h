// glTF morph targets: a primitive's `targets` (POSITION, NORMAL, TANGENT deltas, dense or
// sparse accessors) with the mesh's default `weights`, the node's overriding `weights` and
// `extras.targetNames`, read into the SkinnedMesh as sparse MorphTargets. Failures throw
// GltfError naming the JSON path.
#pragma once

#include <string>

#include "accessors.h"
#include "marrow/skin/skinned_mesh.h"

namespace marrow::gltf {

// Reads the targets of primitive `prim` (at path `pp`) of mesh `mesh_json` (at `mp`) used by
// node `node_json` (at `np`) into `mesh`, whose positions (and normals, tangents) are read.
// Every primitive of a mesh must have the same number of targets (glTF 2.0 3.7.2.2).
void read_morph_targets(const Document& doc, const Json& mesh_json, const std::string& mp,
                        const Json& prim, const std::string& pp, const Json& node_json,
                        const std::string& np, SkinnedMesh& mesh,
                        std::vector<std::string>& warnings);

}  // namespace marrow::gltf
