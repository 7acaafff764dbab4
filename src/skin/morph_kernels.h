// The fast morph kernel, written once and instantiated per SIMD level in the skinning kernels'
// translation units (skinning_simd_<level>.cpp), so it goes through the runtime's one dispatch
// (src/math/simd/dispatch.h). Every function is a template over the level's lane type F, used
// only to give each level's machine code symbols of its own (src/math/simd/README.md).
//
// One moved vertex at a time with 4-float vectors (GCC/Clang vector extensions), the number of
// targets moving the vertex a compile-time constant for 1..8 so the inner loop unrolls. Each
// delta is one 4-float load (the arrays carry a padding element; the 4th lane is never stored).
// Private to src/skin. Include after one lanes header.
#pragma once

#include "math/simd/force_inline.h"
#include "skin/skinning_simd.h"

namespace marrow::skin_detail {

using Float4 = float __attribute__((vector_size(16)));

template <class F>
MARROW_FORCE_INLINE Float4 morph_load4(const float* p) {
  Float4 r;
  __builtin_memcpy(&r, p, sizeof r);
  return r;
}

template <class F>
MARROW_FORCE_INLINE void morph_store3(float* p, Float4 v) {
  __builtin_memcpy(p, &v, 3 * sizeof(float));
}

// Every field is copied to a local first: the stores go through memcpy, which may alias any
// memory, so fields read through `a` would be reloaded after every store.
template <class F, std::size_t K, bool kNormals, bool kTangents>
MARROW_FORCE_INLINE void morph_moved(const MorphGroupArgs& a) {
  const std::size_t k = K ? K : a.targets, count = a.count;
  const std::uint32_t* const moved = a.moved;
  const float* const weights = a.weights;
  const float *const base_p = a.base_positions, *const base_n = a.base_normals,
                     *const base_t = a.base_tangents;
  float *const out_p = a.out_positions, *const out_n = a.out_normals, *const out_t = a.out_tangents;
  const std::uint32_t* targets = a.entry_target;
  const float* pd = a.position_deltas;
  const float* nd = a.normal_deltas;
  const float* td = a.tangent_deltas;
  for (std::size_t m = 0; m < count; ++m) {
    const std::size_t v = moved[m];
    Float4 p = morph_load4<F>(base_p + 3 * v);  // padded: the 4th float is readable
    Float4 n{}, t{};
    if constexpr (kNormals) n = morph_load4<F>(base_n + 3 * v);
    if constexpr (kTangents) t = morph_load4<F>(base_t + 4 * v);
    for (std::size_t i = 0; i < k; ++i) {
      const float w = weights[targets[i]];
      const Float4 ws{w, w, w, w};
      p += ws * morph_load4<F>(pd + 3 * i);
      if constexpr (kNormals) n += ws * morph_load4<F>(nd + 3 * i);
      if constexpr (kTangents) t += ws * morph_load4<F>(td + 3 * i);
    }
    morph_store3<F>(out_p + 3 * v, p);
    if constexpr (kNormals) morph_store3<F>(out_n + 3 * v, n);
    if constexpr (kTangents) morph_store3<F>(out_t + 4 * v, t);  // w (handedness) stays
    targets += k;
    pd += 3 * k;
    if constexpr (kNormals) nd += 3 * k;
    if constexpr (kTangents) td += 3 * k;
  }
}

template <class F, bool kNormals, bool kTangents>
MARROW_FORCE_INLINE void morph_by_target_count(const MorphGroupArgs& a) {
  switch (a.targets) {
    case 1:
      return morph_moved<F, 1, kNormals, kTangents>(a);
    case 2:
      return morph_moved<F, 2, kNormals, kTangents>(a);
    case 3:
      return morph_moved<F, 3, kNormals, kTangents>(a);
    case 4:
      return morph_moved<F, 4, kNormals, kTangents>(a);
    case 5:
      return morph_moved<F, 5, kNormals, kTangents>(a);
    case 6:
      return morph_moved<F, 6, kNormals, kTangents>(a);
    case 7:
      return morph_moved<F, 7, kNormals, kTangents>(a);
    case 8:
      return morph_moved<F, 8, kNormals, kTangents>(a);
    default:
      return morph_moved<F, 0, kNormals, kTangents>(a);
  }
}

template <class F>
void morph_group(const MorphGroupArgs& a) {
  if (a.normal_deltas && a.tangent_deltas)
    morph_by_target_count<F, true, true>(a);
  else if (a.normal_deltas)
    morph_by_target_count<F, true, false>(a);
  else if (a.tangent_deltas)
    morph_by_target_count<F, false, true>(a);
  else
    morph_by_target_count<F, false, false>(a);
}

}  // namespace marrow::skin_detail
