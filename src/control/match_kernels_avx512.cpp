// Motion matching's distance kernel for the avx512 level (see match_kernels.h and
// src/math/simd/README.md).
#include <immintrin.h>
#include "control/match_dispatch.h"
#include "control/match_kernels.h"
#include "math/simd/lanes_avx512.h"

namespace marrow::control_detail {

const MatchKernels kAvx512MatchKernels = {&nearest_in_blocks<simd::avx512::F>,
                                          &box_distance<simd::avx512::F>};

}  // namespace marrow::control_detail
