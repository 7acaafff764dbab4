// Quaternions, matrices and TRS decomposition against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "marrow/math/mat4.h"
#include "marrow/math/quat.h"
#include "marrow/math/transform.h"
#include "marrow/math/vec3.h"
#include "runtime_test_util.h"

namespace marrow {
namespace {

using test::expect_mat_near;
using test::expect_same_rotation;
using test::kEps;
using test::kHalfSqrt2;
using test::kPi;

// 90 degrees about z: (0, 0, sin 45, cos 45).
Quat rot_z90() {
  return {0, 0, kHalfSqrt2, kHalfSqrt2};
}
// 90 degrees about x.
Quat rot_x90() {
  return {kHalfSqrt2, 0, 0, kHalfSqrt2};
}

TEST(Quat, HamiltonProductOfBasisUnits) {
  const Quat i{1, 0, 0, 0}, j{0, 1, 0, 0}, k{0, 0, 1, 0};
  EXPECT_EQ(i * j, (Quat{0, 0, 1, 0}));   // ij = k
  EXPECT_EQ(j * i, (Quat{0, 0, -1, 0}));  // ji = -k
  EXPECT_EQ(j * k, (Quat{1, 0, 0, 0}));   // jk = i
  EXPECT_EQ(k * i, (Quat{0, 1, 0, 0}));   // ki = j
  EXPECT_EQ(i * i, (Quat{0, 0, 0, -1}));  // i^2 = -1
}

TEST(Quat, MultiplyComposesRightOperandFirst) {
  // (90 about z) * (90 about x): every product term is s*s = 1/2, giving (1/2, 1/2, 1/2, 1/2),
  // the 120 degree turn about (1, 1, 1) that cycles x -> y -> z.
  const Quat q = rot_z90() * rot_x90();
  EXPECT_QUAT_NEAR(q, 0.5f, 0.5f, 0.5f, 0.5f, kEps);
  // x first turns about x (stays x), then about z: x -> y.
  EXPECT_VEC3_NEAR(rotate(q, {1, 0, 0}), 0, 1, 0, kEps);
  // y -> z under x, then z stays under z.
  EXPECT_VEC3_NEAR(rotate(q, {0, 1, 0}), 0, 0, 1, kEps);
}

TEST(Quat, RotateVectors) {
  EXPECT_VEC3_NEAR(rotate(rot_z90(), {1, 0, 0}), 0, 1, 0, kEps);
  EXPECT_VEC3_NEAR(rotate(rot_z90(), {0, 1, 0}), -1, 0, 0, kEps);
  EXPECT_VEC3_NEAR(rotate(rot_z90(), {0, 0, 3}), 0, 0, 3, kEps);
  EXPECT_VEC3_NEAR(rotate(rot_x90(), {0, 2, 0}), 0, 0, 2, kEps);
  // 120 degrees about (1,1,1): (1, 2, 3) = 1x + 2y + 3z -> 1y + 2z + 3x.
  EXPECT_VEC3_NEAR(rotate(Quat{0.5f, 0.5f, 0.5f, 0.5f}, {1, 2, 3}), 3, 1, 2, kEps);
  // 180 about y: (x, y, z) -> (-x, y, -z).
  EXPECT_VEC3_NEAR(rotate(Quat{0, 1, 0, 0}, {1, 2, 3}), -1, 2, -3, kEps);
  EXPECT_EQ(rotate(Quat::identity(), Vec3{4, 5, 6}), (Vec3{4, 5, 6}));
}

TEST(Quat, FromAxisAngleNormalizesTheAxis) {
  EXPECT_QUAT_NEAR(from_axis_angle({0, 0, 2}, kPi / 2), 0, 0, kHalfSqrt2, kHalfSqrt2, kEps);
  EXPECT_QUAT_NEAR(from_axis_angle({0, 3, 0}, kPi), 0, 1, 0, 0, kEps);
  // 60 degrees about (1,1,1)/sqrt3: sin30 / sqrt3 per axis component, w = cos30.
  const float c = 0.5f / std::sqrt(3.0f);
  EXPECT_QUAT_NEAR(from_axis_angle({1, 1, 1}, kPi / 3), c, c, c, std::sqrt(3.0f) / 2, kEps);
  EXPECT_EQ(from_axis_angle({0, 0, 0}, 1.0f), Quat::identity());
}

TEST(Quat, ConjugateIsTheInverseOfAUnitQuaternion) {
  const Quat q = normalize(Quat{0.1f, -0.7f, 0.3f, 0.5f});
  EXPECT_QUAT_NEAR(q * conjugate(q), 0, 0, 0, 1, kEps);
  EXPECT_QUAT_NEAR(conjugate(q) * q, 0, 0, 0, 1, kEps);
  EXPECT_VEC3_NEAR(rotate(conjugate(q), rotate(q, {1, 2, 3})), 1, 2, 3, kEps);
}

TEST(Quat, NormalizeNeverReturnsNaN) {
  EXPECT_QUAT_NEAR(normalize(Quat{0, 0, 3, 4}), 0, 0, 0.6f, 0.8f, kEps);
  EXPECT_EQ(normalize(Quat{0, 0, 0, 0}), Quat::identity());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(normalize(Quat{nan, 0, 0, 1}), Quat::identity());
  EXPECT_EQ(normalize(Quat{inf, 0, 0, 1}), Quat::identity());
}

TEST(Quat, AngleBetweenIgnoresTheDoubleCover) {
  EXPECT_NEAR(angle_between(Quat::identity(), rot_z90()), kPi / 2, kEps);
  EXPECT_NEAR(angle_between(Quat::identity(), negate(rot_z90())), kPi / 2, kEps);
  EXPECT_NEAR(angle_between(rot_x90(), negate(rot_x90())), 0.0f, 1e-6f);
}

// Small angles read as themselves: 2 acos(dot) could not tell 1e-5 rad from 0 (a dot product one
// rounding step below 1 is acos's 7e-4 rad), so tests comparing poses measured their rounding.
TEST(Quat, AngleBetweenResolvesSmallAngles) {
  const Quat a = from_axis_angle({0.3f, -0.5f, 0.8f}, 1.1f);
  for (float angle : {1e-5f, 1e-4f, 3e-3f}) {
    const Quat b = a * from_axis_angle({1, 0, 0}, angle);
    EXPECT_NEAR(angle_between(a, b), angle, angle * 0.05f) << angle;
    EXPECT_NEAR(angle_between(negate(a), b), angle, angle * 0.05f) << angle;
  }
  EXPECT_NEAR(angle_between(a, a), 0.0f, 1e-6f);
}

TEST(Quat, SlerpEndpoints) {
  const Quat a = rot_x90(), b = rot_z90();
  expect_same_rotation(slerp(a, b, 0), a);
  expect_same_rotation(slerp(a, b, 1), b);
}

TEST(Quat, SlerpHasConstantAngularVelocity) {
  // From identity to 90 about z: at t the rotation is 90t degrees about z, i.e.
  // (0, 0, sin(45t deg), cos(45t deg)). nlerp would give 21.6 degrees at t = 1/4, not 22.5.
  const Quat a = Quat::identity(), b = rot_z90();
  for (float t : {0.25f, 1.0f / 3.0f, 0.5f, 0.75f}) {
    const float half = t * kPi / 4;
    SCOPED_TRACE(t);
    EXPECT_QUAT_NEAR(slerp(a, b, t), 0, 0, std::sin(half), std::cos(half), kEps);
  }
  // sin 15 = (sqrt6 - sqrt2) / 4, cos 15 = (sqrt6 + sqrt2) / 4: 30 degrees at t = 1/3.
  const float s6 = std::sqrt(6.0f), s2 = std::sqrt(2.0f);
  EXPECT_QUAT_NEAR(slerp(a, b, 1.0f / 3.0f), 0, 0, (s6 - s2) / 4, (s6 + s2) / 4, kEps);
}

TEST(Quat, SlerpTakesTheShortestArc) {
  // -b is the same orientation as b; the path must still be the 90 degree one, not 270.
  const Quat a = Quat::identity(), b = rot_z90();
  const Quat q = slerp(a, negate(b), 0.5f);
  const float s = std::sin(kPi / 8), c = std::cos(kPi / 8);  // 45 degrees about z
  expect_same_rotation(q, Quat{0, 0, s, c});
  EXPECT_VEC3_NEAR(rotate(q, {1, 0, 0}), kHalfSqrt2, kHalfSqrt2, 0, kEps);
  // The long way round would have put x at 135 degrees.
  EXPECT_GT(rotate(q, {1, 0, 0}).x, 0.0f);
}

TEST(Quat, SlerpOfWideAngles) {
  // 170 degrees about x: halfway is 85 degrees about x.
  const float deg = kPi / 180;
  const Quat b = from_axis_angle({1, 0, 0}, 170 * deg);
  const Quat q = slerp(Quat::identity(), b, 0.5f);
  EXPECT_QUAT_NEAR(q, std::sin(42.5f * deg), 0, 0, std::cos(42.5f * deg), kEps);
}

TEST(Quat, SlerpOfNearlyEqualOrientationsStaysUnitAndBetween) {
  const float deg = std::numbers::pi_v<float> / 180;
  const Quat a = from_axis_angle({0, 1, 0}, 10 * deg);
  const Quat b = from_axis_angle({0, 1, 0}, 10.5f * deg);
  const Quat q = slerp(a, b, 0.5f);
  EXPECT_NEAR(dot(q, q), 1.0f, kEps);
  EXPECT_QUAT_NEAR(q, 0, std::sin(5.125f * deg), 0, std::cos(5.125f * deg), 1e-6f);
  // Identical inputs give the input back.
  expect_same_rotation(slerp(a, a, 0.3f), a, 1e-6f);
}

TEST(Quat, NlerpTakesTheShortestArc) {
  const Quat q = nlerp(Quat::identity(), negate(rot_z90()), 0.5f);
  const float s = std::sin(kPi / 8), c = std::cos(kPi / 8);
  EXPECT_QUAT_NEAR(q, 0, 0, s, c, kEps);
}

TEST(Mat4, IdentityAndAccessors) {
  Mat4 m;
  EXPECT_EQ(m, Mat4::identity());
  m(0, 3) = 5;  // row 0, column 3: translation x, stored at m[12] (column-major)
  m(2, 1) = 7;
  EXPECT_EQ(m.m[12], 5.0f);
  EXPECT_EQ(m.m[6], 7.0f);
  EXPECT_EQ(m.translation(), (Vec3{5, 0, 0}));
  EXPECT_EQ(m.column(1), (Vec3{0, 1, 7}));
}

TEST(Mat4, FromTrsIsTranslationTimesRotationTimesScale) {
  // T(1,2,3) R(90 about z) S(2,3,4): columns are R(2x) = (0,2,0), R(3y) = (-3,0,0), 4z, t.
  const Mat4 m = mat4_from_trs({1, 2, 3}, rot_z90(), {2, 3, 4});
  Mat4 expected;
  expected.m = {0, 2, 0, 0, -3, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3, 1};
  expect_mat_near(m, expected);
  // Point (1,1,1): scaled (2,3,4), rotated (-3,2,4), translated (-2,4,7).
  EXPECT_VEC3_NEAR(transform_point(m, {1, 1, 1}), -2, 4, 7, kEps);
  // Vectors ignore the translation.
  EXPECT_VEC3_NEAR(transform_vector(m, {1, 1, 1}), -3, 2, 4, kEps);
}

TEST(Mat4, FromTrsMatchesQuaternionRotation) {
  const Quat q = normalize(Quat{0.3f, -0.2f, 0.6f, 0.7f});
  const Mat4 m = mat4_from_trs({0, 0, 0}, q, {1, 1, 1});
  for (Vec3 v : {Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}, Vec3{1, -2, 3}}) {
    const Vec3 a = transform_vector(m, v), b = rotate(q, v);
    EXPECT_VEC3_NEAR(a, b.x, b.y, b.z, kEps);
  }
}

TEST(Mat4, MulAffineComposesRightFirst) {
  const Mat4 a = mat4_from_trs({10, 0, 0}, rot_z90(), {1, 1, 1});
  const Mat4 b = mat4_from_trs({0, 1, 0}, Quat::identity(), {2, 2, 2});
  // b: (1,0,0) -> (2,1,0); a: rotate -> (-1,2,0), translate -> (9,2,0).
  EXPECT_VEC3_NEAR(transform_point(mul_affine(a, b), {1, 0, 0}), 9, 2, 0, kEps);
  // The other order: a: (1,0,0) -> (10,1,0); b: (20,2,0) + (0,1,0) = (20,3,0).
  EXPECT_VEC3_NEAR(transform_point(mul_affine(b, a), {1, 0, 0}), 20, 3, 0, kEps);
  EXPECT_EQ(mul_affine(Mat4::identity(), a), a);
  EXPECT_EQ(mul_affine(a, Mat4::identity()), a);
}

TEST(Mat4, InvertAffineOfSimpleMatrices) {
  Mat4 inv;
  ASSERT_TRUE(invert_affine(mat4_from_trs({1, -2, 3}, Quat::identity(), {1, 1, 1}), inv));
  Mat4 expected;
  expected.m[12] = -1, expected.m[13] = 2, expected.m[14] = -3;
  expect_mat_near(inv, expected);

  ASSERT_TRUE(invert_affine(mat4_from_trs({0, 0, 0}, Quat::identity(), {2, 4, 8}), inv));
  expected = Mat4::identity();
  expected.m[0] = 0.5f, expected.m[5] = 0.25f, expected.m[10] = 0.125f;
  expect_mat_near(inv, expected);

  // The inverse of a rotation is its transpose: 90 about z inverted is -90 about z.
  ASSERT_TRUE(invert_affine(mat4_from_trs({0, 0, 0}, rot_z90(), {1, 1, 1}), inv));
  expected = Mat4::identity();
  expected.m = {0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  expect_mat_near(inv, expected);
}

TEST(Mat4, InvertAffineOfGeneralTrs) {
  const Mat4 m = mat4_from_trs({1, 2, 3}, rot_z90(), {2, 3, 4});
  Mat4 inv;
  ASSERT_TRUE(invert_affine(m, inv));
  // From the worked example above: m maps (1,1,1) to (-2,4,7).
  EXPECT_VEC3_NEAR(transform_point(inv, {-2, 4, 7}), 1, 1, 1, kEps);
  expect_mat_near(mul_affine(m, inv), Mat4::identity());
  expect_mat_near(mul_affine(inv, m), Mat4::identity());
  // A sheared, mirrored matrix inverts too.
  Mat4 s;
  s.m = {1, 0, 0, 0, 0.5f, -2, 0, 0, 0, 0.25f, 3, 0, 4, 5, 6, 1};
  ASSERT_TRUE(invert_affine(s, inv));
  expect_mat_near(mul_affine(s, inv), Mat4::identity());
}

TEST(Mat4, InvertAffineRejectsSingularMatrices) {
  Mat4 out;
  out.m[12] = 42;  // a sentinel that must survive
  const Mat4 before = out;
  EXPECT_FALSE(invert_affine(mat4_from_trs({1, 2, 3}, rot_x90(), {1, 0, 1}), out));
  EXPECT_EQ(out, before);
  Mat4 flat;  // two equal columns
  flat.m = {1, 2, 3, 0, 1, 2, 3, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  EXPECT_FALSE(invert_affine(flat, out));
  Mat4 nan = Mat4::identity();
  nan.m[5] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(invert_affine(nan, out));
  EXPECT_EQ(out, before);
}

TEST(Decompose, RecoversTrs) {
  const Quat q{0.5f, 0.5f, 0.5f, 0.5f};
  const Decomposition d = decompose(mat4_from_trs({1, 2, 3}, q, {2, 3, 4}));
  EXPECT_TRUE(d.exact);
  EXPECT_VEC3_NEAR(d.transform.translation, 1, 2, 3, kEps);
  EXPECT_VEC3_NEAR(d.transform.scale, 2, 3, 4, kEps);
  expect_same_rotation(d.transform.rotation, q);
}

TEST(Decompose, RecoversEveryShepperdBranch) {
  // Rotations near 180 degrees about x, y, z exercise the non-trace branches.
  const float deg = kPi / 180;
  for (Vec3 axis : {Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}, Vec3{1, 2, -3}}) {
    for (float angle : {10 * deg, 100 * deg, 179 * deg, 180 * deg}) {
      const Quat q = from_axis_angle(axis, angle);
      const Decomposition d = decompose(mat4_from_trs({0, 0, 0}, q, {1, 1, 1}));
      EXPECT_TRUE(d.exact);
      expect_same_rotation(d.transform.rotation, q);
      EXPECT_NEAR(dot(d.transform.rotation, d.transform.rotation), 1.0f, kEps);
    }
  }
}

TEST(Decompose, NegativeDeterminantGoesIntoXScale) {
  // diag(-2, 3, 4): the mirror is already on x, so the rotation is the identity.
  Mat4 m = Mat4::identity();
  m.m[0] = -2, m.m[5] = 3, m.m[10] = 4;
  Decomposition d = decompose(m);
  EXPECT_TRUE(d.exact);
  EXPECT_VEC3_NEAR(d.transform.scale, -2, 3, 4, kEps);
  expect_same_rotation(d.transform.rotation, Quat::identity());

  // diag(1, -1, 1), a mirror in y: with the sign moved to x it is R * diag(-1, 1, 1), so
  // R = diag(-1, -1, 1), the half turn about z, (0, 0, 1, 0).
  m = Mat4::identity();
  m.m[5] = -1;
  m.m[12] = 7;
  d = decompose(m);
  EXPECT_TRUE(d.exact);
  EXPECT_VEC3_NEAR(d.transform.scale, -1, 1, 1, kEps);
  expect_same_rotation(d.transform.rotation, Quat{0, 0, 1, 0});
  EXPECT_VEC3_NEAR(d.transform.translation, 7, 0, 0, kEps);
  // Rebuilding gives the matrix back.
  expect_mat_near(to_matrix(d.transform), m);
}

TEST(Decompose, MirroredTrsRoundTrips) {
  const Quat q = normalize(Quat{0.2f, 0.4f, -0.1f, 0.9f});
  const Mat4 m = mat4_from_trs({-1, 0.5f, 2}, q, {1.5f, -2, 0.5f});
  const Decomposition d = decompose(m);
  EXPECT_TRUE(d.exact);
  EXPECT_LT(d.transform.scale.x, 0.0f);
  EXPECT_GT(d.transform.scale.y, 0.0f);
  EXPECT_GT(d.transform.scale.z, 0.0f);
  expect_mat_near(to_matrix(d.transform), m);
}

TEST(Decompose, ReportsShear) {
  // Column 1 = (0.5, 1, 0): y leans towards x, which TRS cannot hold.
  Mat4 m = Mat4::identity();
  m.m[4] = 0.5f;
  Decomposition d = decompose(m);
  EXPECT_FALSE(d.exact);
  EXPECT_TRUE(is_finite(d.transform));

  // A tiny shear inside the tolerance still counts as exact.
  m.m[4] = 1e-6f;
  d = decompose(m);
  EXPECT_TRUE(d.exact);
}

TEST(Decompose, SingularIsNotExact) {
  const Decomposition d = decompose(mat4_from_trs({1, 2, 3}, rot_z90(), {1, 0, 2}));
  EXPECT_FALSE(d.exact);
  EXPECT_VEC3_NEAR(d.transform.translation, 1, 2, 3, kEps);
  EXPECT_TRUE(is_finite(d.transform));
}

TEST(Transform, IdentityAndFiniteness) {
  EXPECT_EQ(to_matrix(Transform::identity()), Mat4::identity());
  Transform t;
  EXPECT_TRUE(is_finite(t));
  t.scale.y = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(is_finite(t));
  t = {};
  t.rotation.z = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(is_finite(t));
}

}  // namespace
}  // namespace marrow
