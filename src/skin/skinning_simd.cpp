// The fast kernels. For now they forward to the scalar ones.
#include "skin/skinning_kernels.h"

namespace marrow::detail {

void lbs_simd(const KernelArgs& a, const Mat4* palette, const SkinningMesh::Data::Group& g,
              std::size_t s0, std::size_t s1) {
  lbs_scalar(a, palette, g, s0, s1);
}

void dqs_simd(const KernelArgs& a, const DqsJoint* palette, const SkinningMesh::Data::Group& g,
              std::size_t s0, std::size_t s1) {
  dqs_scalar(a, palette, g, s0, s1);
}

}  // namespace marrow::detail
