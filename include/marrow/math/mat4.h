/// @file
/// Affine 4x4 matrices, column-major (m[column * 4 + row]) like glTF and OpenGL.
#pragma once

#include <array>

#include "marrow/math/quat.h"
#include "marrow/math/vec3.h"

namespace marrow {

struct Mat4 {
  std::array<float, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

  static constexpr Mat4 identity() { return {}; }
  float& operator()(int row, int column) { return m[column * 4 + row]; }
  float operator()(int row, int column) const { return m[column * 4 + row]; }
  Vec3 column(int c) const { return {m[c * 4], m[c * 4 + 1], m[c * 4 + 2]}; }
  Vec3 translation() const { return column(3); }
  friend bool operator==(const Mat4& a, const Mat4& b) = default;
};

/// a * b for affine matrices (the last row of both is taken as 0 0 0 1).
inline Mat4 mul_affine(const Mat4& a, const Mat4& b) {
  Mat4 r;
  for (int c = 0; c < 4; ++c) {
    const float b0 = b.m[c * 4], b1 = b.m[c * 4 + 1], b2 = b.m[c * 4 + 2];
    const float b3 = c == 3 ? 1.0f : 0.0f;
    for (int row = 0; row < 3; ++row) {
      r.m[c * 4 + row] = a.m[row] * b0 + a.m[4 + row] * b1 + a.m[8 + row] * b2 + a.m[12 + row] * b3;
    }
    r.m[c * 4 + 3] = b3;
  }
  return r;
}

/// Translation * rotation * scale.
inline Mat4 mat4_from_trs(Vec3 t, Quat q, Vec3 s) {
  const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  Mat4 r;
  r.m = {(1 - 2 * (yy + zz)) * s.x,
         2 * (xy + wz) * s.x,
         2 * (xz - wy) * s.x,
         0,
         2 * (xy - wz) * s.y,
         (1 - 2 * (xx + zz)) * s.y,
         2 * (yz + wx) * s.y,
         0,
         2 * (xz + wy) * s.z,
         2 * (yz - wx) * s.z,
         (1 - 2 * (xx + yy)) * s.z,
         0,
         t.x,
         t.y,
         t.z,
         1};
  return r;
}

inline Vec3 transform_point(const Mat4& a, Vec3 p) {
  return {a.m[0] * p.x + a.m[4] * p.y + a.m[8] * p.z + a.m[12],
          a.m[1] * p.x + a.m[5] * p.y + a.m[9] * p.z + a.m[13],
          a.m[2] * p.x + a.m[6] * p.y + a.m[10] * p.z + a.m[14]};
}

inline Vec3 transform_vector(const Mat4& a, Vec3 v) {
  return {a.m[0] * v.x + a.m[4] * v.y + a.m[8] * v.z, a.m[1] * v.x + a.m[5] * v.y + a.m[9] * v.z,
          a.m[2] * v.x + a.m[6] * v.y + a.m[10] * v.z};
}

/// Inverse of an affine matrix; returns false (and leaves `out` untouched) when singular.
bool invert_affine(const Mat4& a, Mat4& out);

/// Rotation of an orthonormal (proper) 3x3 matrix given by its columns.
Quat quat_from_rotation_columns(Vec3 c0, Vec3 c1, Vec3 c2);

}  // namespace marrow
