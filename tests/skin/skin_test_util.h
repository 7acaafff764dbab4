// Random meshes and palettes, and an independent double-precision skinning reference.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "marrow/math/mat4.h"
#include "marrow/skin/skinned_mesh.h"
#include "marrow/skin/skinning.h"

namespace marrow::test {

// One skinned frame's outputs, sized for n vertices.
struct Frame {
  std::vector<Vec3> positions, normals;
  std::vector<std::array<float, 4>> tangents;
  explicit Frame(std::size_t n) : positions(n), normals(n), tangents(n) {}
  SkinningOutput out(NormalTransform mode = NormalTransform::kExact) {
    return {positions, normals, tangents, mode};
  }
};

using D3 = std::array<double, 3>;
using D4 = std::array<double, 4>;                 // quaternion x y z w
using M3 = std::array<std::array<double, 3>, 3>;  // [row][column]

inline D3 d3(Vec3 v) {
  return {v.x, v.y, v.z};
}

inline double ddot(const D3& a, const D3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
inline D3 dnormalize(D3 v) {
  const double n = std::sqrt(ddot(v, v));
  return n > 0 ? D3{v[0] / n, v[1] / n, v[2] / n} : D3{0, 0, 0};
}
inline D3 mul(const M3& m, const D3& v) {
  D3 r{};
  for (int i = 0; i < 3; ++i) r[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
  return r;
}
inline M3 mul(const M3& a, const M3& b) {
  M3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[i][j] += a[i][k] * b[k][j];
  return r;
}
inline double det(const M3& m) {
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
         m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}
// Inverse by Gauss-Jordan elimination with partial pivoting, then transposed.
inline M3 inverse_transpose(const M3& m) {
  double a[3][6];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 6; ++j) a[i][j] = j < 3 ? m[i][j] : (j - 3 == i ? 1.0 : 0.0);
  for (int c = 0; c < 3; ++c) {
    int p = c;
    for (int r = c + 1; r < 3; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    for (int j = 0; j < 6; ++j) std::swap(a[c][j], a[p][j]);
    const double piv = a[c][c];
    for (int j = 0; j < 6; ++j) a[c][j] /= piv;
    for (int r = 0; r < 3; ++r) {
      if (r == c) continue;
      const double f = a[r][c];
      for (int j = 0; j < 6; ++j) a[r][j] -= f * a[c][j];
    }
  }
  M3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r[j][i] = a[i][j + 3];
  return r;
}
inline M3 quat_matrix(const D4& q) {
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  return M3{{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
             {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
             {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
}

// A palette joint built from known parts: M = [R(q) | t] * [S | 0], S symmetric positive
// definite, so the polar decomposition of M's 3x3 is exactly (R, S).
struct JointParts {
  D4 q;  // unit
  D3 t;
  M3 s;
};

inline Mat4 to_mat4(const JointParts& j) {
  const M3 a = mul(quat_matrix(j.q), j.s);
  Mat4 m;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) m(r, c) = static_cast<float>(a[r][c]);
    m(r, 3) = static_cast<float>(j.t[r]);
  }
  return m;
}

// Rotation up to `max_angle` about a random axis; translation in [-1, 1]^3; stretch identity
// or a random symmetric positive definite matrix (non-uniform scale and shear).
inline JointParts random_joint(std::mt19937& rng, bool stretch, double max_angle = 1.5) {
  std::uniform_real_distribution<double> u(-1, 1);
  D3 axis{u(rng), u(rng), u(rng)};
  axis = dnormalize(axis);
  const double angle = max_angle * (0.5 * u(rng) + 0.5);
  JointParts j;
  j.q = {axis[0] * std::sin(angle / 2), axis[1] * std::sin(angle / 2),
         axis[2] * std::sin(angle / 2), std::cos(angle / 2)};
  j.t = {u(rng), u(rng), u(rng)};
  j.s = M3{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  if (stretch) {
    // S = V diag(d) V^T with V a random rotation and d in [0.6, 1.6].
    D3 va{u(rng), u(rng), u(rng)};
    va = dnormalize(va);
    const double b = 3 * u(rng);
    const M3 v =
        quat_matrix({va[0] * std::sin(b), va[1] * std::sin(b), va[2] * std::sin(b), std::cos(b)});
    M3 dm{};
    for (int i = 0; i < 3; ++i) dm[i][i] = 1.1 + 0.5 * u(rng);
    M3 vt{};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) vt[r][c] = v[c][r];
    j.s = mul(mul(v, dm), vt);
  }
  return j;
}

// A mesh whose vertex v has influence_count(v) influences with random positive weights summing
// to 1 (distinct joints, stored in random order: build sorts them).
template <typename CountOf>
SkinnedMesh random_mesh(std::mt19937& rng, std::size_t vertices, std::size_t joints,
                        CountOf&& influence_count) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::uniform_real_distribution<float> w01(0.05f, 1.0f);
  SkinnedMesh mesh;
  mesh.name = "random";
  mesh.skin = 0;
  mesh.influence_offsets.push_back(0);
  std::vector<std::uint16_t> pool(joints);
  for (std::size_t j = 0; j < joints; ++j) pool[j] = static_cast<std::uint16_t>(j);
  for (std::size_t v = 0; v < vertices; ++v) {
    mesh.positions.push_back({u(rng), u(rng), u(rng)});
    const Vec3 n{u(rng), u(rng), u(rng)};
    mesh.normals.push_back(n * (1.0f / length(n)));
    Vec3 t = cross(n, Vec3{u(rng), u(rng), u(rng)});
    mesh.tangents.push_back(
        {t.x / length(t), t.y / length(t), t.z / length(t), u(rng) < 0 ? -1.0f : 1.0f});
    const std::size_t k = influence_count(v);
    std::shuffle(pool.begin(), pool.end(), rng);
    float sum = 0;
    std::vector<float> w(k);
    for (float& x : w) sum += (x = w01(rng));
    for (std::size_t i = 0; i < k; ++i) {
      mesh.influence_joints.push_back(pool[i]);
      mesh.influence_weights.push_back(w[i] / sum);
    }
    mesh.influence_offsets.push_back(static_cast<std::uint32_t>(mesh.influence_joints.size()));
  }
  return mesh;
}

struct RefVertex {
  D3 position, normal;
  D4 tangent;
};

// The influences of vertex v, strongest first, in double.
inline std::vector<std::pair<std::size_t, double>> influences(const SkinnedMesh& mesh,
                                                              std::size_t v) {
  std::vector<std::pair<std::size_t, double>> list;
  for (std::uint32_t i = mesh.influence_offsets[v]; i < mesh.influence_offsets[v + 1]; ++i)
    list.emplace_back(mesh.influence_joints[i], mesh.influence_weights[i]);
  std::stable_sort(list.begin(), list.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  double sum = 0;
  for (auto& p : list) sum += p.second;
  for (auto& p : list) p.second /= sum;
  return list;
}

// Linear blend skinning in double: A = sum w M, p' = A p, n' = normalize(A^-T n),
// t' = normalize(A t).
inline RefVertex reference_lbs(const SkinnedMesh& mesh, const std::vector<Mat4>& palette,
                               std::size_t v) {
  M3 a{};
  D3 t{};
  for (const auto& [j, w] : influences(mesh, v)) {
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) a[r][c] += w * palette[j](r, c);
      t[r] += w * palette[j](r, 3);
    }
  }
  RefVertex out;
  const D3 p = mul(a, d3(mesh.positions[v]));
  out.position = {p[0] + t[0], p[1] + t[1], p[2] + t[2]};
  if (!mesh.normals.empty())
    out.normal = dnormalize(mul(inverse_transpose(a), d3(mesh.normals[v])));
  if (!mesh.tangents.empty()) {
    const auto& tg = mesh.tangents[v];
    const D3 r = dnormalize(mul(a, D3{tg[0], tg[1], tg[2]}));
    out.tangent = {r[0], r[1], r[2], tg[3]};
  }
  return out;
}

// Dual-quaternion skinning in double from the known joint parts: stretches blended linearly and
// applied first; rotations and translations blended as dual quaternions aligned to the
// strongest influence's hemisphere, normalized.
inline RefVertex reference_dqs(const SkinnedMesh& mesh, const std::vector<JointParts>& joints,
                               std::size_t v) {
  D4 real{}, dual{};
  M3 s{};
  D4 pivot{};
  bool first = true;
  for (const auto& [j, w0] : influences(mesh, v)) {
    const JointParts& jp = joints[j];
    const D4& q = jp.q;
    // dual = 0.5 * (t, 0) * q
    const D3& t = jp.t;
    const D4 d{0.5 * (t[0] * q[3] + t[1] * q[2] - t[2] * q[1]),
               0.5 * (-t[0] * q[2] + t[1] * q[3] + t[2] * q[0]),
               0.5 * (t[0] * q[1] - t[1] * q[0] + t[2] * q[3]),
               0.5 * (-t[0] * q[0] - t[1] * q[1] - t[2] * q[2])};
    double w = w0;
    if (first) {
      pivot = q;
      first = false;
    } else if (pivot[0] * q[0] + pivot[1] * q[1] + pivot[2] * q[2] + pivot[3] * q[3] < 0) {
      w = -w;
    }
    for (int i = 0; i < 4; ++i) {
      real[i] += w * q[i];
      dual[i] += w * d[i];
    }
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) s[r][c] += w0 * jp.s[r][c];
  }
  const double n =
      std::sqrt(real[0] * real[0] + real[1] * real[1] + real[2] * real[2] + real[3] * real[3]);
  for (int i = 0; i < 4; ++i) {
    real[i] /= n;
    dual[i] /= n;
  }
  // translation = 2 * vec(dual * conj(real))
  const D3 vr{real[0], real[1], real[2]}, vd{dual[0], dual[1], dual[2]};
  const D3 tr{2 * (real[3] * vd[0] - dual[3] * vr[0] + vr[1] * vd[2] - vr[2] * vd[1]),
              2 * (real[3] * vd[1] - dual[3] * vr[1] + vr[2] * vd[0] - vr[0] * vd[2]),
              2 * (real[3] * vd[2] - dual[3] * vr[2] + vr[0] * vd[1] - vr[1] * vd[0])};
  const M3 r = quat_matrix(real);
  RefVertex out;
  const D3 p = mul(r, mul(s, d3(mesh.positions[v])));
  out.position = {p[0] + tr[0], p[1] + tr[1], p[2] + tr[2]};
  if (!mesh.normals.empty())
    out.normal = dnormalize(mul(r, mul(inverse_transpose(s), d3(mesh.normals[v]))));
  if (!mesh.tangents.empty()) {
    const auto& tg = mesh.tangents[v];
    const D3 x = dnormalize(mul(r, mul(s, D3{tg[0], tg[1], tg[2]})));
    out.tangent = {x[0], x[1], x[2], tg[3]};
  }
  return out;
}

}  // namespace marrow::test
