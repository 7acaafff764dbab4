// The controller's inertialization kernel for the scalar level (see inertial_kernels.h and
// src/math/simd/README.md).
#include "control/inertial_dispatch.h"
#include "control/inertial_kernels.h"
#include "math/simd/lanes_scalar.h"

namespace marrow::control_detail {

const ControlKernels kScalarControlKernels = {&add_inertial_offsets<simd::scalar::F>};

}  // namespace marrow::control_detail
