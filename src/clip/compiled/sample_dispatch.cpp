#include "clip/compiled/sample_dispatch.h"

#include "math/simd/dispatch.h"

namespace marrow::compiled_detail {

const SampleKernels& sample_kernels() {
  return simd::active_kernels(MARROW_KERNEL_LEVELS(SampleKernels));
}

}  // namespace marrow::compiled_detail
