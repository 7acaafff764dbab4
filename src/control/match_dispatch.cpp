#include "control/match_dispatch.h"

#include "math/simd/dispatch.h"

namespace marrow::control_detail {

const MatchKernels& match_kernels() {
  return simd::active_kernels(MARROW_KERNEL_LEVELS(MatchKernels));
}

}  // namespace marrow::control_detail
