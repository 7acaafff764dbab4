// 8 lanes in one register with AVX-512 F/VL/DQ/BW: mask registers for comparisons and blends,
// the 14-bit reciprocal square root estimate. Zen 4 and most Intel cores run 512-bit operations
// as two 256-bit halves, so the lanes stay 8 wide and gain from the encoding, not the width.
// See README.md.
#pragma once

#include "math/simd/force_inline.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace marrow::simd::avx512 {

#define MARROW_LANES_INLINE MARROW_FORCE_INLINE

struct M {
  __mmask8 k;
};

#include "math/simd/lanes_256_common.inc"

// The 14-bit estimate refined by one Newton step: ~24 bits.
MARROW_LANES_INLINE F rsqrt(F a) {
  const __m256 e = _mm256_rsqrt14_ps(a.v);
  const __m256 half_a = _mm256_mul_ps(a.v, _mm256_set1_ps(0.5f));
  return {_mm256_mul_ps(e, _mm256_fnmadd_ps(half_a, _mm256_mul_ps(e, e), _mm256_set1_ps(1.5f)))};
}
MARROW_LANES_INLINE F flip_sign(F a, F sign) {
  // a ^ (sign & 0x80000000) in one ternary-logic instruction.
  return {_mm256_castsi256_ps(_mm256_ternarylogic_epi32(
      _mm256_castps_si256(a.v), _mm256_castps_si256(sign.v), _mm256_set1_epi32(INT32_MIN), 0x78))};
}
MARROW_LANES_INLINE F select(M m, F a, F b) {
  return {_mm256_mask_blend_ps(m.k, b.v, a.v)};
}
MARROW_LANES_INLINE M operator<(F a, F b) {
  return {_mm256_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)};
}
MARROW_LANES_INLINE M operator<=(F a, F b) {
  return {_mm256_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)};
}
MARROW_LANES_INLINE M operator>(F a, F b) {
  return {_mm256_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)};
}
MARROW_LANES_INLINE M operator>=(F a, F b) {
  return {_mm256_cmp_ps_mask(a.v, b.v, _CMP_GE_OQ)};
}
MARROW_LANES_INLINE M operator&(M a, M b) {
  return {static_cast<__mmask8>(a.k & b.k)};
}
MARROW_LANES_INLINE M operator|(M a, M b) {
  return {static_cast<__mmask8>(a.k | b.k)};
}
MARROW_LANES_INLINE M operator!(M a) {
  return {static_cast<__mmask8>(~a.k)};
}
MARROW_LANES_INLINE bool any(M a) {
  return a.k != 0;
}
MARROW_LANES_INLINE F to_float(I a) {
  return {_mm256_cvtepi32_ps(a.v)};
}
MARROW_LANES_INLINE M operator==(I a, I b) {
  return {_mm256_cmpeq_epi32_mask(a.v, b.v)};
}
MARROW_LANES_INLINE I to_int_trunc(F a) {
  return {_mm256_cvttps_epi32(a.v)};
}
MARROW_LANES_INLINE I operator&(I a, I b) {
  return {_mm256_and_si256(a.v, b.v)};
}
MARROW_LANES_INLINE I operator+(I a, I b) {
  return {_mm256_add_epi32(a.v, b.v)};
}
MARROW_LANES_INLINE M operator==(F a, F b) {
  return {_mm256_cmp_ps_mask(a.v, b.v, _CMP_EQ_OQ)};
}
MARROW_LANES_INLINE M operator!=(F a, F b) {
  return {_mm256_cmp_ps_mask(a.v, b.v, _CMP_NEQ_UQ)};
}
MARROW_LANES_INLINE bool all(M a) {
  return a.k == 0xFF;
}
// out = a * b for affine column-major 4x4 matrices: a is 16 floats, b is given as its columns
// 0 and 1 (b01) and 2 and 3 (b23). Two result columns per register: [a0|a0] * [b0.x|b1.x] + ...
MARROW_LANES_INLINE void affine_mul(const float* a, F b01, F b23, float* out) {
  const __m256 a0 = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(a));
  const __m256 a1 = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(a + 4));
  const __m256 a2 = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(a + 8));
  const __m256 a3 = _mm256_insertf128_ps(_mm256_setzero_ps(), _mm_loadu_ps(a + 12), 1);
  __m256 r01 = _mm256_mul_ps(a0, _mm256_permute_ps(b01.v, 0x00));
  r01 = _mm256_fmadd_ps(a1, _mm256_permute_ps(b01.v, 0x55), r01);
  r01 = _mm256_fmadd_ps(a2, _mm256_permute_ps(b01.v, 0xAA), r01);
  __m256 r23 = _mm256_fmadd_ps(a0, _mm256_permute_ps(b23.v, 0x00), a3);
  r23 = _mm256_fmadd_ps(a1, _mm256_permute_ps(b23.v, 0x55), r23);
  r23 = _mm256_fmadd_ps(a2, _mm256_permute_ps(b23.v, 0xAA), r23);
  _mm256_storeu_ps(out, r01);
  _mm256_storeu_ps(out + 8, r23);
}

// Structure-of-arrays views of interleaved vectors: 8 vectors of 3 floats (x y z x y z ...) or of
// 4 floats (x y z w x y z w ...), split into one register per component, and back. Two-source
// permutes pick each component from the 16 floats of two registers.
MARROW_LANES_INLINE void load_interleaved3(const float* p, F& x, F& y, F& z) {
  const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8), c = _mm256_loadu_ps(p + 16);
  // From a:b the components of vectors 0-5 (elements 0-17 of p), then those of 6-7 from c.
  const __m256 xab = _mm256_permutex2var_ps(a, _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 0, 0), b);
  const __m256 yab = _mm256_permutex2var_ps(a, _mm256_setr_epi32(1, 4, 7, 10, 13, 0, 0, 0), b);
  const __m256 zab = _mm256_permutex2var_ps(a, _mm256_setr_epi32(2, 5, 8, 11, 14, 0, 0, 0), b);
  x.v = _mm256_permutex2var_ps(xab, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 10, 13), c);
  y.v = _mm256_permutex2var_ps(yab, _mm256_setr_epi32(0, 1, 2, 3, 4, 8, 11, 14), c);
  z.v = _mm256_permutex2var_ps(zab, _mm256_setr_epi32(0, 1, 2, 3, 4, 9, 12, 15), c);
}
MARROW_LANES_INLINE void store_interleaved3(float* p, F x, F y, F z) {
  // p[0..7] = x0 y0 z0 x1 y1 z1 x2 y2, p[8..15] = z2 x3 y3 z3 x4 y4 z4 x5,
  // p[16..23] = y5 z5 x6 y6 z6 x7 y7 z7; indices 0-7 pick from the first source, 8-15 the second.
  const __m256 xy = _mm256_permutex2var_ps(x.v, _mm256_setr_epi32(0, 8, 0, 1, 9, 0, 2, 10), y.v);
  const __m256 a = _mm256_permutex2var_ps(xy, _mm256_setr_epi32(0, 1, 8, 3, 4, 9, 6, 7), z.v);
  const __m256 xz = _mm256_permutex2var_ps(x.v, _mm256_setr_epi32(10, 3, 0, 11, 4, 0, 12, 5), z.v);
  const __m256 b = _mm256_permutex2var_ps(xz, _mm256_setr_epi32(0, 1, 11, 3, 4, 12, 6, 7), y.v);
  const __m256 yz = _mm256_permutex2var_ps(y.v, _mm256_setr_epi32(5, 13, 0, 6, 14, 0, 7, 15), z.v);
  const __m256 c = _mm256_permutex2var_ps(yz, _mm256_setr_epi32(0, 1, 14, 3, 4, 15, 6, 7), x.v);
  _mm256_storeu_ps(p, a), _mm256_storeu_ps(p + 8, b), _mm256_storeu_ps(p + 16, c);
}

// Scattered stores: vector i of the 8 (3 or 4 components) to out + 3 * index[i] (or 4 *), and
// nothing else written, so the indices may skip vertices that belong to others. One 4x4
// transpose per 128-bit half; a 3-float vector is one masked store.
MARROW_LANES_INLINE void store_scattered3(float* out, const std::uint32_t* index, F x, F y, F z) {
  __m256 a = x.v, b = y.v, c = z.v, d = z.v;
  transpose4_halves(a, b, c, d);  // a: vectors 0 and 4, b: 1 and 5, c: 2 and 6, d: 3 and 7
  const __m256 v[4] = {a, b, c, d};
  for (int i = 0; i < 4; ++i) {
    _mm_mask_storeu_ps(out + 3 * static_cast<std::size_t>(index[i]), 0x7,
                       _mm256_castps256_ps128(v[i]));
    _mm_mask_storeu_ps(out + 3 * static_cast<std::size_t>(index[4 + i]), 0x7,
                       _mm256_extractf128_ps(v[i], 1));
  }
}
MARROW_LANES_INLINE void store_scattered4(float* out, const std::uint32_t* index, F x, F y, F z,
                                          F w) {
  __m256 a = x.v, b = y.v, c = z.v, d = w.v;
  transpose4_halves(a, b, c, d);
  const __m256 v[4] = {a, b, c, d};
  for (int i = 0; i < 4; ++i) {
    _mm_storeu_ps(out + 4 * static_cast<std::size_t>(index[i]), _mm256_castps256_ps128(v[i]));
    _mm_storeu_ps(out + 4 * static_cast<std::size_t>(index[4 + i]), _mm256_extractf128_ps(v[i], 1));
  }
}

}  // namespace marrow::simd::avx512
