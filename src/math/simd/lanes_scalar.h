// 8 lanes in plain C++: the portable level (and what non-x86 builds run). See README.md.
#pragma once

#include "math/simd/force_inline.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace marrow::simd::scalar {

#define MARROW_LANES_INLINE MARROW_FORCE_INLINE

struct M {
  bool v[8];
};

struct F {
  float v[8];
  MARROW_LANES_INLINE static F load(const float* p) {
    F r;
    std::memcpy(r.v, p, sizeof r.v);
    return r;
  }
  MARROW_LANES_INLINE static F loadu(const float* p) { return load(p); }
  MARROW_LANES_INLINE static F set1(float x) {
    F r;
    for (float& e : r.v) e = x;
    return r;
  }
  MARROW_LANES_INLINE static F zero() { return set1(0.0f); }
  MARROW_LANES_INLINE void store(float* p) const { std::memcpy(p, v, sizeof v); }
  MARROW_LANES_INLINE void storeu(float* p) const { store(p); }
  MARROW_LANES_INLINE float operator[](std::size_t i) const { return v[i]; }
};

struct I {
  std::int32_t v[8];
  MARROW_LANES_INLINE static I load_u8(const std::uint8_t* p) {
    I r;
    for (int i = 0; i < 8; ++i) r.v[i] = p[i];
    return r;
  }
  MARROW_LANES_INLINE static I load_u16(const std::uint16_t* p) {
    I r;
    for (int i = 0; i < 8; ++i) r.v[i] = p[i];
    return r;
  }
  MARROW_LANES_INLINE static I loadu(const std::int32_t* p) {
    I r;
    std::memcpy(r.v, p, sizeof r.v);
    return r;
  }
  MARROW_LANES_INLINE static I set1(std::int32_t x) {
    I r;
    for (std::int32_t& e : r.v) e = x;
    return r;
  }
};

#define MARROW_LANES_BINARY(op)                            \
  MARROW_LANES_INLINE F operator op(F a, F b) {            \
    F r;                                                   \
    for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] op b.v[i]; \
    return r;                                              \
  }
MARROW_LANES_BINARY(+)
MARROW_LANES_BINARY(-)
MARROW_LANES_BINARY(*)
MARROW_LANES_BINARY(/)
#undef MARROW_LANES_BINARY

#define MARROW_LANES_COMPARE(name, op)                     \
  MARROW_LANES_INLINE M name(F a, F b) {                   \
    M r;                                                   \
    for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] op b.v[i]; \
    return r;                                              \
  }
MARROW_LANES_COMPARE(operator<, <)
MARROW_LANES_COMPARE(operator<=, <=)
MARROW_LANES_COMPARE(operator>, >)
MARROW_LANES_COMPARE(operator>=, >=)
#undef MARROW_LANES_COMPARE

MARROW_LANES_INLINE F operator-(F a) {
  F r;
  for (int i = 0; i < 8; ++i) r.v[i] = -a.v[i];
  return r;
}
// a * b + c, rounded once where the hardware fuses (std::fma is exact but slow without FMA, so
// the portable level rounds twice; levels agree within the tolerance the tests state).
MARROW_LANES_INLINE F fma(F a, F b, F c) {
  F r;
  for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] * b.v[i] + c.v[i];
  return r;
}
MARROW_LANES_INLINE F min(F a, F b) {
  F r;
  for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] < b.v[i] ? a.v[i] : b.v[i];  // NaN in a gives b
  return r;
}
MARROW_LANES_INLINE F max(F a, F b) {
  F r;
  for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i];  // NaN in a gives b
  return r;
}
MARROW_LANES_INLINE F sqrt(F a) {
  F r;
  for (int i = 0; i < 8; ++i) r.v[i] = std::sqrt(a.v[i]);
  return r;
}
MARROW_LANES_INLINE F rsqrt(F a) {
  F r;
  for (int i = 0; i < 8; ++i) r.v[i] = 1.0f / std::sqrt(a.v[i]);
  return r;
}
MARROW_LANES_INLINE F abs(F a) {
  F r;
  for (int i = 0; i < 8; ++i) r.v[i] = std::fabs(a.v[i]);
  return r;
}
// a with its sign flipped in the lanes where `sign` has its sign bit set (-0 included).
MARROW_LANES_INLINE F flip_sign(F a, F sign) {
  F r;
  for (int i = 0; i < 8; ++i) r.v[i] = std::signbit(sign.v[i]) ? -a.v[i] : a.v[i];
  return r;
}
MARROW_LANES_INLINE F select(M m, F a, F b) {
  F r;
  for (int i = 0; i < 8; ++i) r.v[i] = m.v[i] ? a.v[i] : b.v[i];
  return r;
}
MARROW_LANES_INLINE M operator&(M a, M b) {
  M r;
  for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] && b.v[i];
  return r;
}
MARROW_LANES_INLINE M operator|(M a, M b) {
  M r;
  for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] || b.v[i];
  return r;
}
MARROW_LANES_INLINE M operator!(M a) {
  M r;
  for (int i = 0; i < 8; ++i) r.v[i] = !a.v[i];
  return r;
}
MARROW_LANES_INLINE bool any(M a) {
  bool r = false;
  for (bool b : a.v) r = r || b;
  return r;
}
MARROW_LANES_INLINE F to_float(I a) {
  F r;
  for (int i = 0; i < 8; ++i) r.v[i] = static_cast<float>(a.v[i]);
  return r;
}
MARROW_LANES_INLINE M operator==(I a, I b) {
  M r;
  for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] == b.v[i];
  return r;
}
// rows[i].v[j] <-> rows[j].v[i].
MARROW_LANES_INLINE I to_int_trunc(F a) {
  I r;
  for (int i = 0; i < 8; ++i) r.v[i] = static_cast<std::int32_t>(a.v[i]);
  return r;
}
MARROW_LANES_INLINE I operator&(I a, I b) {
  I r;
  for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] & b.v[i];
  return r;
}
MARROW_LANES_INLINE I operator+(I a, I b) {
  I r;
  for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] + b.v[i];
  return r;
}
MARROW_LANES_INLINE M operator==(F a, F b) {
  M r;
  for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] == b.v[i];
  return r;
}
MARROW_LANES_INLINE M operator!=(F a, F b) {
  M r;
  for (int i = 0; i < 8; ++i) r.v[i] = a.v[i] != b.v[i];
  return r;
}
MARROW_LANES_INLINE bool all(M a) {
  bool r = true;
  for (bool b : a.v) r = r && b;
  return r;
}
// out = a * b for affine column-major 4x4 matrices: a is 16 floats, b is given as its columns
// 0 and 1 (b01) and 2 and 3 (b23). Same operation order as mat4.h's mul_affine.
MARROW_LANES_INLINE void affine_mul(const float* a, F b01, F b23, float* out) {
  const float* b[4] = {b01.v, b01.v + 4, b23.v, b23.v + 4};
  for (int c = 0; c < 4; ++c) {
    const float b3 = c == 3 ? 1.0f : 0.0f;
    for (int row = 0; row < 3; ++row) {
      out[c * 4 + row] =
          a[row] * b[c][0] + a[4 + row] * b[c][1] + a[8 + row] * b[c][2] + a[12 + row] * b3;
    }
    out[c * 4 + 3] = b3;
  }
}
// Copies `count` floats (a multiple of 4); the x86 levels use non-temporal stores here. The
// unused F names the level, so that the kernels find this by argument-dependent lookup.
MARROW_LANES_INLINE void stream_copy(const float* from, float* to, std::size_t count, F /*level*/) {
  std::memcpy(to, from, count * sizeof(float));
}
MARROW_LANES_INLINE void transpose8x8(F (&rows)[8]) {
  for (int i = 0; i < 8; ++i) {
    for (int j = i + 1; j < 8; ++j) {
      const float t = rows[i].v[j];
      rows[i].v[j] = rows[j].v[i];
      rows[j].v[i] = t;
    }
  }
}

// Structure-of-arrays views of interleaved vectors: 8 vectors of 3 floats (x y z x y z ...) or of
// 4 floats (x y z w x y z w ...), split into one register per component, and back.
MARROW_LANES_INLINE void load_interleaved3(const float* p, F& x, F& y, F& z) {
  for (int i = 0; i < 8; ++i) x.v[i] = p[3 * i], y.v[i] = p[3 * i + 1], z.v[i] = p[3 * i + 2];
}
MARROW_LANES_INLINE void store_interleaved3(float* p, F x, F y, F z) {
  for (int i = 0; i < 8; ++i) p[3 * i] = x.v[i], p[3 * i + 1] = y.v[i], p[3 * i + 2] = z.v[i];
}
MARROW_LANES_INLINE void load_interleaved4(const float* p, F& x, F& y, F& z, F& w) {
  for (int i = 0; i < 8; ++i) {
    x.v[i] = p[4 * i], y.v[i] = p[4 * i + 1], z.v[i] = p[4 * i + 2], w.v[i] = p[4 * i + 3];
  }
}
MARROW_LANES_INLINE void store_interleaved4(float* p, F x, F y, F z, F w) {
  for (int i = 0; i < 8; ++i) {
    p[4 * i] = x.v[i], p[4 * i + 1] = y.v[i], p[4 * i + 2] = z.v[i], p[4 * i + 3] = w.v[i];
  }
}

// Scattered stores: vector i of the 8 (3 or 4 components) to out + 3 * index[i] (or 4 *), and
// nothing else written, so the indices may skip vertices that belong to others.
MARROW_LANES_INLINE void store_scattered3(float* out, const std::uint32_t* index, F x, F y, F z) {
  for (int i = 0; i < 8; ++i) {
    float* p = out + 3 * static_cast<std::size_t>(index[i]);
    p[0] = x.v[i], p[1] = y.v[i], p[2] = z.v[i];
  }
}
MARROW_LANES_INLINE void store_scattered4(float* out, const std::uint32_t* index, F x, F y, F z,
                                          F w) {
  for (int i = 0; i < 8; ++i) {
    float* p = out + 4 * static_cast<std::size_t>(index[i]);
    p[0] = x.v[i], p[1] = y.v[i], p[2] = z.v[i], p[3] = w.v[i];
  }
}

#include "math/simd/lanes_bits_portable.inc"

}  // namespace marrow::simd::scalar
