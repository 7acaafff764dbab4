// The SoA pose kernels for the scalar level (see soa_kernels.h and src/math/simd/README.md).

#include "math/simd/lanes_scalar.h"
#include "pose/soa/soa_dispatch.h"
#include "pose/soa/soa_kernels.h"

namespace marrow::soa_detail {

const SoaKernels kScalarSoaKernels = {&blend_groups<simd::scalar::F>,
                                      &local_to_model<simd::scalar::F>};

}  // namespace marrow::soa_detail
