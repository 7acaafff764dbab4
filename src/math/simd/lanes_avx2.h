// 8 lanes in one AVX2 register, with FMA (x86-64-v3). See README.md.
#pragma once

#include "math/simd/force_inline.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace marrow::simd::avx2 {

#define MARROW_LANES_INLINE MARROW_FORCE_INLINE

struct M {
  __m256 m;  // all ones or all zeros per lane
};

#include "math/simd/lanes_256_common.inc"

// The estimate (12 bits) refined by one Newton step: ~23 bits.
MARROW_LANES_INLINE F rsqrt(F a) {
  const __m256 e = _mm256_rsqrt_ps(a.v);
  const __m256 half_a = _mm256_mul_ps(a.v, _mm256_set1_ps(0.5f));
  return {_mm256_mul_ps(e, _mm256_fnmadd_ps(half_a, _mm256_mul_ps(e, e), _mm256_set1_ps(1.5f)))};
}
MARROW_LANES_INLINE F flip_sign(F a, F sign) {
  return {_mm256_xor_ps(a.v, _mm256_and_ps(sign.v, _mm256_set1_ps(-0.0f)))};
}
MARROW_LANES_INLINE F select(M m, F a, F b) {
  return {_mm256_blendv_ps(b.v, a.v, m.m)};
}
MARROW_LANES_INLINE M operator<(F a, F b) {
  return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)};
}
MARROW_LANES_INLINE M operator<=(F a, F b) {
  return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)};
}
MARROW_LANES_INLINE M operator>(F a, F b) {
  return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ)};
}
MARROW_LANES_INLINE M operator>=(F a, F b) {
  return {_mm256_cmp_ps(a.v, b.v, _CMP_GE_OQ)};
}
MARROW_LANES_INLINE M operator&(M a, M b) {
  return {_mm256_and_ps(a.m, b.m)};
}
MARROW_LANES_INLINE M operator|(M a, M b) {
  return {_mm256_or_ps(a.m, b.m)};
}
MARROW_LANES_INLINE M operator!(M a) {
  return {_mm256_xor_ps(a.m, _mm256_castsi256_ps(_mm256_set1_epi32(-1)))};
}
MARROW_LANES_INLINE bool any(M a) {
  return _mm256_movemask_ps(a.m) != 0;
}
MARROW_LANES_INLINE F to_float(I a) {
  return {_mm256_cvtepi32_ps(a.v)};
}
MARROW_LANES_INLINE M operator==(I a, I b) {
  return {_mm256_castsi256_ps(_mm256_cmpeq_epi32(a.v, b.v))};
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
  return {_mm256_cmp_ps(a.v, b.v, _CMP_EQ_OQ)};
}
MARROW_LANES_INLINE M operator!=(F a, F b) {
  return {_mm256_cmp_ps(a.v, b.v, _CMP_NEQ_UQ)};
}
MARROW_LANES_INLINE bool all(M a) {
  return _mm256_movemask_ps(a.m) == 0xFF;
}
// out = a * b for affine column-major 4x4 matrices: a is 16 floats, b is given as its columns
// 0 and 1 (b01) and 2 and 3 (b23). Two result columns per register: [a0|a0] * [b0.x|b1.x] + ...
MARROW_LANES_INLINE void affine_mul(const float* a, F b01, F b23, float* out) {
  const __m256 p01 = _mm256_loadu_ps(a), p23 = _mm256_loadu_ps(a + 8);
  const __m256 a0 = _mm256_permute2f128_ps(p01, p01, 0x00);
  const __m256 a1 = _mm256_permute2f128_ps(p01, p01, 0x11);
  const __m256 a2 = _mm256_permute2f128_ps(p23, p23, 0x00);
  const __m256 a3 = _mm256_permute2f128_ps(p23, p23, 0x18);
  const __m256 r01 =
      _mm256_add_ps(_mm256_fmadd_ps(a1, _mm256_permute_ps(b01.v, 0x55),
                                    _mm256_mul_ps(a0, _mm256_permute_ps(b01.v, 0x00))),
                    _mm256_mul_ps(a2, _mm256_permute_ps(b01.v, 0xAA)));
  const __m256 r23 =
      _mm256_add_ps(_mm256_fmadd_ps(a1, _mm256_permute_ps(b23.v, 0x55),
                                    _mm256_mul_ps(a0, _mm256_permute_ps(b23.v, 0x00))),
                    _mm256_fmadd_ps(a2, _mm256_permute_ps(b23.v, 0xAA), a3));
  _mm256_storeu_ps(out, r01);
  _mm256_storeu_ps(out + 8, r23);
}

// Structure-of-arrays views of interleaved vectors: 8 vectors of 3 floats (x y z x y z ...) or of
// 4 floats (x y z w x y z w ...), split into one register per component, and back. Each 128-bit
// half holds four vectors (0-3 low, 4-7 high) and is shuffled as lanes_sse2.h's deinterleave3.
MARROW_LANES_INLINE void load_interleaved3(const float* p, F& x, F& y, F& z) {
  const __m256 a = load_halves(p, p + 12), b = load_halves(p + 4, p + 16);
  const __m256 c = load_halves(p + 8, p + 20);
  x.v = _mm256_shuffle_ps(a, _mm256_shuffle_ps(b, c, _MM_SHUFFLE(1, 1, 2, 2)),
                          _MM_SHUFFLE(2, 0, 3, 0));
  y.v =
      _mm256_shuffle_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1)),
                        _mm256_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3)), _MM_SHUFFLE(2, 0, 2, 0));
  z.v = _mm256_shuffle_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 2, 2)), c,
                          _MM_SHUFFLE(3, 0, 2, 0));
}
MARROW_LANES_INLINE void store_interleaved3(float* p, F x, F y, F z) {
  const __m256 a = _mm256_shuffle_ps(_mm256_unpacklo_ps(x.v, y.v),
                                     _mm256_shuffle_ps(z.v, x.v, _MM_SHUFFLE(1, 1, 0, 0)),
                                     _MM_SHUFFLE(2, 0, 1, 0));
  const __m256 b = _mm256_shuffle_ps(_mm256_shuffle_ps(y.v, z.v, _MM_SHUFFLE(1, 1, 1, 1)),
                                     _mm256_unpackhi_ps(x.v, y.v), _MM_SHUFFLE(1, 0, 2, 0));
  const __m256 c = _mm256_shuffle_ps(_mm256_shuffle_ps(z.v, x.v, _MM_SHUFFLE(3, 3, 2, 2)),
                                     _mm256_shuffle_ps(y.v, z.v, _MM_SHUFFLE(3, 3, 3, 3)),
                                     _MM_SHUFFLE(2, 0, 2, 0));
  _mm256_storeu_ps(p, _mm256_permute2f128_ps(a, b, 0x20));
  _mm256_storeu_ps(p + 8, _mm256_permute2f128_ps(c, a, 0x30));
  _mm256_storeu_ps(p + 16, _mm256_permute2f128_ps(b, c, 0x31));
}

// Scattered stores: vector i of the 8 (3 or 4 components) to out + 3 * index[i] (or 4 *), and
// nothing else written, so the indices may skip vertices that belong to others. One 4x4
// transpose per 128-bit half; a 3-float vector is written as 2 floats and 1 (AMD runs AVX2's
// masked stores as microcode).
MARROW_LANES_INLINE void store3_at(float* p, __m128 v) {
  _mm_storel_pi(reinterpret_cast<__m64*>(p), v);
  _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}
MARROW_LANES_INLINE void store_scattered3(float* out, const std::uint32_t* index, F x, F y, F z) {
  __m256 a = x.v, b = y.v, c = z.v, d = z.v;
  transpose4_halves(a, b, c, d);  // a: vectors 0 and 4, b: 1 and 5, c: 2 and 6, d: 3 and 7
  const __m256 v[4] = {a, b, c, d};
  for (int i = 0; i < 4; ++i) {
    store3_at(out + 3 * static_cast<std::size_t>(index[i]), _mm256_castps256_ps128(v[i]));
    store3_at(out + 3 * static_cast<std::size_t>(index[4 + i]), _mm256_extractf128_ps(v[i], 1));
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

}  // namespace marrow::simd::avx2
