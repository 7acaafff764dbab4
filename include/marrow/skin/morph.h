/// @file
/// Morph targets (blend shapes) at run time: where a character's weights live (MorphLayout), a
/// mesh's targets laid out for fast application (MorphMesh), the per-frame job that mixes them
/// into the bind-pose vertices (MorphJob), and skinning those morphed vertices. Setup allocates;
/// MorphJob::run and skin() over MorphedVertices allocate nothing. docs/morph_targets.md has the
/// whole pipeline with an example.
///
/// A frame of a character with a face:
/// @code
///   sample_weights(clip, layout.default_weights(), t, cursor, weights);   // clip/sampling.h
///   (blend weights with BlendJob::morph_* like joints)                      // pose/blend.h
///   MorphJob{&morph_mesh, weights.subspan(first, targets), &morphed}.run();
///   skin(skinning_mesh, morphed, palette, SkinningMethod::kLinear, out, 0, n);
/// @endcode
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/skin/skinned_mesh.h"
#include "marrow/skin/skinning.h"

namespace marrow {

/// A target made sparse from dense deltas (one per vertex; normal and tangent spans may be
/// empty): vertices whose deltas are all exactly zero are left out.
MorphTarget make_sparse_target(std::string name, std::span<const Vec3> position_deltas,
                               std::span<const Vec3> normal_deltas = {},
                               std::span<const Vec3> tangent_deltas = {});

/// Checks a mesh's targets: vertices strictly increasing and inside the mesh, one finite delta
/// per listed vertex, normal/tangent deltas empty or complete, default weights empty or one per
/// target and finite. Errors name the mesh, the target and the vertex.
Status validate_morph_targets(const SkinnedMesh& mesh);

/// The morph-weight array of a character: one range of slots per node that carries meshes with
/// targets, in node order; target t of a mesh on that node takes slot first + t. A node's range is
/// as long as its mesh with the most targets (glTF gives all primitives of a mesh the same
/// number). Names and default weights come from the first mesh of the node that gives them.
class MorphLayout {
 public:
  static MorphLayout build(std::span<const SkinnedMesh> meshes);

  std::span<const MorphSlots> slots() const { return slots_; }
  std::size_t weight_count() const { return default_weights_.size(); }
  /// Per slot: the weight shown when nothing animates it, and the target's name ("" if none).
  std::span<const float> default_weights() const { return default_weights_; }
  std::span<const std::string> names() const { return names_; }
  /// The slots of a node, or null when none of its meshes has targets.
  const MorphSlots* find(JointIndex node) const;
  /// The weights of `mesh`'s targets inside a full weight array (empty when it has none).
  std::span<const float> weights_of(const SkinnedMesh& mesh, std::span<const float> weights) const;
  /// The slots a user names: every slot whose target is called `name` (two meshes of one face
  /// often share target names), or the one slot "#N". An error names the targets there are.
  Result<std::vector<std::uint32_t>> find_slots(std::string_view name) const;

 private:
  std::vector<MorphSlots> slots_;
  std::vector<float> default_weights_;
  std::vector<std::string> names_;
};

/// A mesh's targets laid out for MorphJob (built once per mesh, shared by every character that
/// uses it): vertex-major, each moved vertex with the deltas of the targets that move it, vertices
/// grouped by that count so the kernel's inner loop has a fixed length.
class MorphMesh;
namespace skin_detail {
struct MorphMeshData;  ///< the kernels' layout: src/skin/morph_data.h
inline const MorphMeshData& data_of(const MorphMesh& mesh);
}  // namespace skin_detail

class MorphMesh {
 public:
  /// Fails on what validate_morph_targets refuses. With `skinning` (built from the same mesh),
  /// vertices are kept in its slot order, which is what skin() over MorphedVertices reads;
  /// without it, in the mesh's own order (rigid meshes).
  static Result<MorphMesh> build(const SkinnedMesh& mesh, const SkinningMesh* skinning = nullptr);

  std::size_t vertex_count() const;
  std::size_t target_count() const;
  /// Vertices some target moves: the only ones MorphJob::run writes.
  std::size_t moved_vertex_count() const;
  bool has_normals() const;   ///< the mesh has normals (morphed when some target has deltas)
  bool has_tangents() const;  ///< the mesh has tangents

  MorphMesh(MorphMesh&&) noexcept;
  MorphMesh& operator=(MorphMesh&&) noexcept;
  ~MorphMesh();

 private:
  friend const skin_detail::MorphMeshData& skin_detail::data_of(const MorphMesh&);
  using Data = skin_detail::MorphMeshData;
  MorphMesh();
  std::unique_ptr<Data> data_;
};

/// One character's morphed bind-pose vertices, in the MorphMesh's order (slot order for skinned
/// meshes, with one element of padding for the skinning kernels' 4-float loads). create()
/// allocates and fills every vertex with the mesh's own; MorphJob then rewrites only the moved
/// ones each frame, so the others keep their value without being touched.
struct MorphedVertices {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;                   ///< empty when the mesh has none
  std::vector<std::array<float, 4>> tangents;  ///< empty when the mesh has none
  const void* order = nullptr;                 ///< which vertex order (checked by skin())

  static MorphedVertices create(const MorphMesh& mesh);
};

/// out = base + sum over targets of weight[t] * delta[t], for positions, normals and tangents
/// (xyz; handedness kept). Normals and tangents are not renormalized here: skinning does it.
/// Weights are used as given (not clamped, not normalized), as glTF defines them.
struct MorphJob {
  const MorphMesh* mesh = nullptr;
  std::span<const float> weights{};   ///< one per target of the mesh (at least target_count())
  MorphedVertices* output = nullptr;  ///< from MorphedVertices::create(*mesh)

  /// An error naming the first wrong input, checked in this order ("MorphJob: weights[2]: is not
  /// finite"), or ok:
  /// - `mesh`, then `output`: null;
  /// - `weights`: shorter than the mesh's target_count(); `weights[t]`: not finite;
  /// - `output`: not made by MorphedVertices::create for this mesh (another vertex order, or
  ///   arrays too short).
  Status validate() const;
  /// The SIMD kernel (runtime-dispatched, like skinning); returns false, writing nothing, when
  /// validate() fails. Touches only the moved vertices.
  bool run() const;
  /// The scalar kernel over the same layout: what run() is tested against.
  bool run_reference() const;
};

/// The plain definition, straight from the SkinnedMesh and in its vertex order: every vertex
/// copied, then each target's listed vertices added to. Independent of MorphMesh, for tests.
/// Output spans: positions one per vertex; normals/tangents empty to skip, else one per vertex.
bool apply_morphs_reference(const SkinnedMesh& mesh, std::span<const float> weights,
                            std::span<Vec3> positions, std::span<Vec3> normals = {},
                            std::span<std::array<float, 4>> tangents = {});

/// Skinning of morphed vertices: SkinningJob with `bind` set, as calls (skin() in skinning.h with
/// the bind pose read from MorphedVertices created from a MorphMesh built with this SkinningMesh).
/// Returns false, writing nothing, when SkinningJob::validate() fails.
bool skin(const SkinningMesh& mesh, const MorphedVertices& bind, std::span<const Mat4> palette,
          SkinningMethod method, SkinningOutput out, std::size_t begin, std::size_t end);
bool skin_reference(const SkinningMesh& mesh, const MorphedVertices& bind,
                    std::span<const Mat4> palette, SkinningMethod method, SkinningOutput out,
                    std::size_t begin, std::size_t end);

}  // namespace marrow
