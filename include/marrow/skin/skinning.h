// Deforming a mesh by its bones: palettes, linear blend skinning (LBS) and dual-quaternion
// skinning (DQS). A SkinningMesh is prepared once per mesh (setup, allocates); skinning a frame
// writes caller-owned spans and allocates nothing.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/math/mat4.h"
#include "marrow/skin/skinned_mesh.h"

namespace marrow {

// palette[i] = model[skin.joints[i]] * skin.inverse_bind_matrices[i], one per skin joint.
// Returns false, writing nothing, when a span is too short or a joint index is out of range.
bool compute_skinning_palette(const Skin& skin, std::span<const Mat4> model,
                              std::span<Mat4> palette);

enum class SkinningMethod { kLinear, kDualQuaternion };

// Where a frame's deformed vertices go, in the mesh's original vertex order. `normals` and
// `tangents` may be empty to skip them (they are also skipped when the mesh has none).
struct SkinningOutput {
  std::span<Vec3> positions;
  std::span<Vec3> normals;
  std::span<std::array<float, 4>> tangents;
};

// A skinned mesh laid out for fast skinning (vertices grouped by influence count,
// structure of arrays). Built once; shared by every character that uses the mesh.
class SkinningMesh {
 public:
  // max_influences = 0 keeps every influence; N > 0 keeps the N strongest per vertex and
  // renormalizes. Errors name the mesh and the vertex (joint index out of the skin's range,
  // non-finite weight, no influences on a skinned vertex).
  static Result<SkinningMesh> build(const SkinnedMesh& mesh, std::size_t skin_joint_count,
                                    std::size_t max_influences = 0);

  std::size_t vertex_count() const;
  bool has_normals() const;
  bool has_tangents() const;

  // Implementation detail for the kernels; see src/skin/.
  struct Data;
  const Data& data() const { return *data_; }

  SkinningMesh(SkinningMesh&&) noexcept;
  SkinningMesh& operator=(SkinningMesh&&) noexcept;
  ~SkinningMesh();

 private:
  SkinningMesh();
  std::unique_ptr<Data> data_;
};

// Skins the vertices in slots [begin, end) of the prepared layout (0, vertex_count() for all);
// each result is written at its vertex's original index, so disjoint ranges write disjoint
// outputs and may run on different threads at once. Returns false, writing nothing, when a
// check fails (palette too short, output spans shorter than vertex_count(), bad range).
bool skin(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
          SkinningOutput out, std::size_t begin, std::size_t end);

inline bool skin(const SkinningMesh& mesh, std::span<const Mat4> palette, SkinningMethod method,
                 SkinningOutput out) {
  return skin(mesh, palette, method, out, 0, mesh.vertex_count());
}

}  // namespace marrow
