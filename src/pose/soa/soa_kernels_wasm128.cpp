// The SoA pose kernels for the wasm128 level (see soa_kernels.h and src/math/simd/README.md).
#include <wasm_simd128.h>
#include "math/simd/lanes_wasm128.h"
#include "pose/soa/soa_dispatch.h"
#include "pose/soa/soa_kernels.h"

namespace marrow::soa_detail {

const SoaKernels kWasm128SoaKernels = {&blend_groups<simd::wasm128::F>,
                                       &local_to_model<simd::wasm128::F>};

}  // namespace marrow::soa_detail
