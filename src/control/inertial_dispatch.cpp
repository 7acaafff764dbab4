#include "control/inertial_dispatch.h"

#include "math/simd/dispatch.h"

namespace marrow::control_detail {

const ControlKernels& control_kernels() {
  return simd::active_kernels(MARROW_KERNEL_LEVELS(ControlKernels));
}

}  // namespace marrow::control_detail
