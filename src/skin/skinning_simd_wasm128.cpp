// The SIMD skinning and morph kernels for the wasm128 level (see skinning_simd_kernels.h,
// morph_kernels.h and src/math/simd/README.md).
#include <wasm_simd128.h>
#include "math/simd/lanes_wasm128.h"
#include "skin/morph_kernels.h"
#include "skin/skinning_simd.h"
#include "skin/skinning_simd_kernels.h"

namespace marrow::skin_detail {

const SkinKernels kWasm128SkinKernels = {&lbs<simd::wasm128::F>, &dqs<simd::wasm128::F>,
                                         &morph_group<simd::wasm128::F>};

}  // namespace marrow::skin_detail
