// The fast skinning path: picks the SIMD level's kernels at run time (include/marrow/math/simd.h)
// and hands them a group's slot range as plain pointers (skinning_simd.h). The kernels
// themselves are skinning_simd_kernels.h, compiled once per level.
#include "skin/skinning_simd.h"

#include <cstddef>

#include "math/simd/dispatch.h"
#include "skin/skinning_kernels.h"

namespace marrow::skin_detail {

static_assert(sizeof(Mat4) == kMat4Floats * sizeof(float), "a Mat4 is 16 floats");
static_assert(sizeof(DqsJoint) == kDqsJointFloats * sizeof(float) &&
                  offsetof(DqsJoint, stretch) == 8 * sizeof(float) &&
                  offsetof(DualQuat, dual) == 4 * sizeof(float),
              "a DqsJoint is real, dual, then the 9 stretch floats");
static_assert(sizeof(Vec3) == 3 * sizeof(float) &&
                  sizeof(std::array<float, 4>) == 4 * sizeof(float),
              "vertices are packed floats");

const SkinKernels& skin_kernels() {
  return simd::active_kernels(MARROW_KERNEL_LEVELS(SkinKernels));
}

}  // namespace marrow::skin_detail

namespace marrow::detail {

namespace {

skin_detail::GroupArgs group_args(const KernelArgs& a,
                                  const skin_detail::SkinningMeshData::Group& g, std::size_t s0,
                                  std::size_t s1) {
  const skin_detail::SkinningMeshData& d = *a.mesh;
  const std::size_t first = g.first_influence + (s0 - g.begin) * g.influences;
  // The bind pose comes from the arguments: the mesh's own, or morphed vertices (skin/morph.h).
  return {s1 - s0,
          g.influences,
          &a.bind_positions[s0].x,
          a.normals ? &a.bind_normals[s0].x : nullptr,
          a.tangents ? a.bind_tangents[s0].data() : nullptr,
          d.joints.data() + first,
          d.weights.data() + first,
          d.original_index.data() + s0,
          &a.positions[0].x,
          a.normals ? &a.normals[0].x : nullptr,
          a.tangents ? a.tangents[0].data() : nullptr,
          a.linear_vectors};
}

}  // namespace

void lbs_simd(const KernelArgs& a, const float* palette,
              const skin_detail::SkinningMeshData::Group& g, std::size_t s0, std::size_t s1) {
  skin_detail::skin_kernels().lbs(group_args(a, g, s0, s1), palette);
}

void dqs_simd(const KernelArgs& a, const DqsJoint* palette, bool rigid,
              const skin_detail::SkinningMeshData::Group& g, std::size_t s0, std::size_t s1) {
  skin_detail::skin_kernels().dqs(group_args(a, g, s0, s1), &palette->dq.real.x, rigid);
}

}  // namespace marrow::detail
