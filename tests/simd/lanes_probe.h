// One SIMD level's lane operations run on fixed inputs, for lanes_test.cpp. Each level's probe
// is compiled with that level's instruction set (lanes_probe_<level>.cpp); call it only when the
// machine runs the level.
#pragma once

namespace marrow::test {

struct InterleaveProbe {
  float x[8], y[8], z[8], w[8];  // from load_interleaved3 (x y z) and load_interleaved4 (w too)
  float x3[8], y3[8], z3[8];     // load_interleaved3's own components
  float back3[24], back4[32];    // store_interleaved3 / 4 of the loaded components
};

void probe_interleave_scalar(const float* in3, const float* in4, InterleaveProbe& out);
#if defined(__x86_64__)
void probe_interleave_sse2(const float* in3, const float* in4, InterleaveProbe& out);
void probe_interleave_avx2(const float* in3, const float* in4, InterleaveProbe& out);
void probe_interleave_avx512(const float* in3, const float* in4, InterleaveProbe& out);
#endif

}  // namespace marrow::test
