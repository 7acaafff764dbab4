// The compiled-clip sampling kernel for the wasm128 level (sample_kernels.h,
// src/math/simd/README.md).
#include <wasm_simd128.h>
#include "clip/compiled/sample_dispatch.h"
#include "clip/compiled/sample_kernels.h"
#include "math/simd/lanes_wasm128.h"

namespace marrow::compiled_detail {

const SampleKernels kWasm128SampleKernels = {&sample_groups<simd::wasm128::F>};

}  // namespace marrow::compiled_detail
