// Kernel plumbing shared by the scalar and SIMD paths. Private to src/skin.
#pragma once

#include <cmath>

#include "skin/skinning_data.h"

namespace marrow::detail {

// What one kernel call needs: the prepared mesh, where to write, and which attributes.
struct KernelArgs {
  const skin_detail::SkinningMeshData* mesh;
  Vec3* positions;
  Vec3* normals;                   // null to skip
  std::array<float, 4>* tangents;  // null to skip
  // The bind pose, in slot order: the mesh's own, or morphed vertices (skin/morph.h).
  const Vec3* bind_positions;
  const Vec3* bind_normals;
  const std::array<float, 4>* bind_tangents;
  // NormalTransform::kLinearUnnormalized: normals and tangents by the blended 3x3, as they come.
  bool linear_vectors;
};

inline KernelArgs make_args(const skin_detail::SkinningMeshData& d, const SkinningOutput& out) {
  return {&d,
          out.positions.data(),
          d.has_normals && !out.normals.empty() ? out.normals.data() : nullptr,
          d.has_tangents && !out.tangents.empty() ? out.tangents.data() : nullptr,
          d.positions.data(),
          d.normals.data(),
          d.tangents.data(),
          out.normal_transform == NormalTransform::kLinearUnnormalized};
}

// Vertices with no influence (a group of 0): written as stored, normals and tangents
// renormalized like every other output unless linear_vectors (skinning_scalar.cpp).
void copy_unweighted(const KernelArgs& a, const skin_detail::SkinningMeshData::Group& g,
                     std::size_t s0, std::size_t s1);

// Calls f(group, first_slot, end_slot) for each group's part of [begin, end); the group of 0
// influences, if any, is copied instead.
template <typename F>
void for_each_group_range(const skin_detail::SkinningMeshData& d, const KernelArgs& args,
                          std::size_t begin, std::size_t end, F&& f) {
  for (const skin_detail::SkinningMeshData::Group& g : d.groups) {
    const std::size_t b = std::max(begin, g.begin), e = std::min(end, g.end);
    if (b >= e) continue;
    if (g.influences == 0)
      copy_unweighted(args, g, b, e);
    else
      f(g, b, e);
  }
}

// v scaled to unit length; zero when v is (nearly) zero.
inline Vec3 normalized_or_zero(Vec3 v) {
  const float n2 = dot(v, v);
  return n2 > 1e-30f ? v * (1.0f / std::sqrt(n2)) : Vec3{};
}

// Scalar kernels (skinning_scalar.cpp).
void lbs_scalar(const KernelArgs& a, const Mat4* palette,
                const skin_detail::SkinningMeshData::Group& g, std::size_t s0, std::size_t s1);
void dqs_scalar(const KernelArgs& a, const DqsJoint* palette,
                const skin_detail::SkinningMeshData::Group& g, std::size_t s0, std::size_t s1);
// DQS straight from matrices, converting each influence's matrix on the fly (slow path for
// palettes too large for the stack buffer).
void dqs_scalar_from_matrices(const KernelArgs& a, const Mat4* palette,
                              const skin_detail::SkinningMeshData::Group& g, std::size_t s0,
                              std::size_t s1);

// SIMD kernels (skinning_simd.cpp: the level simd.h chose, skinning_simd_kernels.h); same
// results as the scalar ones to float rounding.
// palette: 16 floats per joint, column-major Mat4s.
void lbs_simd(const KernelArgs& a, const float* palette,
              const skin_detail::SkinningMeshData::Group& g, std::size_t s0, std::size_t s1);
// rigid: every joint of the palette has an identity stretch (see all_rigid).
void dqs_simd(const KernelArgs& a, const DqsJoint* palette, bool rigid,
              const skin_detail::SkinningMeshData::Group& g, std::size_t s0, std::size_t s1);

// True when every joint's stretch is exactly the identity (compute_dual_quat_palette snaps
// rounding noise to it), so DQS may skip the stretch.
inline bool all_rigid(const DqsJoint* palette, std::size_t n) {
  constexpr std::array<float, 9> kIdentity{1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (std::size_t i = 0; i < n; ++i)
    if (palette[i].stretch != kIdentity) return false;
  return true;
}

}  // namespace marrow::detail
