// The compiled-clip sampling kernel for the avx512 level (sample_kernels.h,
// src/math/simd/README.md).
#include <immintrin.h>
#include "clip/compiled/sample_dispatch.h"
#include "clip/compiled/sample_kernels.h"
#include "math/simd/lanes_avx512.h"

namespace marrow::compiled_detail {

const SampleKernels kAvx512SampleKernels = {&sample_groups<simd::avx512::F>};

}  // namespace marrow::compiled_detail
