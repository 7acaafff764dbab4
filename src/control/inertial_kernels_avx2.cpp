// The controller's inertialization kernel for the avx2 level (see inertial_kernels.h and
// src/math/simd/README.md).
#include <immintrin.h>
#include "control/inertial_dispatch.h"
#include "control/inertial_kernels.h"
#include "math/simd/lanes_avx2.h"

namespace marrow::control_detail {

const ControlKernels kAvx2ControlKernels = {&add_inertial_offsets<simd::avx2::F>};

}  // namespace marrow::control_detail
