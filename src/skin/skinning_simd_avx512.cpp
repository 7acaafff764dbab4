// The SIMD skinning and morph kernels for the avx512 level (see skinning_simd_kernels.h,
// morph_kernels.h and src/math/simd/README.md).
#include <immintrin.h>
#include "math/simd/lanes_avx512.h"
#include "skin/morph_kernels.h"
#include "skin/skinning_simd.h"
#include "skin/skinning_simd_kernels.h"

namespace marrow::skin_detail {

const SkinKernels kAvx512SkinKernels = {&lbs<simd::avx512::F>, &dqs<simd::avx512::F>,
                                        &morph_group<simd::avx512::F>};

}  // namespace marrow::skin_detail
