// 8 lanes as two WebAssembly SIMD registers (v128, -msimd128): the browser build's level. The
// shape of the SSE2 level (lanes_sse2.h), operation for operation; where WebAssembly differs it
// keeps the scalar reference's results: min and max pick as the scalar level does (a < b ? a : b),
// and the reciprocal square root is a division (WebAssembly has no estimate). Its operators pair
// with lanes_sse2.h's by shape (one instruction of each set per line), which is deliberate; what
// is the same in both, the work done on pairs of 4-float registers, is in lanes_128_common.inc.
// See README.md.
#pragma once

#include "math/simd/force_inline.h"

#include <wasm_simd128.h>

#include <cstddef>
#include <cstdint>

namespace marrow::simd::wasm128 {

#define MARROW_LANES_INLINE MARROW_FORCE_INLINE

// _mm_shuffle_ps(a, b, _MM_SHUFFLE(z, y, x, w)): lanes w and x of a, then y and z of b.
#define MARROW_SHUFPS(a, b, z, y, x, w) wasm_i32x4_shuffle(a, b, w, x, (y) + 4, (z) + 4)

struct M {
  v128_t lo, hi;  // all ones or all zeros per lane
};

struct F {
  v128_t lo, hi;
  MARROW_LANES_INLINE static F load(const float* p) {
    return {wasm_v128_load(p), wasm_v128_load(p + 4)};
  }
  MARROW_LANES_INLINE static F loadu(const float* p) { return load(p); }
  MARROW_LANES_INLINE static F set1(float x) { return {wasm_f32x4_splat(x), wasm_f32x4_splat(x)}; }
  MARROW_LANES_INLINE static F zero() { return set1(0.0f); }
  MARROW_LANES_INLINE void store(float* p) const {
    wasm_v128_store(p, lo);
    wasm_v128_store(p + 4, hi);
  }
  MARROW_LANES_INLINE void storeu(float* p) const { store(p); }
};

struct I {
  v128_t lo, hi;
  MARROW_LANES_INLINE static I load_u8(const std::uint8_t* p) {
    const v128_t words = wasm_u16x8_extend_low_u8x16(wasm_v128_load64_zero(p));
    return {wasm_u32x4_extend_low_u16x8(words), wasm_u32x4_extend_high_u16x8(words)};
  }
  MARROW_LANES_INLINE static I load_u16(const std::uint16_t* p) {
    const v128_t words = wasm_v128_load(p);
    return {wasm_u32x4_extend_low_u16x8(words), wasm_u32x4_extend_high_u16x8(words)};
  }
  MARROW_LANES_INLINE static I loadu(const std::int32_t* p) {
    return {wasm_v128_load(p), wasm_v128_load(p + 4)};
  }
  MARROW_LANES_INLINE static I set1(std::int32_t x) {
    return {wasm_i32x4_splat(x), wasm_i32x4_splat(x)};
  }
};

MARROW_LANES_INLINE F operator+(F a, F b) {
  return {wasm_f32x4_add(a.lo, b.lo), wasm_f32x4_add(a.hi, b.hi)};
}
MARROW_LANES_INLINE F operator-(F a, F b) {
  return {wasm_f32x4_sub(a.lo, b.lo), wasm_f32x4_sub(a.hi, b.hi)};
}
MARROW_LANES_INLINE F operator*(F a, F b) {
  return {wasm_f32x4_mul(a.lo, b.lo), wasm_f32x4_mul(a.hi, b.hi)};
}
MARROW_LANES_INLINE F operator/(F a, F b) {
  return {wasm_f32x4_div(a.lo, b.lo), wasm_f32x4_div(a.hi, b.hi)};
}
MARROW_LANES_INLINE F operator-(F a) {
  return {wasm_f32x4_neg(a.lo), wasm_f32x4_neg(a.hi)};
}
MARROW_LANES_INLINE F fma(F a, F b, F c) {
  return a * b + c;
}
// bitselect(a, b, m) takes a where m is set: min is a where a < b, else b (NaN in a gives b).
MARROW_LANES_INLINE F min(F a, F b) {
  return {wasm_v128_bitselect(a.lo, b.lo, wasm_f32x4_lt(a.lo, b.lo)),
          wasm_v128_bitselect(a.hi, b.hi, wasm_f32x4_lt(a.hi, b.hi))};
}
MARROW_LANES_INLINE F max(F a, F b) {
  return {wasm_v128_bitselect(a.lo, b.lo, wasm_f32x4_gt(a.lo, b.lo)),
          wasm_v128_bitselect(a.hi, b.hi, wasm_f32x4_gt(a.hi, b.hi))};
}
MARROW_LANES_INLINE F sqrt(F a) {
  return {wasm_f32x4_sqrt(a.lo), wasm_f32x4_sqrt(a.hi)};
}
MARROW_LANES_INLINE F rsqrt(F a) {
  return F::set1(1.0f) / sqrt(a);
}
MARROW_LANES_INLINE F abs(F a) {
  return {wasm_f32x4_abs(a.lo), wasm_f32x4_abs(a.hi)};
}
MARROW_LANES_INLINE F flip_sign(F a, F sign) {
  const v128_t bit = wasm_f32x4_splat(-0.0f);
  return {wasm_v128_xor(a.lo, wasm_v128_and(sign.lo, bit)),
          wasm_v128_xor(a.hi, wasm_v128_and(sign.hi, bit))};
}
MARROW_LANES_INLINE F select(M m, F a, F b) {
  return {wasm_v128_bitselect(a.lo, b.lo, m.lo), wasm_v128_bitselect(a.hi, b.hi, m.hi)};
}
MARROW_LANES_INLINE M operator<(F a, F b) {
  return {wasm_f32x4_lt(a.lo, b.lo), wasm_f32x4_lt(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator<=(F a, F b) {
  return {wasm_f32x4_le(a.lo, b.lo), wasm_f32x4_le(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator>(F a, F b) {
  return {wasm_f32x4_gt(a.lo, b.lo), wasm_f32x4_gt(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator>=(F a, F b) {
  return {wasm_f32x4_ge(a.lo, b.lo), wasm_f32x4_ge(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator&(M a, M b) {
  return {wasm_v128_and(a.lo, b.lo), wasm_v128_and(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator|(M a, M b) {
  return {wasm_v128_or(a.lo, b.lo), wasm_v128_or(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator!(M a) {
  return {wasm_v128_not(a.lo), wasm_v128_not(a.hi)};
}
MARROW_LANES_INLINE bool any(M a) {
  return wasm_v128_any_true(wasm_v128_or(a.lo, a.hi));
}
MARROW_LANES_INLINE F to_float(I a) {
  return {wasm_f32x4_convert_i32x4(a.lo), wasm_f32x4_convert_i32x4(a.hi)};
}
MARROW_LANES_INLINE M operator==(I a, I b) {
  return {wasm_i32x4_eq(a.lo, b.lo), wasm_i32x4_eq(a.hi, b.hi)};
}
MARROW_LANES_INLINE I to_int_trunc(F a) {
  return {wasm_i32x4_trunc_sat_f32x4(a.lo), wasm_i32x4_trunc_sat_f32x4(a.hi)};
}
MARROW_LANES_INLINE I operator&(I a, I b) {
  return {wasm_v128_and(a.lo, b.lo), wasm_v128_and(a.hi, b.hi)};
}
MARROW_LANES_INLINE I operator+(I a, I b) {
  return {wasm_i32x4_add(a.lo, b.lo), wasm_i32x4_add(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator==(F a, F b) {
  return {wasm_f32x4_eq(a.lo, b.lo), wasm_f32x4_eq(a.hi, b.hi)};
}
MARROW_LANES_INLINE M operator!=(F a, F b) {
  return {wasm_f32x4_ne(a.lo, b.lo), wasm_f32x4_ne(a.hi, b.hi)};
}
MARROW_LANES_INLINE bool all(M a) {
  return wasm_i32x4_all_true(wasm_v128_and(a.lo, a.hi));
}
// out = a * b for affine column-major 4x4 matrices: a is 16 floats, b is given as its columns
// 0 and 1 (b01) and 2 and 3 (b23).
MARROW_LANES_INLINE v128_t affine_column(v128_t a0, v128_t a1, v128_t a2, v128_t b) {
  return wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(a0, wasm_i32x4_shuffle(b, b, 0, 0, 0, 0)),
                                       wasm_f32x4_mul(a1, wasm_i32x4_shuffle(b, b, 1, 1, 1, 1))),
                        wasm_f32x4_mul(a2, wasm_i32x4_shuffle(b, b, 2, 2, 2, 2)));
}
MARROW_LANES_INLINE void affine_mul(const float* a, F b01, F b23, float* out) {
  const v128_t a0 = wasm_v128_load(a), a1 = wasm_v128_load(a + 4), a2 = wasm_v128_load(a + 8);
  const v128_t a3 = wasm_v128_load(a + 12);
  wasm_v128_store(out, affine_column(a0, a1, a2, b01.lo));
  wasm_v128_store(out + 4, affine_column(a0, a1, a2, b01.hi));
  wasm_v128_store(out + 8, affine_column(a0, a1, a2, b23.lo));
  wasm_v128_store(out + 12, wasm_f32x4_add(affine_column(a0, a1, a2, b23.hi), a3));
}
MARROW_LANES_INLINE void transpose4(v128_t& a, v128_t& b, v128_t& c, v128_t& d) {
  const v128_t t0 = wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(c, d, 0, 4, 1, 5);
  const v128_t t2 = wasm_i32x4_shuffle(a, b, 2, 6, 3, 7), t3 = wasm_i32x4_shuffle(c, d, 2, 6, 3, 7);
  a = wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5);
  b = wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7);
  c = wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5);
  d = wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7);
}
// WebAssembly has no non-temporal stores: a plain copy. The unused F names the level, so that
// the kernels find this by argument-dependent lookup.
MARROW_LANES_INLINE void stream_copy(const float* from, float* to, std::size_t count, F /*level*/) {
  for (std::size_t i = 0; i < count; i += 4) wasm_v128_store(to + i, wasm_v128_load(from + i));
}

// The pieces of the interleaving (lanes_128_common.inc), as lanes_sse2.h's: four xyz vectors
// a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3 to and from x, y, z.
MARROW_LANES_INLINE void deinterleave3(v128_t a, v128_t b, v128_t c, v128_t& x, v128_t& y,
                                       v128_t& z) {
  x = MARROW_SHUFPS(a, MARROW_SHUFPS(b, c, 1, 1, 2, 2), 2, 0, 3, 0);
  y = MARROW_SHUFPS(MARROW_SHUFPS(a, b, 0, 0, 1, 1), MARROW_SHUFPS(b, c, 2, 2, 3, 3), 2, 0, 2, 0);
  z = MARROW_SHUFPS(MARROW_SHUFPS(a, b, 1, 1, 2, 2), c, 3, 0, 2, 0);
}
MARROW_LANES_INLINE void interleave3(v128_t x, v128_t y, v128_t z, v128_t& a, v128_t& b,
                                     v128_t& c) {
  a = MARROW_SHUFPS(wasm_i32x4_shuffle(x, y, 0, 4, 1, 5), MARROW_SHUFPS(z, x, 1, 1, 0, 0), 2, 0, 1,
                    0);
  b = MARROW_SHUFPS(MARROW_SHUFPS(y, z, 1, 1, 1, 1), wasm_i32x4_shuffle(x, y, 2, 6, 3, 7), 1, 0, 2,
                    0);
  c = MARROW_SHUFPS(MARROW_SHUFPS(z, x, 3, 3, 2, 2), MARROW_SHUFPS(y, z, 3, 3, 3, 3), 2, 0, 2, 0);
}
// A 3-float vector written lane by lane (the scattered stores').
MARROW_LANES_INLINE void store3_at(float* p, v128_t v) {
  p[0] = wasm_f32x4_extract_lane(v, 0);
  p[1] = wasm_f32x4_extract_lane(v, 1);
  p[2] = wasm_f32x4_extract_lane(v, 2);
}

// The register operations lanes_128_common.inc builds on.
using V = v128_t;
MARROW_LANES_INLINE V load4(const float* p) {
  return wasm_v128_load(p);
}
MARROW_LANES_INLINE void store4(float* p, V v) {
  wasm_v128_store(p, v);
}

#include "math/simd/lanes_128_common.inc"
#include "math/simd/lanes_bits_portable.inc"

#undef MARROW_SHUFPS

}  // namespace marrow::simd::wasm128
