// Motion matching's distance kernel for the wasm128 level (see match_kernels.h and
// src/math/simd/README.md).
#include <wasm_simd128.h>
#include "control/match_dispatch.h"
#include "control/match_kernels.h"
#include "math/simd/lanes_wasm128.h"

namespace marrow::control_detail {

const MatchKernels kWasm128MatchKernels = {&nearest_in_blocks<simd::wasm128::F>,
                                           &box_distance<simd::wasm128::F>};

}  // namespace marrow::control_detail
