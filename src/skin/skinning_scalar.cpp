// The scalar skinning kernels: one vertex at a time, written for clarity. They are the reference
// the SIMD kernels are tested against.
#include "skin/skinning_kernels.h"

namespace marrow::detail {

namespace {

// The blended 3x3 columns and translation of a vertex's influences.
struct Blend {
  Vec3 c0, c1, c2, t;
};

// Normal transform by the inverse transpose of [c0 c1 c2]: the cofactor matrix (columns
// c1 x c2, c2 x c0, c0 x c1) has the same direction up to the determinant's sign. With
// `linear`, by [c0 c1 c2] itself and not normalized (NormalTransform::kLinearUnnormalized).
Vec3 transform_normal(Vec3 c0, Vec3 c1, Vec3 c2, Vec3 n, bool linear) {
  if (linear) return c0 * n.x + c1 * n.y + c2 * n.z;
  const Vec3 x = cross(c1, c2), y = cross(c2, c0), z = cross(c0, c1);
  Vec3 r = x * n.x + y * n.y + z * n.z;
  if (dot(c0, x) < 0) r = -r;
  return normalized_or_zero(r);
}

void write_tangent(std::array<float, 4>& out, Vec3 t, float w, bool linear) {
  const Vec3 u = linear ? t : normalized_or_zero(t);
  out = {u.x, u.y, u.z, w};
}

}  // namespace

void copy_unweighted(const KernelArgs& a, const skin_detail::SkinningMeshData::Group& g,
                     std::size_t s0, std::size_t s1) {
  (void)g;
  const skin_detail::SkinningMeshData& d = *a.mesh;
  for (std::size_t s = s0; s < s1; ++s) {
    const std::uint32_t v = d.original_index[s];
    a.positions[v] = a.bind_positions[s];
    if (a.normals)
      a.normals[v] = a.linear_vectors ? a.bind_normals[s] : normalized_or_zero(a.bind_normals[s]);
    if (a.tangents) {
      const auto& t = a.bind_tangents[s];
      write_tangent(a.tangents[v], {t[0], t[1], t[2]}, t[3], a.linear_vectors);
    }
  }
}

void lbs_scalar(const KernelArgs& a, const Mat4* palette,
                const skin_detail::SkinningMeshData::Group& g, std::size_t s0, std::size_t s1) {
  const skin_detail::SkinningMeshData& d = *a.mesh;
  const std::size_t k = g.influences;
  for (std::size_t s = s0; s < s1; ++s) {
    const std::size_t f = g.first_influence + (s - g.begin) * k;
    Blend b{};
    for (std::size_t i = 0; i < k; ++i) {
      const Mat4& m = palette[d.joints[f + i]];
      const float w = d.weights[f + i];
      b.c0 += m.column(0) * w;
      b.c1 += m.column(1) * w;
      b.c2 += m.column(2) * w;
      b.t += m.column(3) * w;
    }
    const std::uint32_t v = d.original_index[s];
    const Vec3 p = a.bind_positions[s];
    a.positions[v] = b.c0 * p.x + b.c1 * p.y + b.c2 * p.z + b.t;
    if (a.normals)
      a.normals[v] = transform_normal(b.c0, b.c1, b.c2, a.bind_normals[s], a.linear_vectors);
    if (a.tangents) {
      const auto& t = a.bind_tangents[s];
      write_tangent(a.tangents[v], b.c0 * t[0] + b.c1 * t[1] + b.c2 * t[2], t[3], a.linear_vectors);
    }
  }
}

namespace {

template <typename JointOf>
void dqs_scalar_impl(const KernelArgs& a, JointOf&& joint_of,
                     const skin_detail::SkinningMeshData::Group& g, std::size_t s0,
                     std::size_t s1) {
  const skin_detail::SkinningMeshData& d = *a.mesh;
  const std::size_t k = g.influences;
  for (std::size_t s = s0; s < s1; ++s) {
    const std::size_t f = g.first_influence + (s - g.begin) * k;
    Quat real{0, 0, 0, 0}, dual{0, 0, 0, 0};
    Vec3 s0c{}, s1c{}, s2c{};  // blended stretch columns
    Quat pivot{};
    for (std::size_t i = 0; i < k; ++i) {
      const DqsJoint j = joint_of(d.joints[f + i]);
      float w = d.weights[f + i];
      // Hemisphere alignment against the strongest influence: q and -q are the same rotation,
      // and blending across hemispheres would take the long way round.
      if (i == 0)
        pivot = j.dq.real;
      else if (dot(pivot, j.dq.real) < 0)
        w = -w;
      real = add(real, scale(j.dq.real, w));
      dual = add(dual, scale(j.dq.dual, w));
      const float aw = std::fabs(w);
      s0c += Vec3{j.stretch[0], j.stretch[1], j.stretch[2]} * aw;
      s1c += Vec3{j.stretch[3], j.stretch[4], j.stretch[5]} * aw;
      s2c += Vec3{j.stretch[6], j.stretch[7], j.stretch[8]} * aw;
    }
    const float n2 = dot(real, real);
    const float inv = n2 > 1e-30f ? 1.0f / std::sqrt(n2) : 0.0f;
    const DualQuat dq{scale(real, inv), scale(dual, inv)};
    const std::uint32_t v = d.original_index[s];
    const Vec3 p = a.bind_positions[s];
    a.positions[v] = transform_point(dq, s0c * p.x + s1c * p.y + s2c * p.z);
    if (a.normals) {
      const Vec3 n =
          rotate(dq.real, transform_normal(s0c, s1c, s2c, a.bind_normals[s], a.linear_vectors));
      a.normals[v] = a.linear_vectors ? n : normalized_or_zero(n);
    }
    if (a.tangents) {
      const auto& t = a.bind_tangents[s];
      write_tangent(a.tangents[v], rotate(dq.real, s0c * t[0] + s1c * t[1] + s2c * t[2]), t[3],
                    a.linear_vectors);
    }
  }
}

}  // namespace

void dqs_scalar(const KernelArgs& a, const DqsJoint* palette,
                const skin_detail::SkinningMeshData::Group& g, std::size_t s0, std::size_t s1) {
  dqs_scalar_impl(
      a, [palette](std::uint16_t j) -> const DqsJoint& { return palette[j]; }, g, s0, s1);
}

void dqs_scalar_from_matrices(const KernelArgs& a, const Mat4* palette,
                              const skin_detail::SkinningMeshData::Group& g, std::size_t s0,
                              std::size_t s1) {
  dqs_scalar_impl(
      a, [palette](std::uint16_t j) { return dqs_joint_from_matrix(palette[j]); }, g, s0, s1);
}

}  // namespace marrow::detail
