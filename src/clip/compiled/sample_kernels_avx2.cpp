// The compiled-clip sampling kernel for the avx2 level (sample_kernels.h, src/math/simd/README.md).
#include <immintrin.h>
#include "clip/compiled/sample_dispatch.h"
#include "clip/compiled/sample_kernels.h"
#include "math/simd/lanes_avx2.h"

namespace marrow::compiled_detail {

const SampleKernels kAvx2SampleKernels = {&sample_groups<simd::avx2::F>};

}  // namespace marrow::compiled_detail
