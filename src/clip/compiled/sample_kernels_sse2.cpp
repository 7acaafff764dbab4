// The compiled-clip sampling kernel for the sse2 level (sample_kernels.h, src/math/simd/README.md).
#include <immintrin.h>
#include "clip/compiled/sample_dispatch.h"
#include "clip/compiled/sample_kernels.h"
#include "math/simd/lanes_sse2.h"

namespace marrow::compiled_detail {

const SampleKernels kSse2SampleKernels = {&sample_groups<simd::sse2::F>};

}  // namespace marrow::compiled_detail
