// Motion matching's distance kernel for the scalar level (see match_kernels.h and
// src/math/simd/README.md).
#include "control/match_dispatch.h"
#include "control/match_kernels.h"
#include "math/simd/lanes_scalar.h"

namespace marrow::control_detail {

const MatchKernels kScalarMatchKernels = {&nearest_in_blocks<simd::scalar::F>,
                                          &box_distance<simd::scalar::F>};

}  // namespace marrow::control_detail
