// The SoA pose kernels for the avx512 level (see soa_kernels.h and src/math/simd/README.md).
#include <immintrin.h>
#include "math/simd/lanes_avx512.h"
#include "pose/soa/soa_dispatch.h"
#include "pose/soa/soa_kernels.h"

namespace marrow::soa_detail {

const SoaKernels kAvx512SoaKernels = {&blend_groups<simd::avx512::F>,
                                      &local_to_model<simd::avx512::F>};

}  // namespace marrow::soa_detail
