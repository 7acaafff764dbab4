// lanes_probe.h for the wasm128 level (the WebAssembly build's tests, web/tests.cmake).
#include "lanes_probe.h"
#include "math/simd/lanes_wasm128.h"

namespace marrow::test {

void probe_interleave_wasm128(const float* in3, const float* in4, InterleaveProbe& out) {
  probe_interleave<simd::wasm128::F>(in3, in4, out);
}

void probe_bits_wasm128(const std::uint8_t* record, const std::uint8_t* offset,
                        const std::uint8_t* bits, float* out) {
  probe_bits<simd::wasm128::F>(record, offset, bits, out);
}

}  // namespace marrow::test
