// The compiled-clip sampling kernel for the scalar level (sample_kernels.h,
// src/math/simd/README.md).

#include "clip/compiled/sample_dispatch.h"
#include "clip/compiled/sample_kernels.h"
#include "math/simd/lanes_scalar.h"

namespace marrow::compiled_detail {

const SampleKernels kScalarSampleKernels = {&sample_groups<simd::scalar::F>};

}  // namespace marrow::compiled_detail
