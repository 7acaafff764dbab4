// The SIMD skinning and morph kernels for the avx2 level (see skinning_simd_kernels.h,
// morph_kernels.h and src/math/simd/README.md).
#include <immintrin.h>
#include "math/simd/lanes_avx2.h"
#include "skin/morph_kernels.h"
#include "skin/skinning_simd.h"
#include "skin/skinning_simd_kernels.h"

namespace marrow::skin_detail {

const SkinKernels kAvx2SkinKernels = {&lbs<simd::avx2::F>, &dqs<simd::avx2::F>,
                                      &morph_group<simd::avx2::F>};

}  // namespace marrow::skin_detail
