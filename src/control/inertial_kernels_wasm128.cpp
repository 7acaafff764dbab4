// The controller's inertialization kernel for the wasm128 level (see inertial_kernels.h and
// src/math/simd/README.md).
#include <wasm_simd128.h>
#include "control/inertial_dispatch.h"
#include "control/inertial_kernels.h"
#include "math/simd/lanes_wasm128.h"

namespace marrow::control_detail {

const ControlKernels kWasm128ControlKernels = {&add_inertial_offsets<simd::wasm128::F>};

}  // namespace marrow::control_detail
