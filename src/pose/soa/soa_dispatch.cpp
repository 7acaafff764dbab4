#include "pose/soa/soa_dispatch.h"

#include "marrow/math/simd.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::soa_detail {

static_assert(sizeof(JointIndex) == sizeof(std::uint16_t) && kNoParent == 0xffff,
              "the kernels read parents as 16-bit indices with 0xffff for roots");

const SoaKernels& soa_kernels() {
  switch (active_simd_level()) {
#if defined(MARROW_HAVE_X86_KERNELS)
    case SimdLevel::kAvx512:
      return kAvx512SoaKernels;
    case SimdLevel::kAvx2:
      return kAvx2SoaKernels;
    case SimdLevel::kSse2:
      return kSse2SoaKernels;
#endif
    default:
      return kScalarSoaKernels;
  }
}

}  // namespace marrow::soa_detail
