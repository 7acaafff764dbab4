/// @file
/// Unit quaternions (x, y, z, w), the glTF order. Rotations compose as q = a * b: b first, then a.
#pragma once

#include <cmath>

#include "marrow/math/vec3.h"

namespace marrow {

struct Quat {
  float x = 0, y = 0, z = 0, w = 1;

  static constexpr Quat identity() { return {0, 0, 0, 1}; }
  friend constexpr bool operator==(Quat a, Quat b) = default;
};

constexpr float dot(Quat a, Quat b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
constexpr Quat operator*(Quat a, Quat b) {
  return {
      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
constexpr Quat conjugate(Quat q) {
  return {-q.x, -q.y, -q.z, q.w};
}
constexpr Quat negate(Quat q) {
  return {-q.x, -q.y, -q.z, -q.w};
}
constexpr Quat scale(Quat q, float s) {
  return {q.x * s, q.y * s, q.z * s, q.w * s};
}
constexpr Quat add(Quat a, Quat b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
}

/// Normalizes; a zero (or non-finite length) quaternion becomes the identity, never NaN.
inline Quat normalize(Quat q) {
  const float n2 = dot(q, q);
  if (!(n2 > 1e-30f) || !std::isfinite(n2)) return Quat::identity();
  return scale(q, 1.0f / std::sqrt(n2));
}

inline Vec3 rotate(Quat q, Vec3 v) {
  const Vec3 u{q.x, q.y, q.z};
  const Vec3 t = cross(u, v) * 2.0f;
  return v + t * q.w + cross(u, t);
}

inline Quat from_axis_angle(Vec3 axis, float radians) {
  const float len = length(axis);
  if (len <= 0) return Quat::identity();
  const float s = std::sin(radians * 0.5f) / len;
  return {axis.x * s, axis.y * s, axis.z * s, std::cos(radians * 0.5f)};
}

/// Angle in radians between two orientations (0..pi), ignoring the double cover.
inline float angle_between(Quat a, Quat b) {
  // From the chord and its complement, not acos of the dot product: acos is steep near 1, where
  // a dot product's rounding alone would read as a thousandth of a radian.
  a = normalize(a);
  b = normalize(b);
  if (dot(a, b) < 0) b = negate(b);
  const Quat d = add(a, negate(b)), s = add(a, b);
  return 4.0f * std::atan2(std::sqrt(dot(d, d)), std::sqrt(dot(s, s)));
}

/// Normalized linear interpolation along the shortest arc.
inline Quat nlerp(Quat a, Quat b, float t) {
  if (dot(a, b) < 0) b = negate(b);
  return normalize(add(scale(a, 1 - t), scale(b, t)));
}

/// Spherical linear interpolation along the shortest arc (glTF LINEAR rotations).
Quat slerp(Quat a, Quat b, float t);

inline bool is_finite(Quat q) {
  return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w);
}

}  // namespace marrow
