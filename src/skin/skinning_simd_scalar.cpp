// The SIMD skinning kernels for the scalar level (see skinning_simd_kernels.h and
// src/math/simd/README.md).
#include "math/simd/lanes_scalar.h"
// One function per range and tail of blocks (skinning_simd_kernels.h says why).
#define MARROW_SKIN_OUTLINE_BLOCKS
#include "skin/skinning_simd.h"
#include "skin/skinning_simd_kernels.h"

namespace marrow::skin_detail {

const SkinKernels kScalarSkinKernels = {&lbs<simd::scalar::F>, &dqs<simd::scalar::F>};

}  // namespace marrow::skin_detail
