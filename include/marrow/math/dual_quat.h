/// @file
/// Unit dual quaternions: a rotation (real part) and a translation (dual = 0.5 * t * real), the
/// rigid transforms dual-quaternion skinning blends (Kavan et al., "Geometric Skinning with
/// Approximate Dual Quaternion Blending", 2008).
#pragma once

#include "marrow/math/quat.h"
#include "marrow/math/vec3.h"

namespace marrow {

struct DualQuat {
  Quat real{0, 0, 0, 1};
  Quat dual{0, 0, 0, 0};

  static constexpr DualQuat identity() { return {}; }
};

/// The rigid transform "rotate by q, then translate by t".
constexpr DualQuat dual_quat_from_rotation_translation(Quat q, Vec3 t) {
  // dual = 0.5 * (t, 0) * q
  const Quat tq = Quat{t.x, t.y, t.z, 0} * q;
  return {q, scale(tq, 0.5f)};
}

/// Translation of a unit dual quaternion: 2 * dual * conjugate(real), vector part.
constexpr Vec3 dual_quat_translation(const DualQuat& d) {
  const Vec3 vr{d.real.x, d.real.y, d.real.z}, vd{d.dual.x, d.dual.y, d.dual.z};
  return (vd * d.real.w - vr * d.dual.w + cross(vr, vd)) * 2.0f;
}

inline Vec3 transform_point(const DualQuat& d, Vec3 p) {
  return rotate(d.real, p) + dual_quat_translation(d);
}

}  // namespace marrow
