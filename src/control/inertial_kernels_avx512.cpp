// The controller's inertialization kernel for the avx512 level (see inertial_kernels.h and
// src/math/simd/README.md).
#include <immintrin.h>
#include "control/inertial_dispatch.h"
#include "control/inertial_kernels.h"
#include "math/simd/lanes_avx512.h"

namespace marrow::control_detail {

const ControlKernels kAvx512ControlKernels = {&add_inertial_offsets<simd::avx512::F>};

}  // namespace marrow::control_detail
