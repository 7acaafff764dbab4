#include "marrow/math/transform.h"

#include <algorithm>
#include <cmath>

namespace marrow {

Quat slerp(Quat a, Quat b, float t) {
  float cos_theta = dot(a, b);
  if (cos_theta < 0) {
    b = negate(b);
    cos_theta = -cos_theta;
  }
  // Close orientations: sin(theta) underflows, and the linear path is exact to float precision.
  if (cos_theta > 0.9995f) return normalize(add(scale(a, 1 - t), scale(b, t)));
  const float theta = std::acos(std::min(cos_theta, 1.0f));
  const float sin_theta = std::sin(theta);
  const float wa = std::sin((1 - t) * theta) / sin_theta;
  const float wb = std::sin(t * theta) / sin_theta;
  return normalize(add(scale(a, wa), scale(b, wb)));
}

bool invert_affine(const Mat4& a, Mat4& out) {
  const Vec3 c0 = a.column(0), c1 = a.column(1), c2 = a.column(2), t = a.column(3);
  // Rows of the inverse 3x3 are the cross products of the columns over the determinant.
  const Vec3 r0 = cross(c1, c2), r1 = cross(c2, c0), r2 = cross(c0, c1);
  const float det = dot(c0, r0);
  if (!(std::fabs(det) > 1e-30f) || !std::isfinite(det)) return false;
  const float inv = 1.0f / det;
  Mat4 r;
  r.m = {r0.x * inv, r1.x * inv, r2.x * inv, 0, r0.y * inv, r1.y * inv, r2.y * inv, 0,
         r0.z * inv, r1.z * inv, r2.z * inv, 0, 0,          0,          0,          1};
  const Vec3 it = transform_vector(r, t);
  r.m[12] = -it.x;
  r.m[13] = -it.y;
  r.m[14] = -it.z;
  out = r;
  return true;
}

Quat quat_from_rotation_columns(Vec3 c0, Vec3 c1, Vec3 c2) {
  // Shepperd's method: pick the largest of the four diagonal combinations for stability.
  const float m00 = c0.x, m10 = c0.y, m20 = c0.z;
  const float m01 = c1.x, m11 = c1.y, m21 = c1.z;
  const float m02 = c2.x, m12 = c2.y, m22 = c2.z;
  const float trace = m00 + m11 + m22;
  Quat q;
  if (trace > 0) {
    const float s = 0.5f / std::sqrt(trace + 1.0f);
    q = {(m21 - m12) * s, (m02 - m20) * s, (m10 - m01) * s, 0.25f / s};
  } else if (m00 > m11 && m00 > m22) {
    const float s = 2.0f * std::sqrt(1.0f + m00 - m11 - m22);
    q = {0.25f * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s};
  } else if (m11 > m22) {
    const float s = 2.0f * std::sqrt(1.0f + m11 - m00 - m22);
    q = {(m01 + m10) / s, 0.25f * s, (m12 + m21) / s, (m02 - m20) / s};
  } else {
    const float s = 2.0f * std::sqrt(1.0f + m22 - m00 - m11);
    q = {(m02 + m20) / s, (m12 + m21) / s, 0.25f * s, (m10 - m01) / s};
  }
  return normalize(q);
}

Decomposition decompose(const Mat4& m) {
  Decomposition d;
  Vec3 c0 = m.column(0), c1 = m.column(1), c2 = m.column(2);
  Vec3 s{length(c0), length(c1), length(c2)};
  if (dot(c0, cross(c1, c2)) < 0) s.x = -s.x;
  d.transform.translation = m.translation();
  d.transform.scale = s;
  if (s.x == 0 || s.y == 0 || s.z == 0 || !is_finite(s)) {
    d.exact = false;
    return d;
  }
  c0 *= 1.0f / s.x;
  c1 *= 1.0f / s.y;
  c2 *= 1.0f / s.z;
  // Columns of a pure rotation are orthogonal; anything else is shear TRS cannot represent.
  constexpr float kShearTolerance = 1e-4f;
  if (std::fabs(dot(c0, c1)) > kShearTolerance || std::fabs(dot(c1, c2)) > kShearTolerance ||
      std::fabs(dot(c0, c2)) > kShearTolerance) {
    d.exact = false;
  }
  d.transform.rotation = quat_from_rotation_columns(c0, c1, c2);
  return d;
}

}  // namespace marrow
