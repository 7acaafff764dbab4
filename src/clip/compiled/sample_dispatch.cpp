#include "clip/compiled/sample_dispatch.h"

#include "marrow/math/simd.h"

namespace marrow::compiled_detail {

const SampleKernels& sample_kernels() {
  switch (active_simd_level()) {
#if defined(MARROW_HAVE_X86_KERNELS)
    case SimdLevel::kAvx512:
      return kAvx512SampleKernels;
    case SimdLevel::kAvx2:
      return kAvx2SampleKernels;
    case SimdLevel::kSse2:
      return kSse2SampleKernels;
#endif
    default:
      return kScalarSampleKernels;
  }
}

}  // namespace marrow::compiled_detail
