// The SIMD skinning and morph kernels for the scalar level (see skinning_simd_kernels.h,
// morph_kernels.h and src/math/simd/README.md).
#include "math/simd/lanes_scalar.h"
// One function per range and tail of blocks (skinning_simd_kernels.h says why).
#define MARROW_SKIN_OUTLINE_BLOCKS
#include "skin/morph_kernels.h"
#include "skin/skinning_simd.h"
#include "skin/skinning_simd_kernels.h"

namespace marrow::skin_detail {

const SkinKernels kScalarSkinKernels = {&lbs<simd::scalar::F>, &dqs<simd::scalar::F>,
                                        &morph_group<simd::scalar::F>};

}  // namespace marrow::skin_detail
