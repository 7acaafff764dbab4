// 8 lanes as two SSE2 registers: the x86-64 baseline. See README.md.
#pragma once

#include "math/simd/force_inline.h"

#include <emmintrin.h>

#include <cstddef>
#include <cstdint>

namespace marrow::simd::sse2 {

#define MARROW_LANES_INLINE MARROW_FORCE_INLINE

struct M {
  __m128 lo, hi;  // all ones or all zeros per lane
};

struct F {
  __m128 lo, hi;
  MARROW_LANES_INLINE static F load(const float* p) { return {_mm_load_ps(p), _mm_load_ps(p + 4)}; }
  MARROW_LANES_INLINE static F loadu(const float* p) {
    return {_mm_loadu_ps(p), _mm_loadu_ps(p + 4)};
  }
  MARROW_LANES_INLINE static F set1(float x) { return {_mm_set1_ps(x), _mm_set1_ps(x)}; }
  MARROW_LANES_INLINE static F zero() { return {_mm_setzero_ps(), _mm_setzero_ps()}; }
  MARROW_LANES_INLINE void store(float* p) const {
    _mm_store_ps(p, lo);
    _mm_store_ps(p + 4, hi);
  }
  MARROW_LANES_INLINE void storeu(float* p) const {
    _mm_storeu_ps(p, lo);
    _mm_storeu_ps(p + 4, hi);
  }
};

struct I {
  __m128i lo, hi;
  MARROW_LANES_INLINE static I load_u8(const std::uint8_t* p) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    const __m128i words = _mm_unpacklo_epi8(bytes, _mm_setzero_si128());
    return {_mm_unpacklo_epi16(words, _mm_setzero_si128()),
            _mm_unpackhi_epi16(words, _mm_setzero_si128())};
  }
  MARROW_LANES_INLINE static I load_u16(const std::uint16_t* p) {
    const __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return {_mm_unpacklo_epi16(words, _mm_setzero_si128()),
            _mm_unpackhi_epi16(words, _mm_setzero_si128())};
  }
  MARROW_LANES_INLINE static I loadu(const std::int32_t* p) {
    return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 4))};
  }
  MARROW_LANES_INLINE static I set1(std::int32_t x) {
    return {_mm_set1_epi32(x), _mm_set1_epi32(x)};
  }
};

MARROW_LANES_INLINE F operator+(F a, F b) {
  return {_mm_add_ps(a.lo, b.lo), _mm_add_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE F operator-(F a, F b) {
  return {_mm_sub_ps(a.lo, b.lo), _mm_sub_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE F operator*(F a, F b) {
  return {_mm_mul_ps(a.lo, b.lo), _mm_mul_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE F operator/(F a, F b) {
  return {_mm_div_ps(a.lo, b.lo), _mm_div_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE F operator-(F a) {
  const __m128 sign = _mm_set1_ps(-0.0f);
  return {_mm_xor_ps(a.lo, sign), _mm_xor_ps(a.hi, sign)};
}
MARROW_LANES_INLINE F fma(F a, F b, F c) {
  return a * b + c;
}
MARROW_LANES_INLINE F min(F a, F b) {
  return {_mm_min_ps(a.lo, b.lo), _mm_min_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE F max(F a, F b) {
  return {_mm_max_ps(a.lo, b.lo), _mm_max_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE F sqrt(F a) {
  return {_mm_sqrt_ps(a.lo), _mm_sqrt_ps(a.hi)};
}
// The estimate (12 bits) refined by one Newton step: ~23 bits.
MARROW_LANES_INLINE __m128 rsqrt4(__m128 a) {
  const __m128 e = _mm_rsqrt_ps(a);
  const __m128 half_a = _mm_mul_ps(a, _mm_set1_ps(0.5f));
  return _mm_mul_ps(e, _mm_sub_ps(_mm_set1_ps(1.5f), _mm_mul_ps(half_a, _mm_mul_ps(e, e))));
}
MARROW_LANES_INLINE F rsqrt(F a) {
  return {rsqrt4(a.lo), rsqrt4(a.hi)};
}
MARROW_LANES_INLINE F abs(F a) {
  const __m128 mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  return {_mm_and_ps(a.lo, mask), _mm_and_ps(a.hi, mask)};
}
MARROW_LANES_INLINE F flip_sign(F a, F sign) {
  const __m128 bit = _mm_set1_ps(-0.0f);
  return {_mm_xor_ps(a.lo, _mm_and_ps(sign.lo, bit)), _mm_xor_ps(a.hi, _mm_and_ps(sign.hi, bit))};
}
MARROW_LANES_INLINE __m128 select4(__m128 m, __m128 a, __m128 b) {
  return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b));
}
MARROW_LANES_INLINE F select(M m, F a, F b) {
  return {select4(m.lo, a.lo, b.lo), select4(m.hi, a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator<(F a, F b) {
  return {_mm_cmplt_ps(a.lo, b.lo), _mm_cmplt_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator<=(F a, F b) {
  return {_mm_cmple_ps(a.lo, b.lo), _mm_cmple_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator>(F a, F b) {
  return {_mm_cmpgt_ps(a.lo, b.lo), _mm_cmpgt_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator>=(F a, F b) {
  return {_mm_cmpge_ps(a.lo, b.lo), _mm_cmpge_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator&(M a, M b) {
  return {_mm_and_ps(a.lo, b.lo), _mm_and_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator|(M a, M b) {
  return {_mm_or_ps(a.lo, b.lo), _mm_or_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator!(M a) {
  const __m128 ones = _mm_castsi128_ps(_mm_set1_epi32(-1));
  return {_mm_xor_ps(a.lo, ones), _mm_xor_ps(a.hi, ones)};
}
MARROW_LANES_INLINE bool any(M a) {
  return _mm_movemask_ps(_mm_or_ps(a.lo, a.hi)) != 0;
}
MARROW_LANES_INLINE F to_float(I a) {
  return {_mm_cvtepi32_ps(a.lo), _mm_cvtepi32_ps(a.hi)};
}
MARROW_LANES_INLINE M operator==(I a, I b) {
  return {_mm_castsi128_ps(_mm_cmpeq_epi32(a.lo, b.lo)),
          _mm_castsi128_ps(_mm_cmpeq_epi32(a.hi, b.hi))};
}
MARROW_LANES_INLINE I to_int_trunc(F a) {
  return {_mm_cvttps_epi32(a.lo), _mm_cvttps_epi32(a.hi)};
}
MARROW_LANES_INLINE I operator&(I a, I b) {
  return {_mm_and_si128(a.lo, b.lo), _mm_and_si128(a.hi, b.hi)};
}
MARROW_LANES_INLINE I operator+(I a, I b) {
  return {_mm_add_epi32(a.lo, b.lo), _mm_add_epi32(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator==(F a, F b) {
  return {_mm_cmpeq_ps(a.lo, b.lo), _mm_cmpeq_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator!=(F a, F b) {
  return {_mm_cmpneq_ps(a.lo, b.lo), _mm_cmpneq_ps(a.hi, b.hi)};
}
MARROW_LANES_INLINE bool all(M a) {
  return _mm_movemask_ps(_mm_and_ps(a.lo, a.hi)) == 0xF;
}
// out = a * b for affine column-major 4x4 matrices: a is 16 floats, b is given as its columns
// 0 and 1 (b01) and 2 and 3 (b23).
MARROW_LANES_INLINE __m128 affine_column(__m128 a0, __m128 a1, __m128 a2, __m128 b) {
  return _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(b, b, 0x00)),
                               _mm_mul_ps(a1, _mm_shuffle_ps(b, b, 0x55))),
                    _mm_mul_ps(a2, _mm_shuffle_ps(b, b, 0xAA)));
}
MARROW_LANES_INLINE void affine_mul(const float* a, F b01, F b23, float* out) {
  const __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4), a2 = _mm_loadu_ps(a + 8);
  const __m128 a3 = _mm_loadu_ps(a + 12);
  _mm_storeu_ps(out, affine_column(a0, a1, a2, b01.lo));
  _mm_storeu_ps(out + 4, affine_column(a0, a1, a2, b01.hi));
  _mm_storeu_ps(out + 8, affine_column(a0, a1, a2, b23.lo));
  _mm_storeu_ps(out + 12, _mm_add_ps(affine_column(a0, a1, a2, b23.hi), a3));
}
MARROW_LANES_INLINE void transpose4(__m128& a, __m128& b, __m128& c, __m128& d) {
  const __m128 t0 = _mm_unpacklo_ps(a, b), t1 = _mm_unpacklo_ps(c, d);
  const __m128 t2 = _mm_unpackhi_ps(a, b), t3 = _mm_unpackhi_ps(c, d);
  a = _mm_movelh_ps(t0, t1);
  b = _mm_movehl_ps(t1, t0);
  c = _mm_movelh_ps(t2, t3);
  d = _mm_movehl_ps(t3, t2);
}
// Copies `count` floats (a multiple of 4) to 16-byte-aligned `to` with non-temporal stores, which
// write whole lines without reading them first and leave the caches alone; ordered before any
// later store by the fence, so another thread that synchronizes with this one sees them. The
// unused F names the level, so that the kernels find this by argument-dependent lookup.
MARROW_LANES_INLINE void stream_copy(const float* from, float* to, std::size_t count, F /*level*/) {
  for (std::size_t i = 0; i < count; i += 4) _mm_stream_ps(to + i, _mm_loadu_ps(from + i));
  _mm_sfence();
}

// The pieces of the interleaving (lanes_128_common.inc): four xyz vectors a = x0 y0 z0 x1,
// b = y1 z1 x2 y2, c = z2 x3 y3 z3 to and from x, y, z.
MARROW_LANES_INLINE void deinterleave3(__m128 a, __m128 b, __m128 c, __m128& x, __m128& y,
                                       __m128& z) {
  x = _mm_shuffle_ps(a, _mm_shuffle_ps(b, c, _MM_SHUFFLE(1, 1, 2, 2)), _MM_SHUFFLE(2, 0, 3, 0));
  y = _mm_shuffle_ps(_mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1)),
                     _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3)), _MM_SHUFFLE(2, 0, 2, 0));
  z = _mm_shuffle_ps(_mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 2, 2)), c, _MM_SHUFFLE(3, 0, 2, 0));
}
MARROW_LANES_INLINE void interleave3(__m128 x, __m128 y, __m128 z, __m128& a, __m128& b,
                                     __m128& c) {
  a = _mm_shuffle_ps(_mm_unpacklo_ps(x, y), _mm_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0)),
                     _MM_SHUFFLE(2, 0, 1, 0));
  b = _mm_shuffle_ps(_mm_shuffle_ps(y, z, _MM_SHUFFLE(1, 1, 1, 1)), _mm_unpackhi_ps(x, y),
                     _MM_SHUFFLE(1, 0, 2, 0));
  c = _mm_shuffle_ps(_mm_shuffle_ps(z, x, _MM_SHUFFLE(3, 3, 2, 2)),
                     _mm_shuffle_ps(y, z, _MM_SHUFFLE(3, 3, 3, 3)), _MM_SHUFFLE(2, 0, 2, 0));
}
// A 3-float vector written as 2 floats and 1 (the scattered stores').
MARROW_LANES_INLINE void store3_at(float* p, __m128 v) {
  _mm_storel_pi(reinterpret_cast<__m64*>(p), v);
  _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}

// The register operations lanes_128_common.inc builds on.
using V = __m128;
MARROW_LANES_INLINE V load4(const float* p) {
  return _mm_loadu_ps(p);
}
MARROW_LANES_INLINE void store4(float* p, V v) {
  _mm_storeu_ps(p, v);
}

#include "math/simd/lanes_128_common.inc"
#include "math/simd/lanes_bits_portable.inc"

}  // namespace marrow::simd::sse2
