/// @file
/// Skinned mesh data as importers deliver it. Influences per vertex are not capped: they are
/// stored strongest-first and normalized in a compressed row layout.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "marrow/math/mat4.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

/// A skin: the joints a mesh is bound to (a subset of the skeleton, in the skin's own order) and
/// their inverse bind matrices.
struct Skin {
  std::string name;
  std::vector<JointIndex> joints;           ///< skeleton joint of each skin joint
  std::vector<Mat4> inverse_bind_matrices;  ///< one per skin joint; identity where none was given
  JointIndex root_hint = kNoParent;         ///< glTF `skeleton`: a hint only
};

/// A morph target (blend shape): vertex deltas the target adds, scaled by its weight, to the
/// mesh's bind-pose attributes before skinning. Sparse: only the vertices the target moves are
/// listed (a face shape moves a few hundred of thousands of vertices).
struct MorphTarget {
  std::string name;  ///< glTF extras.targetNames, an FBX channel, a Collada target; may be empty
  /// The vertices the target moves, strictly increasing, and one delta per listed vertex.
  std::vector<std::uint32_t> vertices;
  std::vector<Vec3> position_deltas;
  std::vector<Vec3> normal_deltas;   ///< empty, or one per listed vertex
  std::vector<Vec3> tangent_deltas;  ///< empty, or one per listed vertex (xyz; w is never morphed)
};

struct SkinnedMesh {
  std::string name;
  JointIndex node = kNoParent;  ///< the joint (node) the mesh hangs under
  int skin = -1;                ///< index into the asset's skins; -1 for a rigid mesh
  int material = -1;            ///< index into the asset's materials; -1 for the default look

  std::vector<Vec3> positions;
  std::vector<Vec3> normals;                   ///< empty or one per vertex
  std::vector<std::array<float, 4>> tangents;  ///< xyz + handedness w; empty or one per vertex
  std::vector<std::array<float, 2>> uvs;       ///< first UV set; empty or one per vertex
  std::vector<std::array<float, 4>> colors;    ///< vertex colours (linear RGBA); empty or one each
  std::vector<std::uint32_t> indices;          ///< triangle list

  /// Influences of vertex v: [influence_offsets[v], influence_offsets[v + 1]) into the arrays
  /// below; joint indices refer to the skin's joint list. Empty for a rigid mesh.
  std::vector<std::uint32_t> influence_offsets;
  std::vector<std::uint16_t> influence_joints;
  std::vector<float> influence_weights;

  /// Morph targets, mixed by weights that live in the character's weight array at the slots of
  /// this mesh's node (skin/morph.h: MorphLayout); target t takes slot first + t.
  std::vector<MorphTarget> morph_targets;
  /// The weights the mesh shows when nothing animates them: empty (all 0) or one per target.
  std::vector<float> default_morph_weights;

  std::size_t vertex_count() const { return positions.size(); }
  std::size_t max_influences() const {
    std::size_t m = 0;
    for (std::size_t v = 0; v + 1 < influence_offsets.size(); ++v) {
      m = std::max<std::size_t>(m, influence_offsets[v + 1] - influence_offsets[v]);
    }
    return m;
  }
};

}  // namespace marrow
