/// @file
/// Deforming a mesh by its bones: palettes, linear blend skinning (LBS) and dual-quaternion
/// skinning (DQS). A SkinningMesh is prepared once per mesh (setup, allocates); skinning a frame
/// writes caller-owned spans and allocates nothing. docs/skinning.md explains the layout, the
/// palettes, how DQS treats scale, and how to run the kernels on several threads.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/math/dual_quat.h"
#include "marrow/math/mat4.h"
#include "marrow/skin/skinned_mesh.h"

namespace marrow {

/// palette[i] = model[skin.joints[i]] * skin.inverse_bind_matrices[i], one per skin joint.
/// Returns false, writing nothing, when a span is too short or a joint index is out of range.
bool compute_skinning_palette(const Skin& skin, std::span<const Mat4> model,
                              std::span<Mat4> palette);

/// One joint of a dual-quaternion palette. The palette matrix M = [R | t] * [S | 0] is split into
/// a rigid part (the unit dual quaternion `dq` of R and t, R the closest rotation to M's 3x3 by
/// polar decomposition) and the remaining 3x3 `stretch` S = R^T * M3x3 (scale and shear,
/// column-major, identity for a rigid joint). DQS blends the stretches linearly, applies the
/// blend to the bind vertex first, then blends and applies the rigid parts as dual quaternions
/// (Kavan et al. 2008, section "non-rigid transformations"). A reflection (negative determinant)
/// stays in S.
struct DqsJoint {
  DualQuat dq;
  std::array<float, 9> stretch{1, 0, 0, 0, 1, 0, 0, 0, 1};
};

/// The split of one palette matrix (see DqsJoint).
DqsJoint dqs_joint_from_matrix(const Mat4& m);

/// dq_palette[i] from palette[i]. Returns false, writing nothing, when dq_palette is shorter than
/// palette. Call it once per frame and pass the result to every skin() call of that frame.
bool compute_dual_quat_palette(std::span<const Mat4> palette, std::span<DqsJoint> dq_palette);

/// Palettes for a GPU, written into caller spans.
/// 3x4 row-major: joint i occupies out[12 i .. 12 i + 11] = rows (m00 m01 m02 m03)(m10 ...)(m20
/// ...) of its affine matrix, the layout of a GLSL `mat3x4`-as-rows / HLSL `float3x4` array.
/// Returns false, writing nothing, when out holds fewer than 12 * palette.size() floats.
bool write_palette_rows_3x4(std::span<const Mat4> palette, std::span<float> out);
/// Dual quaternions: joint i occupies dual_quats[8 i .. 8 i + 7] = real (x y z w), dual (x y z w).
/// When `stretch_rows_3x4` is not empty it receives each joint's stretch S as a 3x4 row-major
/// matrix with a zero last column (12 floats per joint), so a shader can apply S p first.
/// Returns false, writing nothing, when a non-empty output span is too short.
bool write_palette_dual_quats(std::span<const DqsJoint> dq_palette, std::span<float> dual_quats,
                              std::span<float> stretch_rows_3x4 = {});

enum class SkinningMethod { kLinear, kDualQuaternion };

/// How skin() transforms normals and tangents (tangent w, the handedness, is always kept).
enum class NormalTransform {
  /// Normals by the inverse transpose of the blended 3x3, tangents by the blended 3x3, both
  /// renormalized: right under non-uniform scale and shear too. The default, and the reference.
  kExact,
  /// Normals and tangents by the blended 3x3 alone, not renormalized: the right direction for
  /// rotations and uniform scale only, and a length that is not 1 (blending shortens it, scale
  /// stretches it), for renderers that normalize anyway. The work ozz-animation's SkinningJob
  /// does without inverse-transpose matrices; with normals, LBS about 1.2x and DQS 1.1x as fast
  /// (docs/skinning.md).
  kLinearUnnormalized,
};

/// Where a frame's deformed vertices go, in the mesh's original vertex order. `normals` and
/// `tangents` may be empty to skip them (they are also skipped when the mesh has none).
struct SkinningOutput {
  std::span<Vec3> positions;
  std::span<Vec3> normals;
  std::span<std::array<float, 4>> tangents;
  NormalTransform normal_transform = NormalTransform::kExact;
};

/// An axis-aligned box; empty() when nothing was added.
struct Aabb {
  Vec3 min{std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
           std::numeric_limits<float>::infinity()};
  Vec3 max{-std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
           -std::numeric_limits<float>::infinity()};

  bool empty() const { return !(min.x <= max.x && min.y <= max.y && min.z <= max.z); }
  void extend(Vec3 p) {
    min = {std::min(min.x, p.x), std::min(min.y, p.y), std::min(min.z, p.z)};
    max = {std::max(max.x, p.x), std::max(max.y, p.y), std::max(max.z, p.z)};
  }
  void extend(const Aabb& b) {
    if (b.empty()) return;
    extend(b.min);
    extend(b.max);
  }
};

/// A skinned mesh laid out for fast skinning (vertices grouped by influence count,
/// structure of arrays). Built once; shared by every character that uses the mesh.
/// What SkinningMesh::build does with a vertex that has no weight above zero (invalid in every
/// format, but found in real .X files): refuse the mesh, or let the vertex keep its stored
/// position, normal and tangent in every frame (as if bound to an identity palette entry).
enum class UnweightedVertices { kError, kKeepBindPosition };

class SkinningMesh;
namespace skin_detail {
struct SkinningMeshData;  ///< the kernels' layout: src/skin/skinning_data.h
inline const SkinningMeshData& data_of(const SkinningMesh& mesh);
}  // namespace skin_detail

class SkinningMesh {
 public:
  /// max_influences = 0 keeps every influence; N > 0 keeps the N strongest per vertex and
  /// renormalizes. Zero weights are dropped and every vertex's weights are renormalized to sum
  /// to 1. Errors name the mesh and the vertex (joint index out of the skin's range, non-finite
  /// or negative weight, no influences on a skinned vertex unless `unweighted` says to keep it,
  /// attribute counts that disagree).
  static Result<SkinningMesh> build(const SkinnedMesh& mesh, std::size_t skin_joint_count,
                                    std::size_t max_influences = 0,
                                    UnweightedVertices unweighted = UnweightedVertices::kError);

  std::size_t vertex_count() const;
  std::size_t skin_joint_count() const;
  std::size_t max_influences() const;
  bool has_normals() const;
  bool has_tangents() const;

  SkinningMesh(SkinningMesh&&) noexcept;
  SkinningMesh& operator=(SkinningMesh&&) noexcept;
  ~SkinningMesh();

 private:
  friend const skin_detail::SkinningMeshData& skin_detail::data_of(const SkinningMesh&);
  using Data = skin_detail::SkinningMeshData;
  SkinningMesh();
  std::unique_ptr<Data> data_;
};

struct MorphedVertices;  // morph.h

/// `SkinningJob::end` for "to the last vertex".
inline constexpr std::size_t kAllVertices = std::numeric_limits<std::size_t>::max();

/// One frame's skinning of a mesh, or of a range of its vertices, as a job: the mesh, a palette
/// and the method in, the deformed vertices out. Skins the vertices in slots [begin, end) of the
/// prepared layout; each result is written at its vertex's original index, so disjoint ranges
/// write disjoint outputs and may run on different threads at once. run() allocates nothing,
/// takes no lock and throws nothing; the SIMD level is chosen at run time (simd.h).
struct SkinningJob {
  const SkinningMesh* mesh = nullptr;
  SkinningMethod method = SkinningMethod::kLinear;
  /// One matrix per skin joint (compute_skinning_palette). kDualQuaternion converts it on every
  /// run (on the stack up to 256 joints, per influence beyond): when skinning in pieces, convert
  /// once with compute_dual_quat_palette and give `dq_palette` instead.
  std::span<const Mat4> palette{};
  /// A dual-quaternion palette (compute_dual_quat_palette); when given, `palette` is not read and
  /// `method` must be kDualQuaternion.
  std::span<const DqsJoint> dq_palette{};
  /// Optional: morphed bind-pose vertices (MorphedVertices::create from a MorphMesh built with
  /// this mesh, then MorphJob) read instead of the mesh's stored ones.
  const MorphedVertices* bind = nullptr;
  SkinningOutput output{};
  std::size_t begin = 0;           ///< the first vertex slot
  std::size_t end = kAllVertices;  ///< one past the last slot; kAllVertices: vertex_count()

  /// An error naming the first wrong input, checked in this order ("SkinningJob:
  /// output.normals: is neither empty nor one per vertex"), or ok:
  /// - `mesh`: null;
  /// - `method`: neither kLinear nor kDualQuaternion, or not kDualQuaternion while `dq_palette`
  ///   is given;
  /// - `dq_palette` when given, else `palette`: shorter than the mesh's skin_joint_count();
  /// - `bind`: given, and not made for this mesh's vertex order, or too short;
  /// - `output.positions`: shorter than vertex_count();
  /// - `output.normals`, `output.tangents`: neither empty nor one per vertex;
  /// - `begin`: past `end` (or past vertex_count() when `end` is kAllVertices);
  /// - `end`: neither kAllVertices nor at most vertex_count().
  Status validate() const;
  /// The SIMD kernels; returns false, writing nothing, when validate() fails.
  bool run() const;
  /// The scalar kernels over the same layout: the reference run() is tested against.
  bool run_reference() const;
};

/// SkinningJob as a call, for the common cases: the matrix palette and a slot range.
bool skin(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
          SkinningOutput out, std::size_t begin, std::size_t end);

inline bool skin(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
                 SkinningOutput out) {
  return skin(mesh, palette, method, out, 0, mesh.vertex_count());
}

/// SkinningJob with a dual-quaternion palette from compute_dual_quat_palette().
bool skin(const SkinningMesh& mesh, std::span<const DqsJoint> dq_palette, SkinningOutput out,
          std::size_t begin, std::size_t end);

/// SkinningJob::run_reference as calls: the scalar kernels. Same contract as skin().
bool skin_reference(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
                    SkinningOutput out, std::size_t begin, std::size_t end);
bool skin_reference(const SkinningMesh& mesh, std::span<const DqsJoint> dq_palette,
                    SkinningOutput out, std::size_t begin, std::size_t end);

/// Skins the whole mesh on a caller-owned executor: any object with
/// @code
///   void parallel_for(std::size_t task_count, F&& task)   // calls task(i) for every i, waits
/// @endcode
/// (the runtime owns no threads). Vertices are cut into ranges of `grain` slots.
template <typename Executor, typename Palette>
bool skin_parallel(Executor& executor, const SkinningMesh& mesh, std::span<const Palette> palette,
                   SkinningMethod method, SkinningOutput out, std::size_t grain = 8192) {
  SkinningJob whole{&mesh, method, {}, {}, nullptr, out};
  if constexpr (std::is_same_v<Palette, DqsJoint>) {
    whole.method = SkinningMethod::kDualQuaternion;
    whole.dq_palette = palette;
  } else {
    whole.palette = palette;
  }
  if (!whole.validate() || grain == 0) return false;
  const std::size_t n = mesh.vertex_count();
  const std::size_t tasks = (n + grain - 1) / grain;
  executor.parallel_for(tasks, [&](std::size_t t) {
    SkinningJob piece = whole;
    piece.begin = t * grain;
    piece.end = std::min(n, piece.begin + grain);
    (void)piece.run();
  });
  return true;
}

/// Bounds for culling.
/// The box around a frame's skinned positions (exact, one pass over them).
Aabb compute_bounds(std::span<const Vec3> positions);
/// A cheaper box from the per-joint bind-space boxes SkinningMesh::build records: the union of
/// each used joint's box transformed by its palette matrix (8 corners). It contains every
/// linear-blend skinned position (each is a convex combination of palette[j] * v with v in joint
/// j's box); for DQS it is a close estimate, not a guarantee. Returns an empty box when the
/// palette is shorter than skin_joint_count().
Aabb conservative_skinned_bounds(const SkinningMesh& mesh, std::span<const Mat4> palette);

}  // namespace marrow
