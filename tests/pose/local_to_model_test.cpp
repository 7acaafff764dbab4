// Local-to-model against model-space matrices worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "job_checks.h"
#include "marrow/math/transform.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skeleton/skeleton.h"
#include "runtime_test_util.h"

namespace marrow {
namespace {

using test::refused_naming;

using test::expect_mat_near;
using test::kEps;
using test::kHalfSqrt2;

// A point of model space, named in the failure message.
#define EXPECT_POINT_NEAR(a, ex, ey, ez) \
  do {                                   \
    const Vec3 v_ = (a);                 \
    EXPECT_NEAR(v_.x, (ex), kEps) << #a; \
    EXPECT_NEAR(v_.y, (ey), kEps) << #a; \
    EXPECT_NEAR(v_.z, (ez), kEps) << #a; \
  } while (0)

const Quat kZ90{0, 0, kHalfSqrt2, kHalfSqrt2};  // (x, y, z) -> (-y, x, z)
const Quat kX90{kHalfSqrt2, 0, 0, kHalfSqrt2};  // (x, y, z) -> (x, -z, y)
const Quat kY90{0, kHalfSqrt2, 0, kHalfSqrt2};  // (x, y, z) -> (z, y, -x)

JointDesc joint(const char* name, std::int64_t parent, Vec3 t, Quat r = {}, Vec3 s = {1, 1, 1}) {
  return {name, parent, {t, r, s}};
}

Skeleton build(const std::vector<JointDesc>& descs) {
  auto s = Skeleton::build(descs);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return std::move(s).value();
}

// root: T(1,0,0) R(90 about z) S(2,2,2); mid: T(0,1,0) R(90 about x) S(1,3,1); tip: T(1,1,0).
Skeleton chain() {
  return build({joint("root", -1, {1, 0, 0}, kZ90, {2, 2, 2}),
                joint("mid", 0, {0, 1, 0}, kX90, {1, 3, 1}), joint("tip", 1, {1, 1, 0})});
}

TEST(LocalToModel, ChainOfThreeJoints) {
  const Skeleton skeleton = chain();
  std::vector<Mat4> model(3);
  ASSERT_TRUE(local_to_model(skeleton, skeleton.rest_pose(), model));

  // root = T(1,0,0) * 2 Rz: columns 2 Rz x = (0,2,0), 2 Rz y = (-2,0,0), 2z, origin (1,0,0).
  Mat4 root;
  root.m = {0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 1};
  expect_mat_near(model[0], root);

  // mid's origin: root * (0,1,0) = (1,0,0) + 2 Rz (0,1,0) = (1,0,0) + (-2,0,0) = (-1,0,0).
  // Its axes: 2 Rz Rx diag(1,3,1) e_i:
  //   x -> (1,0,0) -> Rx (1,0,0) -> Rz (0,1,0) -> (0,2,0)
  //   y -> (0,3,0) -> Rx (0,0,3) -> Rz (0,0,3) -> (0,0,6)
  //   z -> (0,0,1) -> Rx (0,-1,0) -> Rz (1,0,0) -> (2,0,0)
  Mat4 mid;
  mid.m = {0, 2, 0, 0, 0, 0, 6, 0, 2, 0, 0, 0, -1, 0, 0, 1};
  expect_mat_near(model[1], mid);

  // tip's origin: mid * (1,1,0) = (-1,0,0) + (0,2,0) + (0,0,6) = (-1,2,6); same axes as mid.
  Mat4 tip = mid;
  tip.m[12] = -1, tip.m[13] = 2, tip.m[14] = 6;
  expect_mat_near(model[2], tip);
  // A point one unit along the tip's local z: (-1,2,6) + (2,0,0).
  EXPECT_POINT_NEAR(transform_point(model[2], {0, 0, 1}), 1, 2, 6);
}

TEST(LocalToModel, NonUniformParentScaleShearsARotatedChild) {
  // Parent S(2,1,1); child R(45 about z) at (1,0,0). The child's axes are diag(2,1,1) applied to
  // (c,c,0) and (-c,c,0): (2c,c,0) and (-2c,c,0), no longer orthogonal.
  const float c = kHalfSqrt2;
  const Quat z45{0, 0, std::sin(std::numbers::pi_v<float> / 8),
                 std::cos(std::numbers::pi_v<float> / 8)};
  const Skeleton skeleton =
      build({joint("p", -1, {0, 0, 0}, {}, {2, 1, 1}), joint("c", 0, {1, 0, 0}, z45)});
  std::vector<Mat4> model(2);
  ASSERT_TRUE(local_to_model(skeleton, skeleton.rest_pose(), model));
  EXPECT_POINT_NEAR(model[1].column(0), 2 * c, c, 0);
  EXPECT_POINT_NEAR(model[1].column(1), -2 * c, c, 0);
  EXPECT_POINT_NEAR(model[1].column(2), 0, 0, 1);
  EXPECT_POINT_NEAR(model[1].translation(), 2, 0, 0);
  EXPECT_FALSE(decompose(model[1]).exact);
}

TEST(LocalToModel, UsesTheGivenLocalPoseNotTheRest) {
  const Skeleton skeleton = chain();
  std::vector<Transform> local(3);  // identities...
  local[0].translation = {0, 0, 1};
  local[1].translation = {0, 2, 0};
  local[2].translation = {3, 0, 0};
  local[1].rotation = kY90;
  std::vector<Mat4> model(3);
  ASSERT_TRUE(local_to_model(skeleton, local, model));
  EXPECT_POINT_NEAR(model[0].translation(), 0, 0, 1);
  EXPECT_POINT_NEAR(model[1].translation(), 0, 2, 1);
  // Ry takes (3,0,0) to (0,0,-3).
  EXPECT_POINT_NEAR(model[2].translation(), 0, 2, -2);
}

// Two trees: A at (1,0,0) with a child at (0,2,0); B at (0,0,5), turned 90 about y, with a
// child at (1,0,0), which Ry takes to (0,0,-1).
Skeleton forest() {
  return build({joint("a", -1, {1, 0, 0}), joint("b", -1, {0, 0, 5}, kY90),
                joint("a_child", 0, {0, 2, 0}), joint("b_child", 1, {1, 0, 0})});
}

TEST(LocalToModel, Forest) {
  const Skeleton skeleton = forest();
  std::vector<Mat4> model(4);
  ASSERT_TRUE(local_to_model(skeleton, skeleton.rest_pose(), model));
  EXPECT_POINT_NEAR(model[0].translation(), 1, 0, 0);
  EXPECT_POINT_NEAR(model[1].translation(), 0, 0, 5);
  EXPECT_POINT_NEAR(model[2].translation(), 1, 2, 0);
  EXPECT_POINT_NEAR(model[3].translation(), 0, 0, 4);
  // b_child inherits b's turn: its x axis points along -z.
  EXPECT_POINT_NEAR(model[3].column(0), 0, 0, -1);
  EXPECT_POINT_NEAR(model[2].column(0), 1, 0, 0);
}

TEST(LocalToModel, RootMatrixIsPlacedAboveEveryRoot) {
  const Skeleton skeleton = forest();
  LocalToModelJob job;
  job.skeleton = &skeleton;
  job.local = skeleton.rest_pose();
  std::vector<Mat4> plain(4), placed(4);
  job.model = plain;
  ASSERT_TRUE(job.run());

  // Root: T(10,0,0) Rz(90), so (x,y,z) -> (10 - y, x, z).
  job.root = mat4_from_trs({10, 0, 0}, kZ90, {1, 1, 1});
  job.model = placed;
  ASSERT_TRUE(job.run());
  EXPECT_POINT_NEAR(placed[0].translation(), 10, 1, 0);  // (1,0,0)
  EXPECT_POINT_NEAR(placed[1].translation(), 10, 0, 5);  // (0,0,5)
  EXPECT_POINT_NEAR(placed[2].translation(), 8, 1, 0);   // (1,2,0)
  EXPECT_POINT_NEAR(placed[3].translation(), 10, 0, 4);  // (0,0,4)
  for (std::size_t j = 0; j < 4; ++j) expect_mat_near(placed[j], mul_affine(job.root, plain[j]));

  // An explicit identity root changes nothing.
  std::vector<Mat4> again(4);
  job.root = Mat4::identity();
  job.model = again;
  ASSERT_TRUE(job.run());
  EXPECT_EQ(again, plain);
}

TEST(LocalToModel, ValidateRejectsShortSpans) {
  const Skeleton skeleton = chain();
  std::vector<Transform> local(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
  Mat4 sentinel;
  sentinel.m[12] = 123;
  std::vector<Mat4> model(3, sentinel);

  LocalToModelJob job;
  EXPECT_TRUE(refused_naming(job.validate(), "LocalToModelJob: skeleton"));
  EXPECT_FALSE(job.run());
  job.skeleton = &skeleton;
  job.local = std::span<const Transform>(local).first(2);
  job.model = model;
  EXPECT_TRUE(refused_naming(job.validate(), "LocalToModelJob: local"));
  EXPECT_FALSE(job.run());
  job.local = local;
  job.model = std::span<Mat4>(model).first(2);
  EXPECT_TRUE(refused_naming(job.validate(), "LocalToModelJob: model"));
  EXPECT_FALSE(job.run());
  for (const Mat4& m : model) EXPECT_EQ(m, sentinel);  // nothing written
  EXPECT_FALSE(local_to_model(skeleton, std::span<const Transform>(local).first(2), model));
  for (const Mat4& m : model) EXPECT_EQ(m, sentinel);

  job.model = model;
  EXPECT_TRUE(job.validate());
  EXPECT_TRUE(job.run());
}

TEST(LocalToModel, LongerSpansAreFineAndTheTailIsUntouched) {
  const Skeleton skeleton = chain();
  std::vector<Transform> local(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
  local.push_back(Transform::identity());
  Mat4 sentinel;
  sentinel.m[12] = 123;
  std::vector<Mat4> model(5, sentinel);
  ASSERT_TRUE(local_to_model(skeleton, local, model));
  EXPECT_POINT_NEAR(model[2].translation(), -1, 2, 6);
  EXPECT_EQ(model[3], sentinel);
  EXPECT_EQ(model[4], sentinel);
}

TEST(LocalToModel, EmptySkeleton) {
  const Skeleton empty;
  LocalToModelJob job;
  job.skeleton = &empty;
  EXPECT_TRUE(job.validate());
  EXPECT_TRUE(job.run());
  SoaLocalToModelJob soa_job;
  soa_job.skeleton = &empty;
  EXPECT_TRUE(soa_job.validate());
  EXPECT_TRUE(soa_job.run());
  job.from = soa_job.from = 0;  // no joint 0
  EXPECT_TRUE(refused_naming(job.validate(), "LocalToModelJob: from"));
  EXPECT_TRUE(refused_naming(soa_job.validate(), "SoaLocalToModelJob: from"));
}

TEST(LocalToModel, UnorderedSkeletonUsesItsOwnOrder) {
  // The same chain listed tip first: after build, parents precede children and the result is
  // the same as for the ordered chain, joint for joint by name.
  const Skeleton ordered = chain();
  const Skeleton shuffled =
      build({joint("tip", 2, {1, 1, 0}), joint("root", -1, {1, 0, 0}, kZ90, {2, 2, 2}),
             joint("mid", 1, {0, 1, 0}, kX90, {1, 3, 1})});
  std::vector<Mat4> a(3), b(3);
  ASSERT_TRUE(local_to_model(ordered, ordered.rest_pose(), a));
  ASSERT_TRUE(local_to_model(shuffled, shuffled.rest_pose(), b));
  for (const char* name : {"root", "mid", "tip"}) {
    expect_mat_near(a[*ordered.find(name)], b[*shuffled.find(name)]);
  }
}

}  // namespace
}  // namespace marrow
