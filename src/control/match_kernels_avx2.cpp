// Motion matching's distance kernel for the avx2 level (see match_kernels.h and
// src/math/simd/README.md).
#include <immintrin.h>
#include "control/match_dispatch.h"
#include "control/match_kernels.h"
#include "math/simd/lanes_avx2.h"

namespace marrow::control_detail {

const MatchKernels kAvx2MatchKernels = {&nearest_in_blocks<simd::avx2::F>,
                                        &box_distance<simd::avx2::F>};

}  // namespace marrow::control_detail
