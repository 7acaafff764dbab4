/// @file
/// Local transforms are translation + unit rotation + scale, never a matrix: blending matrices
/// shears and shrinks (DESIGN.md §3).
#pragma once

#include "marrow/math/mat4.h"
#include "marrow/math/quat.h"
#include "marrow/math/vec3.h"

namespace marrow {

struct Transform {
  Vec3 translation{0, 0, 0};
  Quat rotation{0, 0, 0, 1};
  Vec3 scale{1, 1, 1};

  static constexpr Transform identity() { return {}; }
  friend constexpr bool operator==(const Transform& a, const Transform& b) = default;
};

inline Mat4 to_matrix(const Transform& t) {
  return mat4_from_trs(t.translation, t.rotation, t.scale);
}

inline bool is_finite(const Transform& t) {
  return is_finite(t.translation) && is_finite(t.rotation) && is_finite(t.scale);
}

struct Decomposition {
  Transform transform;
  bool exact = true;  ///< false when the matrix had shear (or was singular) that TRS cannot hold
};

/// Splits an affine matrix into TRS. A negative determinant goes into the x scale; shear is
/// dropped and reported through `exact`.
Decomposition decompose(const Mat4& m);

}  // namespace marrow
