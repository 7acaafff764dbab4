// lanes_probe.h for the avx2 level.
#include "lanes_probe.h"
#include "math/simd/lanes_avx2.h"

namespace marrow::test {

void probe_interleave_avx2(const float* in3, const float* in4, InterleaveProbe& out) {
  probe_interleave<simd::avx2::F>(in3, in4, out);
}

void probe_bits_avx2(const std::uint8_t* record, const std::uint8_t* offset,
                     const std::uint8_t* bits, float* out) {
  probe_bits<simd::avx2::F>(record, offset, bits, out);
}

}  // namespace marrow::test
