// The SoA pose kernels for the sse2 level (see soa_kernels.h and src/math/simd/README.md).
#include <immintrin.h>
#include "math/simd/lanes_sse2.h"
#include "pose/soa/soa_dispatch.h"
#include "pose/soa/soa_kernels.h"

namespace marrow::soa_detail {

const SoaKernels kSse2SoaKernels = {&blend_groups<simd::sse2::F>, &local_to_model<simd::sse2::F>};

}  // namespace marrow::soa_detail
