// One SIMD level's lane operations run on fixed inputs, for lanes_test.cpp. Each level's probe
// is compiled with that level's instruction set (lanes_probe_<level>.cpp); call it only when the
// machine runs the level.
#pragma once

#include <cstdint>

namespace marrow::test {

struct InterleaveProbe {
  float x[8], y[8], z[8], w[8];  // from load_interleaved3 (x y z) and load_interleaved4 (w too)
  float x3[8], y3[8], z3[8];     // load_interleaved3's own components
  float back3[24], back4[32];    // store_interleaved3 / 4 of the loaded components
  // store_scattered3 / 4 of the loaded components at kScatterIndex, over arrays of 16 vectors
  // that the probe does not clear first.
  float scattered3[48], scattered4[64];
};

// Increasing, with gaps, as the skinning kernels' output indices within a group.
inline constexpr std::uint32_t kScatterIndex[8] = {0, 2, 3, 5, 8, 9, 12, 15};

// The probe's body, written once over a level's lane type and instantiated by each level's file
// (after that level's lanes header, whose functions it finds by argument-dependent lookup).
template <class F>
void probe_interleave(const float* in3, const float* in4, InterleaveProbe& out) {
  F x, y, z, w;
  load_interleaved3(in3, x, y, z);
  x.storeu(out.x3), y.storeu(out.y3), z.storeu(out.z3);
  store_interleaved3(out.back3, x, y, z);
  store_scattered3(out.scattered3, kScatterIndex, x, y, z);
  load_interleaved4(in4, x, y, z, w);
  x.storeu(out.x), y.storeu(out.y), z.storeu(out.z), w.storeu(out.w);
  store_interleaved4(out.back4, x, y, z, w);
  store_scattered4(out.scattered4, kScatterIndex, x, y, z, w);
}

// bit_windows and load_bits on one record: lane i's value (as a float, exact up to 24 bits).
template <class F>
void probe_bits(const std::uint8_t* record, const std::uint8_t* offset, const std::uint8_t* bits,
                float* out) {
  to_float(load_bits(record, bit_windows(offset, bits, F::zero()))).storeu(out);
}

void probe_interleave_scalar(const float* in3, const float* in4, InterleaveProbe& out);
void probe_bits_scalar(const std::uint8_t* record, const std::uint8_t* offset,
                       const std::uint8_t* bits, float* out);
#if defined(__x86_64__)
void probe_interleave_sse2(const float* in3, const float* in4, InterleaveProbe& out);
void probe_interleave_avx2(const float* in3, const float* in4, InterleaveProbe& out);
void probe_interleave_avx512(const float* in3, const float* in4, InterleaveProbe& out);
void probe_bits_sse2(const std::uint8_t* record, const std::uint8_t* offset,
                     const std::uint8_t* bits, float* out);
void probe_bits_avx2(const std::uint8_t* record, const std::uint8_t* offset,
                     const std::uint8_t* bits, float* out);
void probe_bits_avx512(const std::uint8_t* record, const std::uint8_t* offset,
                       const std::uint8_t* bits, float* out);
#endif
#if defined(__wasm_simd128__) || defined(MARROW_WASM_TESTS)
void probe_interleave_wasm128(const float* in3, const float* in4, InterleaveProbe& out);
void probe_bits_wasm128(const std::uint8_t* record, const std::uint8_t* offset,
                        const std::uint8_t* bits, float* out);
#endif

}  // namespace marrow::test
