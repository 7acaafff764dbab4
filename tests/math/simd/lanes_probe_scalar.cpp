// lanes_probe.h for the scalar level.
#include "lanes_probe.h"
#include "math/simd/lanes_scalar.h"

namespace marrow::test {

void probe_interleave_scalar(const float* in3, const float* in4, InterleaveProbe& out) {
  probe_interleave<simd::scalar::F>(in3, in4, out);
}

void probe_bits_scalar(const std::uint8_t* record, const std::uint8_t* offset,
                       const std::uint8_t* bits, float* out) {
  probe_bits<simd::scalar::F>(record, offset, bits, out);
}

}  // namespace marrow::test
