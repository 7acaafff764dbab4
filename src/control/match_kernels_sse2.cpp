// Motion matching's distance kernel for the sse2 level (see match_kernels.h and
// src/math/simd/README.md).
#include <immintrin.h>
#include "control/match_dispatch.h"
#include "control/match_kernels.h"
#include "math/simd/lanes_sse2.h"

namespace marrow::control_detail {

const MatchKernels kSse2MatchKernels = {&nearest_in_blocks<simd::sse2::F>,
                                        &box_distance<simd::sse2::F>};

}  // namespace marrow::control_detail
