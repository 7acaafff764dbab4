// The SoA pose kernels for the avx2 level (see soa_kernels.h and src/math/simd/README.md).
#include <immintrin.h>
#include "math/simd/lanes_avx2.h"
#include "pose/soa/soa_dispatch.h"
#include "pose/soa/soa_kernels.h"

namespace marrow::soa_detail {

const SoaKernels kAvx2SoaKernels = {&blend_groups<simd::avx2::F>, &local_to_model<simd::avx2::F>};

}  // namespace marrow::soa_detail
