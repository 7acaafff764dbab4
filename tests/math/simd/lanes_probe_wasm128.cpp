// lanes_probe.h for the wasm128 level (the WebAssembly build's tests, web/tests.cmake).
#include "lanes_probe.h"
#include "math/simd/lanes_wasm128.h"

namespace marrow::test {

void probe_interleave_wasm128(const float* in3, const float* in4, InterleaveProbe& out) {
  probe_interleave<simd::wasm128::F>(in3, in4, out);
}

}  // namespace marrow::test
