// Comparisons shared by the runtime tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "marrow/math/mat4.h"
#include "marrow/math/quat.h"
#include "marrow/math/vec3.h"

namespace marrow::test {

inline constexpr float kEps = 1e-5f;
inline constexpr float kPi = std::numbers::pi_v<float>;
inline const float kHalfSqrt2 = std::sqrt(0.5f);

inline void expect_mat_near(const Mat4& a, const Mat4& b, float eps = kEps) {
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(a.m[i], b.m[i], eps) << "element " << i;
}

// q and -q are the same rotation: |dot| must be 1.
inline void expect_same_rotation(Quat got, Quat want, float eps = kEps) {
  EXPECT_NEAR(std::fabs(dot(got, want)), 1.0f, eps)
      << "got (" << got.x << ", " << got.y << ", " << got.z << ", " << got.w << ") want (" << want.x
      << ", " << want.y << ", " << want.z << ", " << want.w << ")";
}

}  // namespace marrow::test

#define EXPECT_VEC3_NEAR(a, ex, ey, ez, eps) \
  do {                                       \
    const ::marrow::Vec3 v_ = (a);           \
    EXPECT_NEAR(v_.x, (ex), (eps));          \
    EXPECT_NEAR(v_.y, (ey), (eps));          \
    EXPECT_NEAR(v_.z, (ez), (eps));          \
  } while (0)

#define EXPECT_QUAT_NEAR(a, ex, ey, ez, ew, eps) \
  do {                                           \
    const ::marrow::Quat q_ = (a);               \
    EXPECT_NEAR(q_.x, (ex), (eps));              \
    EXPECT_NEAR(q_.y, (ey), (eps));              \
    EXPECT_NEAR(q_.z, (ez), (eps));              \
    EXPECT_NEAR(q_.w, (ew), (eps));              \
  } while (0)
