// The fast morph kernel: one moved vertex at a time with 4-float vectors (GCC/Clang vector
// extensions, as the skinning kernels), the number of targets moving the vertex a compile-time
// constant for 1..8 so the inner loop unrolls. Each delta is one 4-float load (the arrays carry
// a padding element; the 4th lane is never stored). On x86-64 compiled for the baseline and for
// x86-64-v3 (AVX2, FMA), chosen at load time.
#include <cstring>

#include "base/sanitizer_build.h"
#include "math/simd/force_inline.h"
#include "skin/morph_data.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(MARROW_ADDRESS_SANITIZER)
#define MARROW_MORPH_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MARROW_MORPH_CLONES
#endif

namespace marrow::detail {

namespace {

using v4 = float __attribute__((vector_size(16)));

#define MARROW_INLINE MARROW_FORCE_INLINE

MARROW_INLINE v4 load4(const float* p) {
  v4 r;
  std::memcpy(&r, p, sizeof r);
  return r;
}
MARROW_INLINE void store3(float* p, v4 v) {
  std::memcpy(p, &v, 3 * sizeof(float));
}

template <std::size_t K, bool kNormals, bool kTangents>
MARROW_INLINE void morph_group(const skin_detail::MorphMeshData& d,
                               const skin_detail::MorphMeshData::Group& g, const float* weights,
                               MorphedVertices& out, std::size_t k_runtime) {
  const std::size_t k = K ? K : k_runtime;
  const std::uint32_t* targets = d.entry_target.data() + g.first_entry;
  const float* pd = &d.position_deltas[g.first_entry].x;
  const float* nd = kNormals ? &d.normal_deltas[g.first_entry].x : nullptr;
  const float* td = kTangents ? &d.tangent_deltas[g.first_entry].x : nullptr;
  const float* base_p = &d.base_positions[0].x;
  const float* base_n = kNormals ? &d.base_normals[0].x : nullptr;
  float* out_p = &out.positions[0].x;
  float* out_n = kNormals ? &out.normals[0].x : nullptr;
  for (std::size_t m = g.begin; m < g.end; ++m) {
    const std::size_t v = d.moved[m];
    v4 p = load4(base_p + 3 * v);  // the padding element makes the 4th float safe
    v4 n{}, t{};
    if constexpr (kNormals) n = load4(base_n + 3 * v);
    if constexpr (kTangents) t = load4(d.base_tangents[v].data());
    for (std::size_t i = 0; i < k; ++i) {
      const float w = weights[targets[i]];
      const v4 ws{w, w, w, w};
      p += ws * load4(pd + 3 * i);
      if constexpr (kNormals) n += ws * load4(nd + 3 * i);
      if constexpr (kTangents) t += ws * load4(td + 3 * i);
    }
    store3(out_p + 3 * v, p);
    if constexpr (kNormals) store3(out_n + 3 * v, n);
    if constexpr (kTangents) store3(out.tangents[v].data(), t);  // w (handedness) stays
    targets += k;
    pd += 3 * k;
    if constexpr (kNormals) nd += 3 * k;
    if constexpr (kTangents) td += 3 * k;
  }
}

template <bool kNormals, bool kTangents>
MARROW_INLINE void dispatch(const skin_detail::MorphMeshData& d,
                            const skin_detail::MorphMeshData::Group& g, const float* w,
                            MorphedVertices& out) {
  switch (g.targets) {
    case 1:
      return morph_group<1, kNormals, kTangents>(d, g, w, out, 1);
    case 2:
      return morph_group<2, kNormals, kTangents>(d, g, w, out, 2);
    case 3:
      return morph_group<3, kNormals, kTangents>(d, g, w, out, 3);
    case 4:
      return morph_group<4, kNormals, kTangents>(d, g, w, out, 4);
    case 5:
      return morph_group<5, kNormals, kTangents>(d, g, w, out, 5);
    case 6:
      return morph_group<6, kNormals, kTangents>(d, g, w, out, 6);
    case 7:
      return morph_group<7, kNormals, kTangents>(d, g, w, out, 7);
    case 8:
      return morph_group<8, kNormals, kTangents>(d, g, w, out, 8);
    default:
      return morph_group<0, kNormals, kTangents>(d, g, w, out, g.targets);
  }
}

}  // namespace

MARROW_MORPH_CLONES
void morph_group_simd(const skin_detail::MorphMeshData& d,
                      const skin_detail::MorphMeshData::Group& g, const float* weights,
                      MorphedVertices& out) {
  if (d.morph_normals && d.morph_tangents)
    dispatch<true, true>(d, g, weights, out);
  else if (d.morph_normals)
    dispatch<true, false>(d, g, weights, out);
  else if (d.morph_tangents)
    dispatch<false, true>(d, g, weights, out);
  else
    dispatch<false, false>(d, g, weights, out);
}

}  // namespace marrow::detail
