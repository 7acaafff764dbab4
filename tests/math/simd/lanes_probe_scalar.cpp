// lanes_probe.h for the scalar level.
#include "lanes_probe.h"
#include "math/simd/lanes_scalar.h"

namespace marrow::test {

void probe_interleave_scalar(const float* in3, const float* in4, InterleaveProbe& out) {
  probe_interleave<simd::scalar::F>(in3, in4, out);
}

}  // namespace marrow::test
