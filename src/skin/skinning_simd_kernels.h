// The SIMD skinning kernels, written once over the lane types of src/math/simd/lanes_*.h and
// instantiated per level (skinning_simd_<level>.cpp). Every function is a template over the
// level's F, so each level's machine code has symbols of its own (src/math/simd/README.md).
// Private to src/skin.
//
// Eight vertices at a time. For each vertex, its influences' palette entries are blended as rows
// of 8 floats (a Mat4's columns 0-1 and 2-3; a dual quaternion's real and dual parts), which
// needs only loads, broadcasts and fused multiply-adds; one 8x8 transpose then turns the eight
// blended rows into structure-of-arrays registers (one component of eight vertices each), and
// the rest (the point and normal transforms, the cofactor, normalization) runs 8 vertices wide.
//
// Include only after one lanes header and skinning_simd.h; this file includes nothing itself.
#pragma once

#include "math/simd/force_inline.h"

namespace marrow::skin_detail {

#define MARROW_SKIN_KERNEL MARROW_FORCE_INLINE
// How a group's run of blocks (lbs_range, dqs_range) and its last, partial block (lbs_tail,
// dqs_tail) are compiled. The x86 levels inline them, as they always have. The scalar level's
// lanes are arrays of 8 floats, each block a few thousand statements once unrolled; inlined, every
// lbs_counts/dqs_counts was one function of 18 blocks, which took GCC 12 at -O3 634 s to compile
// (its load CSE after reload, PRE and alias walks grow faster than linearly with a function's
// size) and ran slower for its 3 MB of code. skinning_simd_scalar.cpp defines
// MARROW_SKIN_OUTLINE_BLOCKS: one function per range and per tail, 139 s, and 1.8-3.0x faster
// (docs/performance.md, 2026-11-27).
#if defined(MARROW_SKIN_OUTLINE_BLOCKS)
#define MARROW_SKIN_RANGE [[gnu::noinline]]
#else
#define MARROW_SKIN_RANGE MARROW_FORCE_INLINE
#endif

template <class F>
struct V3 {
  F x, y, z;
};

template <class F>
MARROW_SKIN_KERNEL V3<F> operator+(const V3<F>& a, const V3<F>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class F>
MARROW_SKIN_KERNEL V3<F> operator*(const V3<F>& a, F s) {
  return {a.x * s, a.y * s, a.z * s};
}
template <class F>
MARROW_SKIN_KERNEL F dot(const V3<F>& a, const V3<F>& b) {
  return fma(a.x, b.x, fma(a.y, b.y, a.z * b.z));
}
template <class F>
MARROW_SKIN_KERNEL V3<F> cross(const V3<F>& a, const V3<F>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
// c0 * v.x + c1 * v.y + c2 * v.z
template <class F>
MARROW_SKIN_KERNEL V3<F> mul3(const V3<F>& c0, const V3<F>& c1, const V3<F>& c2, const V3<F>& v) {
  return {fma(c0.x, v.x, fma(c1.x, v.y, c2.x * v.z)), fma(c0.y, v.x, fma(c1.y, v.y, c2.y * v.z)),
          fma(c0.z, v.x, fma(c1.z, v.y, c2.z * v.z))};
}
// v scaled to unit length; zero where it is (nearly) zero, as skinning_kernels.h's scalar one.
template <class F>
MARROW_SKIN_KERNEL V3<F> normalized_or_zero(const V3<F>& v) {
  const F n2 = dot(v, v);
  return v * select(n2 > F::set1(1e-30f), rsqrt(n2), F::zero());
}
// The direction of the inverse transpose of [c0 c1 c2] applied to n: its cofactor matrix
// (columns c1 x c2, c2 x c0, c0 x c1), negated where the determinant is negative. Not normalized.
template <class F>
MARROW_SKIN_KERNEL V3<F> cofactor_normal(const V3<F>& c0, const V3<F>& c1, const V3<F>& c2,
                                         const V3<F>& n) {
  const V3<F> x = cross(c1, c2), y = cross(c2, c0), z = cross(c0, c1);
  const V3<F> r = mul3(x, y, z, n);
  const auto negative = dot(c0, x) < F::zero();
  return {select(negative, -r.x, r.x), select(negative, -r.y, r.y), select(negative, -r.z, r.z)};
}
// q (unit, x y z w) applied to v: v + w t + q x t with t = 2 q x v.
template <class F>
MARROW_SKIN_KERNEL V3<F> rotate(const V3<F>& q, F w, const V3<F>& v) {
  const V3<F> t = cross(q, v) * F::set1(2.0f);
  return v + t * w + cross(q, t);
}

// Inputs and outputs of a block of 8 slots starting at `s`. A full block reads in place and
// writes 8 consecutive vertices in place or scatters them (store_scattered3/4); the last, partial
// block (`lanes` < 8) goes through buffers padded with its last slot.
template <class F, bool kFull>
MARROW_SKIN_KERNEL V3<F> load3(const float* p, std::size_t s, std::size_t lanes) {
  V3<F> r;
  if constexpr (kFull) {
    load_interleaved3(p + 3 * s, r.x, r.y, r.z);
  } else {
    float buffer[24];
    for (std::size_t v = 0; v < 8; ++v) {
      const float* from = p + 3 * (s + (v < lanes ? v : lanes - 1));
      buffer[3 * v] = from[0], buffer[3 * v + 1] = from[1], buffer[3 * v + 2] = from[2];
    }
    load_interleaved3(buffer, r.x, r.y, r.z);
  }
  return r;
}
template <class F, bool kFull>
MARROW_SKIN_KERNEL void load4(const float* p, std::size_t s, std::size_t lanes, V3<F>& xyz, F& w) {
  if constexpr (kFull) {
    load_interleaved4(p + 4 * s, xyz.x, xyz.y, xyz.z, w);
  } else {
    float buffer[32];
    for (std::size_t v = 0; v < 8; ++v) {
      const float* from = p + 4 * (s + (v < lanes ? v : lanes - 1));
      for (int c = 0; c < 4; ++c) buffer[4 * v + c] = from[c];
    }
    load_interleaved4(buffer, xyz.x, xyz.y, xyz.z, w);
  }
}
// True when the block's 8 slots go to 8 consecutive vertices (within a group, slots keep their
// vertices' order, so the indices only increase). Templated on the level's F, though it does not
// use it, so each level's copy has its own name (the kernel symbol check, simd tests).
template <class F, bool kFull>
MARROW_SKIN_KERNEL bool consecutive(const std::uint32_t* index) {
  return kFull && index[7] - index[0] == 7;
}
template <class F, bool kFull>
MARROW_SKIN_KERNEL void store3(float* out, const std::uint32_t* index, std::size_t lanes,
                               const V3<F>& v) {
  if (consecutive<F, kFull>(index)) {
    store_interleaved3(out + 3 * static_cast<std::size_t>(index[0]), v.x, v.y, v.z);
  } else if constexpr (kFull) {
    store_scattered3(out, index, v.x, v.y, v.z);
  } else {
    float buffer[24];
    store_interleaved3(buffer, v.x, v.y, v.z);
    for (std::size_t i = 0; i < lanes; ++i) {
      float* to = out + 3 * static_cast<std::size_t>(index[i]);
      to[0] = buffer[3 * i], to[1] = buffer[3 * i + 1], to[2] = buffer[3 * i + 2];
    }
  }
}
template <class F, bool kFull>
MARROW_SKIN_KERNEL void store4(float* out, const std::uint32_t* index, std::size_t lanes,
                               const V3<F>& v, F w) {
  if (consecutive<F, kFull>(index)) {
    store_interleaved4(out + 4 * static_cast<std::size_t>(index[0]), v.x, v.y, v.z, w);
  } else if constexpr (kFull) {
    store_scattered4(out, index, v.x, v.y, v.z, w);
  } else {
    float buffer[32];
    store_interleaved4(buffer, v.x, v.y, v.z, w);
    for (std::size_t i = 0; i < lanes; ++i) {
      float* to = out + 4 * static_cast<std::size_t>(index[i]);
      for (int c = 0; c < 4; ++c) to[c] = buffer[4 * i + c];
    }
  }
}

// Linear blend skinning of slots [s, s + lanes). K: influences per slot when 1..8 (loops
// unrolled), 0 for the run-time count k. kLinear: NormalTransform::kLinearUnnormalized (a
// template parameter, not a run-time test: with both arms in one body the compiler may compute
// both and select).
template <class F, unsigned K, bool kLinear, bool kFull>
MARROW_SKIN_KERNEL void lbs_block(const GroupArgs& a, const float* palette, std::size_t k,
                                  std::size_t s, std::size_t lanes) {
  if constexpr (K != 0) k = K;
  F r01[8], r23[8];  // per vertex: blended columns 0-1 and 2-3
  // Unrolled, so the 16 rows stay in registers up to the transpose.
#pragma GCC unroll 8
  for (std::size_t v = 0; v < 8; ++v) {
    const std::size_t slot = s + (kFull || v < lanes ? v : lanes - 1);
    const std::uint16_t* joint = a.joints + slot * k;
    const float* weight = a.weights + slot * k;
    const float* m = palette + kMat4Floats * joint[0];
    const F w0 = F::set1(weight[0]);
    F c01 = F::loadu(m) * w0, c23 = F::loadu(m + 8) * w0;
    for (std::size_t i = 1; i < k; ++i) {
      const float* mi = palette + kMat4Floats * joint[i];
      const F wi = F::set1(weight[i]);
      c01 = fma(F::loadu(mi), wi, c01);
      c23 = fma(F::loadu(mi + 8), wi, c23);
    }
    r01[v] = c01;
    r23[v] = c23;
  }
  transpose8x8(r01);  // rows: c0.x c0.y c0.z c0.w c1.x c1.y c1.z c1.w, each over 8 vertices
  transpose8x8(r23);
  const V3<F> c0{r01[0], r01[1], r01[2]}, c1{r01[4], r01[5], r01[6]};
  const V3<F> c2{r23[0], r23[1], r23[2]}, c3{r23[4], r23[5], r23[6]};
  const std::uint32_t* index = a.original_index + s;
  store3<F, kFull>(a.out_positions, index, lanes,
                   mul3(c0, c1, c2, load3<F, kFull>(a.positions, s, lanes)) + c3);
  if (a.normals) {
    const V3<F> n = load3<F, kFull>(a.normals, s, lanes);
    if constexpr (kLinear)
      store3<F, kFull>(a.out_normals, index, lanes, mul3(c0, c1, c2, n));
    else
      store3<F, kFull>(a.out_normals, index, lanes,
                       normalized_or_zero(cofactor_normal(c0, c1, c2, n)));
  }
  if (a.tangents) {
    V3<F> t;
    F handedness;
    load4<F, kFull>(a.tangents, s, lanes, t, handedness);
    const V3<F> u = mul3(c0, c1, c2, t);
    store4<F, kFull>(a.out_tangents, index, lanes, kLinear ? u : normalized_or_zero(u), handedness);
  }
}

// Dual-quaternion skinning of slots [s, s + lanes) (skinning.h's DqsJoint: stretch first, then
// the blended rigid part). kRigid: every stretch is the identity and is skipped. kLinear: as
// lbs_block's.
template <class F, unsigned K, bool kRigid, bool kLinear, bool kFull>
MARROW_SKIN_KERNEL void dqs_block(const GroupArgs& a, const float* palette, std::size_t k,
                                  std::size_t s, std::size_t lanes) {
  if constexpr (K != 0) k = K;
  F dq[8];                 // per vertex: blended real x y z w, dual x y z w
  F stretch[8];            // per vertex: blended stretch elements 0-7 (column-major)
  float stretch8[8] = {};  // and element 8
#pragma GCC unroll 8
  for (std::size_t v = 0; v < 8; ++v) {
    const std::size_t slot = s + (kFull || v < lanes ? v : lanes - 1);
    const std::uint16_t* joint = a.joints + slot * k;
    const float* weight = a.weights + slot * k;
    const float* j0 = palette + kDqsJointFloats * joint[0];
    const F w0 = F::set1(weight[0]);
    F acc = F::loadu(j0) * w0;
    F sacc = kRigid ? F::zero() : F::loadu(j0 + 8) * w0;
    float s8 = kRigid ? 0.0f : j0[16] * weight[0];
    for (std::size_t i = 1; i < k; ++i) {
      const float* ji = palette + kDqsJointFloats * joint[i];
      // Hemisphere alignment with the strongest influence: q and -q are the same rotation.
      const float d = j0[0] * ji[0] + j0[1] * ji[1] + j0[2] * ji[2] + j0[3] * ji[3];
      const float wi = weight[i];
      acc = fma(F::loadu(ji), F::set1(d < 0 ? -wi : wi), acc);
      if constexpr (!kRigid) {
        sacc = fma(F::loadu(ji + 8), F::set1(wi), sacc);
        s8 += ji[16] * wi;
      }
    }
    dq[v] = acc;
    stretch[v] = sacc;
    stretch8[v] = s8;
  }
  transpose8x8(dq);
  const F n2 = fma(dq[0], dq[0], fma(dq[1], dq[1], fma(dq[2], dq[2], dq[3] * dq[3])));
  const F inv = select(n2 > F::set1(1e-30f), rsqrt(n2), F::zero());
  const V3<F> real{dq[0] * inv, dq[1] * inv, dq[2] * inv},
      dual{dq[4] * inv, dq[5] * inv, dq[6] * inv};
  const F rw = dq[3] * inv, dw = dq[7] * inv;
  // translation = 2 (w_r v_d - w_d v_r + v_r x v_d)
  const F two = F::set1(2.0f);
  const V3<F> rd = cross(real, dual);
  const V3<F> translation{(fma(dual.x, rw, rd.x) - real.x * dw) * two,
                          (fma(dual.y, rw, rd.y) - real.y * dw) * two,
                          (fma(dual.z, rw, rd.z) - real.z * dw) * two};
  const std::uint32_t* index = a.original_index + s;
  const V3<F> p = load3<F, kFull>(a.positions, s, lanes);
  if constexpr (kRigid) {
    store3<F, kFull>(a.out_positions, index, lanes, rotate(real, rw, p) + translation);
    if (a.normals) {
      const V3<F> n = rotate(real, rw, load3<F, kFull>(a.normals, s, lanes));
      store3<F, kFull>(a.out_normals, index, lanes, kLinear ? n : normalized_or_zero(n));
    }
    if (a.tangents) {
      V3<F> t;
      F handedness;
      load4<F, kFull>(a.tangents, s, lanes, t, handedness);
      const V3<F> u = rotate(real, rw, t);
      store4<F, kFull>(a.out_tangents, index, lanes, kLinear ? u : normalized_or_zero(u),
                       handedness);
    }
  } else {
    transpose8x8(stretch);
    const V3<F> s0{stretch[0], stretch[1], stretch[2]}, s1{stretch[3], stretch[4], stretch[5]};
    const V3<F> s2{stretch[6], stretch[7], F::loadu(stretch8)};
    store3<F, kFull>(a.out_positions, index, lanes,
                     rotate(real, rw, mul3(s0, s1, s2, p)) + translation);
    if (a.normals) {
      const V3<F> n = load3<F, kFull>(a.normals, s, lanes);
      if constexpr (kLinear) {
        store3<F, kFull>(a.out_normals, index, lanes, rotate(real, rw, mul3(s0, s1, s2, n)));
      } else {
        const V3<F> r = rotate(real, rw, cofactor_normal(s0, s1, s2, n));
        store3<F, kFull>(a.out_normals, index, lanes, normalized_or_zero(r));
      }
    }
    if (a.tangents) {
      V3<F> t;
      F handedness;
      load4<F, kFull>(a.tangents, s, lanes, t, handedness);
      const V3<F> u = rotate(real, rw, mul3(s0, s1, s2, t));
      store4<F, kFull>(a.out_tangents, index, lanes, kLinear ? u : normalized_or_zero(u),
                       handedness);
    }
  }
}

template <class F, unsigned K, bool kLinear>
MARROW_SKIN_RANGE void lbs_tail(const GroupArgs& a, const float* palette, std::size_t s) {
  lbs_block<F, K, kLinear, false>(a, palette, a.influences, s, a.count - s);
}

template <class F, unsigned K, bool kLinear>
MARROW_SKIN_RANGE void lbs_range(const GroupArgs& a, const float* palette) {
  std::size_t s = 0;
  for (; s + 8 <= a.count; s += 8) lbs_block<F, K, kLinear, true>(a, palette, a.influences, s, 8);
  if (s < a.count) lbs_tail<F, K, kLinear>(a, palette, s);
}

template <class F, unsigned K, bool kRigid, bool kLinear>
MARROW_SKIN_RANGE void dqs_tail(const GroupArgs& a, const float* palette, std::size_t s) {
  dqs_block<F, K, kRigid, kLinear, false>(a, palette, a.influences, s, a.count - s);
}

template <class F, unsigned K, bool kRigid, bool kLinear>
MARROW_SKIN_RANGE void dqs_range(const GroupArgs& a, const float* palette) {
  std::size_t s = 0;
  for (; s + 8 <= a.count; s += 8)
    dqs_block<F, K, kRigid, kLinear, true>(a, palette, a.influences, s, 8);
  if (s < a.count) dqs_tail<F, K, kRigid, kLinear>(a, palette, s);
}

// A compile-time influence count for 1..8. Not inlined into the entry points: each normal mode
// keeps a function of its own, so the exact path's code stays as it was before the second mode
// (inlined, its first A/Bs read 3-5 % slower, within this machine's noise but not worth risking).
template <class F, bool kLinear>
[[gnu::noinline]] void lbs_counts(const GroupArgs& a, const float* palette) {
  switch (a.influences) {
    case 1:
      return lbs_range<F, 1, kLinear>(a, palette);
    case 2:
      return lbs_range<F, 2, kLinear>(a, palette);
    case 3:
      return lbs_range<F, 3, kLinear>(a, palette);
    case 4:
      return lbs_range<F, 4, kLinear>(a, palette);
    case 5:
      return lbs_range<F, 5, kLinear>(a, palette);
    case 6:
      return lbs_range<F, 6, kLinear>(a, palette);
    case 7:
      return lbs_range<F, 7, kLinear>(a, palette);
    case 8:
      return lbs_range<F, 8, kLinear>(a, palette);
    default:
      return lbs_range<F, 0, kLinear>(a, palette);
  }
}

template <class F, bool kRigid, bool kLinear>
[[gnu::noinline]] void dqs_counts(const GroupArgs& a, const float* palette) {
  switch (a.influences) {
    case 1:
      return dqs_range<F, 1, kRigid, kLinear>(a, palette);
    case 2:
      return dqs_range<F, 2, kRigid, kLinear>(a, palette);
    case 3:
      return dqs_range<F, 3, kRigid, kLinear>(a, palette);
    case 4:
      return dqs_range<F, 4, kRigid, kLinear>(a, palette);
    case 5:
      return dqs_range<F, 5, kRigid, kLinear>(a, palette);
    case 6:
      return dqs_range<F, 6, kRigid, kLinear>(a, palette);
    case 7:
      return dqs_range<F, 7, kRigid, kLinear>(a, palette);
    case 8:
      return dqs_range<F, 8, kRigid, kLinear>(a, palette);
    default:
      return dqs_range<F, 0, kRigid, kLinear>(a, palette);
  }
}

// The entry points.
template <class F>
void lbs(const GroupArgs& a, const float* palette) {
  if (a.linear_vectors)
    lbs_counts<F, true>(a, palette);
  else
    lbs_counts<F, false>(a, palette);
}

template <class F>
void dqs(const GroupArgs& a, const float* palette, bool rigid) {
  if (rigid && a.linear_vectors)
    dqs_counts<F, true, true>(a, palette);
  else if (rigid)
    dqs_counts<F, true, false>(a, palette);
  else if (a.linear_vectors)
    dqs_counts<F, false, true>(a, palette);
  else
    dqs_counts<F, false, false>(a, palette);
}

}  // namespace marrow::skin_detail
