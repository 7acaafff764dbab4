#include "pose/soa/soa_dispatch.h"

#include "marrow/skeleton/skeleton.h"
#include "math/simd/dispatch.h"

namespace marrow::soa_detail {

static_assert(sizeof(JointIndex) == sizeof(std::uint16_t) && kNoParent == 0xffff,
              "the kernels read parents as 16-bit indices with 0xffff for roots");

const SoaKernels& soa_kernels() {
  return simd::active_kernels(MARROW_KERNEL_LEVELS(SoaKernels));
}

}  // namespace marrow::soa_detail
