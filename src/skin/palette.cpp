// Skinning palettes: matrices, their dual-quaternion split, and the GPU layouts.
#include <algorithm>
#include <cmath>

#include "marrow/math/transform.h"
#include "skin/skinning_data.h"

namespace marrow {

bool compute_skinning_palette(const Skin& skin, std::span<const Mat4> model,
                              std::span<Mat4> palette) {
  const std::size_t n = skin.joints.size();
  if (palette.size() < n || skin.inverse_bind_matrices.size() < n) return false;
  for (JointIndex j : skin.joints) {
    if (j >= model.size()) return false;
  }
  for (std::size_t i = 0; i < n; ++i) {
    palette[i] = mul_affine(model[skin.joints[i]], skin.inverse_bind_matrices[i]);
  }
  return true;
}

namespace {

using Mat3d = std::array<double, 9>;  // column-major

double det3(const Mat3d& a) {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[3] * (a[1] * a[8] - a[2] * a[7]) +
         a[6] * (a[1] * a[5] - a[2] * a[4]);
}

// inverse(a)^T = cofactor(a) / det(a); returns false when singular.
bool inverse_transpose3(const Mat3d& a, Mat3d& out) {
  const double det = det3(a);
  if (!(std::fabs(det) > 1e-30) || !std::isfinite(det)) return false;
  const double inv = 1.0 / det;
  // Columns of the cofactor matrix are cross products of a's columns.
  const double* c0 = &a[0];
  const double* c1 = &a[3];
  const double* c2 = &a[6];
  auto cross_into = [&](const double* u, const double* v, double* r) {
    r[0] = (u[1] * v[2] - u[2] * v[1]) * inv;
    r[1] = (u[2] * v[0] - u[0] * v[2]) * inv;
    r[2] = (u[0] * v[1] - u[1] * v[0]) * inv;
  };
  cross_into(c1, c2, &out[0]);
  cross_into(c2, c0, &out[3]);
  cross_into(c0, c1, &out[6]);
  return true;
}

// The rotation closest to `a` (polar decomposition by Higham's averaging iteration); a
// reflection is first removed by negating the first column. Falls back to the identity when `a`
// is singular (the stretch S = R^T a then carries everything).
Quat closest_rotation(Mat3d a) {
  if (det3(a) < 0) {
    a[0] = -a[0];
    a[1] = -a[1];
    a[2] = -a[2];
  }
  Mat3d x = a;
  for (int iteration = 0; iteration < 30; ++iteration) {
    Mat3d it;
    if (!inverse_transpose3(x, it)) return Quat::identity();
    double change = 0;
    for (int i = 0; i < 9; ++i) {
      const double next = 0.5 * (x[i] + it[i]);
      change = std::max(change, std::fabs(next - x[i]));
      x[i] = next;
    }
    if (change < 1e-12) break;
  }
  const Vec3 c0{static_cast<float>(x[0]), static_cast<float>(x[1]), static_cast<float>(x[2])};
  const Vec3 c1{static_cast<float>(x[3]), static_cast<float>(x[4]), static_cast<float>(x[5])};
  const Vec3 c2{static_cast<float>(x[6]), static_cast<float>(x[7]), static_cast<float>(x[8])};
  return quat_from_rotation_columns(c0, c1, c2);
}

}  // namespace

DqsJoint dqs_joint_from_matrix(const Mat4& m) {
  Mat3d a;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) a[c * 3 + r] = m.m[c * 4 + r];
  bool finite = true;
  for (double v : a) finite = finite && std::isfinite(v);
  const Quat q = finite ? closest_rotation(a) : Quat::identity();
  // S = R^T A with R the matrix of the (float) quaternion, so R * S reproduces A.
  const Mat4 r = mat4_from_trs({}, q, {1, 1, 1});
  DqsJoint out;
  for (int c = 0; c < 3; ++c) {
    for (int row = 0; row < 3; ++row) {
      double s = 0;  // (R^T A)[row][c] = column `row` of R dotted with column c of A
      for (int k = 0; k < 3; ++k) s += static_cast<double>(r.m[row * 4 + k]) * a[c * 3 + k];
      out.stretch[c * 3 + row] = static_cast<float>(s);
    }
  }
  // A rigid joint's stretch comes out as the identity plus rounding noise (~1e-8). That noise is
  // snapped away: it would only blur results, and squaring it in the kernels' normalizations
  // underflows into denormals, which cost x86 cores a microcode assist each.
  float off_identity = 0;
  for (int i = 0; i < 9; ++i)
    off_identity = std::max(off_identity, std::fabs(out.stretch[i] - (i % 4 == 0 ? 1.0f : 0.0f)));
  if (off_identity < 1e-6f) out.stretch = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  out.dq = dual_quat_from_rotation_translation(q, m.translation());
  return out;
}

bool compute_dual_quat_palette(std::span<const Mat4> palette, std::span<DqsJoint> dq_palette) {
  if (dq_palette.size() < palette.size()) return false;
  for (std::size_t i = 0; i < palette.size(); ++i)
    dq_palette[i] = dqs_joint_from_matrix(palette[i]);
  return true;
}

bool write_palette_rows_3x4(std::span<const Mat4> palette, std::span<float> out) {
  if (out.size() < 12 * palette.size()) return false;
  for (std::size_t i = 0; i < palette.size(); ++i) {
    float* o = out.data() + 12 * i;
    for (int row = 0; row < 3; ++row)
      for (int c = 0; c < 4; ++c) o[row * 4 + c] = palette[i](row, c);
  }
  return true;
}

bool write_palette_dual_quats(std::span<const DqsJoint> dq_palette, std::span<float> dual_quats,
                              std::span<float> stretch_rows_3x4) {
  const std::size_t n = dq_palette.size();
  if (dual_quats.size() < 8 * n) return false;
  if (!stretch_rows_3x4.empty() && stretch_rows_3x4.size() < 12 * n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const DualQuat& d = dq_palette[i].dq;
    float* o = dual_quats.data() + 8 * i;
    o[0] = d.real.x, o[1] = d.real.y, o[2] = d.real.z, o[3] = d.real.w;
    o[4] = d.dual.x, o[5] = d.dual.y, o[6] = d.dual.z, o[7] = d.dual.w;
    if (!stretch_rows_3x4.empty()) {
      float* s = stretch_rows_3x4.data() + 12 * i;
      for (int row = 0; row < 3; ++row) {
        for (int c = 0; c < 3; ++c) s[row * 4 + c] = dq_palette[i].stretch[c * 3 + row];
        s[row * 4 + 3] = 0;
      }
    }
  }
  return true;
}

}  // namespace marrow
