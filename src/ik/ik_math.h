// Geometry shared by the IK jobs and the retargeter. Internal: not part of the public headers.
#pragma once

#include <algorithm>
#include <cmath>

#include "marrow/math/mat4.h"
#include "marrow/math/quat.h"
#include "marrow/math/transform.h"

namespace marrow::ik_detail {

// Lengths below this (relative to the lengths involved) count as zero: no direction.
inline constexpr float kTiny = 1e-12f;

inline Vec3 normalized_or(Vec3 v, Vec3 fallback) {
  const float len = length(v);
  return len > kTiny && std::isfinite(len) ? v * (1.0f / len) : fallback;
}

// A unit vector perpendicular to `v` (any one; stable for a given v).
inline Vec3 any_perpendicular(Vec3 v) {
  const Vec3 other = std::fabs(v.x) < 0.577f ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
  return normalized_or(cross(v, other), {0, 0, 1});
}

// The smallest rotation taking direction `from` to direction `to` (neither need be unit). Zero
// vectors give the identity; opposite directions turn half a turn about a perpendicular axis.
inline Quat rotation_between(Vec3 from, Vec3 to) {
  const float lf = length(from), lt = length(to);
  if (!(lf > kTiny) || !(lt > kTiny)) return Quat::identity();
  const Vec3 a = from * (1.0f / lf), b = to * (1.0f / lt);
  const float d = dot(a, b);
  if (d < -0.999999f) {
    const Vec3 axis = any_perpendicular(a);
    return {axis.x, axis.y, axis.z, 0};
  }
  // Half-angle form: q = (a x b, 1 + a.b), normalized; exact and free of trigonometry.
  const Vec3 c = cross(a, b);
  return normalize(Quat{c.x, c.y, c.z, 1 + d});
}

// Rotation about unit `axis` by `radians`.
inline Quat axis_angle(Vec3 axis, float radians) {
  const float s = std::sin(0.5f * radians);
  return {axis.x * s, axis.y * s, axis.z * s, std::cos(0.5f * radians)};
}

// The rotation of an affine matrix (its columns normalized; a mirror is folded into x, as
// decompose() does). A degenerate matrix gives the identity.
inline Quat rotation_of(const Mat4& m) {
  Vec3 c0 = m.column(0), c1 = m.column(1), c2 = m.column(2);
  const float l0 = length(c0), l1 = length(c1), l2 = length(c2);
  if (!(l0 > kTiny) || !(l1 > kTiny) || !(l2 > kTiny)) return Quat::identity();
  c0 *= (dot(c0, cross(c1, c2)) < 0 ? -1.0f : 1.0f) / l0;
  return quat_from_rotation_columns(c0, c1 * (1.0f / l1), c2 * (1.0f / l2));
}

// Turns joint j by the model-space rotation `delta` about its own origin, given its current
// model rotation: since model = parent * local, turning the model by delta is the same as
// multiplying the local rotation on the right by delta seen from the joint's own frame. Exact
// when the parent chain's scale is uniform.
inline Quat turn_local(Quat local, Quat model_rotation, Quat delta) {
  return normalize(local * (conjugate(model_rotation) * delta * model_rotation));
}

// slerp(identity, q, w): the part w of a correction.
inline Quat partial(Quat q, float w) {
  if (w >= 1) return q;
  if (w <= 0) return Quat::identity();
  if (q.w < 0) q = negate(q);
  const float half = std::acos(std::clamp(q.w, -1.0f, 1.0f));
  const float s = std::sin(half);
  if (!(s > 1e-7f)) return normalize(Quat{q.x * w, q.y * w, q.z * w, 1});
  const float k = std::sin(w * half) / s;
  return normalize(Quat{q.x * k, q.y * k, q.z * k, std::cos(w * half)});
}

// Signed angle from a to b about unit `axis`, both projected on the plane normal to it.
inline float signed_angle(Vec3 a, Vec3 b, Vec3 axis) {
  return std::atan2(dot(cross(a, b), axis), dot(a, b));
}

inline bool finite_matrix(const Mat4& m) {
  for (float v : m.m) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

}  // namespace marrow::ik_detail
