// lanes_probe.h for the avx512 level.
#include "lanes_probe.h"
#include "math/simd/lanes_avx512.h"

namespace marrow::test {

void probe_interleave_avx512(const float* in3, const float* in4, InterleaveProbe& out) {
  probe_interleave<simd::avx512::F>(in3, in4, out);
}

}  // namespace marrow::test
