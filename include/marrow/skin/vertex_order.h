/// @file
/// Reordering a mesh's vertices for skinning. SkinningMesh groups vertices by influence count and
/// writes each result back at its vertex's original index; when a mesh's vertices of one count are
/// not already consecutive, nearly every block of 8 scatters its outputs (Soldier.glb's body: 1
/// block in 914 is consecutive). Reordering the mesh once, offline or at load, as ozz-animation's
/// mesh converter does, makes every full block write 8 consecutive vertices. The picture is the
/// same: every triangle keeps its corners, every attribute and morph delta follows its vertex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "marrow/skin/skinned_mesh.h"

namespace marrow {

/// Reorders `mesh` in place by its vertices' influence counts (as SkinningMesh::build counts them
/// with the same max_influences: weights above zero, capped; unweighted vertices first), stably,
/// and returns for each new vertex its old index. Positions, normals, tangents, UVs, colours,
/// influences, triangle indices and morph targets are all permuted; nothing is added or lost. A
/// rigid mesh (no influences) or one already in order is left as it is (the identity is returned).
/// An index past the vertex count is left for SkinningMesh::build and the renderer to refuse.
std::vector<std::uint32_t> order_vertices_for_skinning(SkinnedMesh& mesh,
                                                       std::size_t max_influences = 0);

}  // namespace marrow
