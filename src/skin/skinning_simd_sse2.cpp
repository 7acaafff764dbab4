// The SIMD skinning and morph kernels for the sse2 level (see skinning_simd_kernels.h,
// morph_kernels.h and src/math/simd/README.md).
#include <immintrin.h>
#include "math/simd/lanes_sse2.h"
#include "skin/morph_kernels.h"
#include "skin/skinning_simd.h"
#include "skin/skinning_simd_kernels.h"

namespace marrow::skin_detail {

const SkinKernels kSse2SkinKernels = {&lbs<simd::sse2::F>, &dqs<simd::sse2::F>,
                                      &morph_group<simd::sse2::F>};

}  // namespace marrow::skin_detail
