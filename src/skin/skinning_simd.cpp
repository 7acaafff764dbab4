// The fast kernels: one vertex at a time with 4-float vectors (GCC/Clang vector extensions, so
// the same code builds for SSE2, AVX2+FMA or NEON). A column of a column-major Mat4 is one
// vector, so blending k palette matrices is 4 fused multiply-adds per influence, and the group
// layout makes k a compile-time constant for 1..8 influences (no inner-loop branches).
// On x86-64 the kernels are compiled twice, for the baseline and for x86-64-v3 (AVX2, FMA), and
// the loader picks one at run time (function multiversioning); -march=native is never needed.
#include <cstring>

#include "skin/skinning_kernels.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define MARROW_SKIN_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MARROW_SKIN_CLONES
#endif

namespace marrow::detail {

namespace {

using v4 = float __attribute__((vector_size(16)));

#define MARROW_INLINE [[gnu::always_inline]] inline

MARROW_INLINE v4 load4(const float* p) {
  v4 r;
  std::memcpy(&r, p, sizeof r);
  return r;
}
MARROW_INLINE void store3(float* p, v4 v) {
  std::memcpy(p, &v, 3 * sizeof(float));
}
MARROW_INLINE v4 splat(float x) {
  return v4{x, x, x, x};
}
MARROW_INLINE v4 yzx(v4 a) {
  return __builtin_shufflevector(a, a, 1, 2, 0, 3);
}
MARROW_INLINE v4 zxy(v4 a) {
  return __builtin_shufflevector(a, a, 2, 0, 1, 3);
}
MARROW_INLINE v4 cross(v4 a, v4 b) {
  return yzx(a) * zxy(b) - zxy(a) * yzx(b);
}
MARROW_INLINE float dot3(v4 a, v4 b) {
  const v4 p = a * b;
  return p[0] + p[1] + p[2];
}
MARROW_INLINE v4 normalized_or_zero(v4 a) {
  const float n2 = dot3(a, a);
  return a * splat(n2 > 1e-30f ? 1.0f / std::sqrt(n2) : 0.0f);
}
// Inverse-transpose direction of [c0 c1 c2] applied to n (see skinning_scalar.cpp), unit length.
MARROW_INLINE v4 transform_normal(v4 c0, v4 c1, v4 c2, v4 n) {
  const v4 x = cross(c1, c2), y = cross(c2, c0), z = cross(c0, c1);
  const v4 r = x * n[0] + y * n[1] + z * n[2];
  return normalized_or_zero(dot3(c0, x) < 0 ? -r : r);
}
MARROW_INLINE void write_tangent(std::array<float, 4>& out, v4 t, float w) {
  const v4 u = normalized_or_zero(t);
  out = {u[0], u[1], u[2], w};
}

template <std::size_t K>
MARROW_INLINE void lbs_group(const KernelArgs& a, const Mat4* palette,
                             const SkinningMesh::Data::Group& g, std::size_t s0, std::size_t s1,
                             std::size_t k_runtime) {
  const SkinningMesh::Data& d = *a.mesh;
  const std::size_t k = K ? K : k_runtime;
  const std::uint16_t* joints = d.joints.data() + g.first_influence + (s0 - g.begin) * k;
  const float* weights = d.weights.data() + g.first_influence + (s0 - g.begin) * k;
  const float* positions = &a.bind_positions[0].x;
  const float* normals = a.normals ? &a.bind_normals[0].x : nullptr;
  float* out_p = &a.positions[0].x;
  float* out_n = a.normals ? &a.normals[0].x : nullptr;
  for (std::size_t s = s0; s < s1; ++s, joints += k, weights += k) {
    v4 c0{}, c1{}, c2{}, c3{};
    for (std::size_t i = 0; i < k; ++i) {
      const float* m = palette[joints[i]].m.data();
      const v4 w = splat(weights[i]);
      c0 += w * load4(m);
      c1 += w * load4(m + 4);
      c2 += w * load4(m + 8);
      c3 += w * load4(m + 12);
    }
    const std::uint32_t v = d.original_index[s];
    const v4 p = load4(positions + 3 * s);  // the padding element makes the 4th float safe
    store3(out_p + 3 * std::size_t{v}, c0 * p[0] + c1 * p[1] + c2 * p[2] + c3);
    if (out_n)
      store3(out_n + 3 * std::size_t{v}, transform_normal(c0, c1, c2, load4(normals + 3 * s)));
    if (a.tangents) {
      const v4 t = load4(a.bind_tangents[s].data());
      write_tangent(a.tangents[v], c0 * t[0] + c1 * t[1] + c2 * t[2], t[3]);
    }
  }
}

MARROW_INLINE v4 quat_rotate(v4 q, v4 p) {
  const v4 t = cross(q, p) * 2.0f;
  return p + t * q[3] + cross(q, t);
}

// kRigid: every joint's stretch is exactly the identity (the common case), so the stretch blend
// and its cofactor are skipped.
template <std::size_t K, bool kRigid>
MARROW_INLINE void dqs_group(const KernelArgs& a, const DqsJoint* palette,
                             const SkinningMesh::Data::Group& g, std::size_t s0, std::size_t s1,
                             std::size_t k_runtime) {
  const SkinningMesh::Data& d = *a.mesh;
  const std::size_t k = K ? K : k_runtime;
  const std::uint16_t* joints = d.joints.data() + g.first_influence + (s0 - g.begin) * k;
  const float* weights = d.weights.data() + g.first_influence + (s0 - g.begin) * k;
  const float* positions = &a.bind_positions[0].x;
  const float* normals = a.normals ? &a.bind_normals[0].x : nullptr;
  float* out_p = &a.positions[0].x;
  float* out_n = a.normals ? &a.normals[0].x : nullptr;
  for (std::size_t s = s0; s < s1; ++s, joints += k, weights += k) {
    const Quat pivot = palette[joints[0]].dq.real;
    v4 real{}, dual{}, s_0{}, s_1{}, s_2{};
    for (std::size_t i = 0; i < k; ++i) {
      const DqsJoint& j = palette[joints[i]];
      const v4 q = load4(&j.dq.real.x);
      const float w = weights[i];
      // Hemisphere alignment with the strongest influence (scalar: no horizontal add).
      const v4 sw = splat(dot(j.dq.real, pivot) < 0 ? -w : w);
      real += sw * q;
      dual += sw * load4(&j.dq.dual.x);
      if constexpr (!kRigid) {
        // Columns with a zero 4th lane (a neighbour's value there could underflow when
        // squared); stretch[6..8] is loaded from [5] so the read stays inside the joint.
        const v4 aw = splat(w), zero{};
        s_0 += aw * __builtin_shufflevector(load4(&j.stretch[0]), zero, 0, 1, 2, 4);
        s_1 += aw * __builtin_shufflevector(load4(&j.stretch[3]), zero, 0, 1, 2, 4);
        s_2 += aw * __builtin_shufflevector(load4(&j.stretch[5]), zero, 1, 2, 3, 4);
      }
    }
    const v4 rr = real * real;
    const float n2 = rr[0] + rr[1] + rr[2] + rr[3];
    const v4 inv = splat(n2 > 1e-30f ? 1.0f / std::sqrt(n2) : 0.0f);
    real *= inv;
    dual *= inv;
    // translation = 2 (w_r v_d - w_d v_r + v_r x v_d)
    const v4 t = (dual * real[3] - real * dual[3] + cross(real, dual)) * 2.0f;
    const std::uint32_t v = d.original_index[s];
    const v4 p = load4(positions + 3 * s);
    if constexpr (kRigid) {
      store3(out_p + 3 * std::size_t{v}, quat_rotate(real, p) + t);
      if (out_n) {
        const v4 n = load4(normals + 3 * s);
        store3(out_n + 3 * std::size_t{v}, normalized_or_zero(quat_rotate(real, n)));
      }
      if (a.tangents) {
        const v4 tg = load4(a.bind_tangents[s].data());
        write_tangent(a.tangents[v], quat_rotate(real, tg), tg[3]);
      }
    } else {
      store3(out_p + 3 * std::size_t{v},
             quat_rotate(real, s_0 * p[0] + s_1 * p[1] + s_2 * p[2]) + t);
      if (out_n) {
        const v4 n = transform_normal(s_0, s_1, s_2, load4(normals + 3 * s));
        store3(out_n + 3 * std::size_t{v}, normalized_or_zero(quat_rotate(real, n)));
      }
      if (a.tangents) {
        const v4 tg = load4(a.bind_tangents[s].data());
        write_tangent(a.tangents[v], quat_rotate(real, s_0 * tg[0] + s_1 * tg[1] + s_2 * tg[2]),
                      tg[3]);
      }
    }
  }
}

}  // namespace

MARROW_SKIN_CLONES
void lbs_simd(const KernelArgs& a, const Mat4* palette, const SkinningMesh::Data::Group& g,
              std::size_t s0, std::size_t s1) {
  switch (g.influences) {
    case 1:
      return lbs_group<1>(a, palette, g, s0, s1, 1);
    case 2:
      return lbs_group<2>(a, palette, g, s0, s1, 2);
    case 3:
      return lbs_group<3>(a, palette, g, s0, s1, 3);
    case 4:
      return lbs_group<4>(a, palette, g, s0, s1, 4);
    case 5:
      return lbs_group<5>(a, palette, g, s0, s1, 5);
    case 6:
      return lbs_group<6>(a, palette, g, s0, s1, 6);
    case 7:
      return lbs_group<7>(a, palette, g, s0, s1, 7);
    case 8:
      return lbs_group<8>(a, palette, g, s0, s1, 8);
    default:
      return lbs_group<0>(a, palette, g, s0, s1, g.influences);
  }
}

template <bool kRigid>
MARROW_INLINE void dqs_dispatch(const KernelArgs& a, const DqsJoint* palette,
                                const SkinningMesh::Data::Group& g, std::size_t s0,
                                std::size_t s1) {
  switch (g.influences) {
    case 1:
      return dqs_group<1, kRigid>(a, palette, g, s0, s1, 1);
    case 2:
      return dqs_group<2, kRigid>(a, palette, g, s0, s1, 2);
    case 3:
      return dqs_group<3, kRigid>(a, palette, g, s0, s1, 3);
    case 4:
      return dqs_group<4, kRigid>(a, palette, g, s0, s1, 4);
    case 5:
      return dqs_group<5, kRigid>(a, palette, g, s0, s1, 5);
    case 6:
      return dqs_group<6, kRigid>(a, palette, g, s0, s1, 6);
    case 7:
      return dqs_group<7, kRigid>(a, palette, g, s0, s1, 7);
    case 8:
      return dqs_group<8, kRigid>(a, palette, g, s0, s1, 8);
    default:
      return dqs_group<0, kRigid>(a, palette, g, s0, s1, g.influences);
  }
}

MARROW_SKIN_CLONES
void dqs_simd(const KernelArgs& a, const DqsJoint* palette, bool rigid,
              const SkinningMesh::Data::Group& g, std::size_t s0, std::size_t s1) {
  if (rigid)
    dqs_dispatch<true>(a, palette, g, s0, s1);
  else
    dqs_dispatch<false>(a, palette, g, s0, s1);
}

}  // namespace marrow::detail
