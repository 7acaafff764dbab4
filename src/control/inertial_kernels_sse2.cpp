// The controller's inertialization kernel for the sse2 level (see inertial_kernels.h and
// src/math/simd/README.md).
#include <immintrin.h>
#include "control/inertial_dispatch.h"
#include "control/inertial_kernels.h"
#include "math/simd/lanes_sse2.h"

namespace marrow::control_detail {

const ControlKernels kSse2ControlKernels = {&add_inertial_offsets<simd::sse2::F>};

}  // namespace marrow::control_detail
