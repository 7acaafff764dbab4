// Helpers shared by the BVH tests: sampling an imported clip at a frame, and an independent
// rotation-matrix path (double precision) to check the importer's quaternions against.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "marrow/clip/sampling.h"
#include "marrow/io/bvh.h"
#include "marrow/pose/local_to_model.h"

namespace bvh_test {

constexpr double kPi = 3.14159265358979323846;

struct V3 {
  double x = 0, y = 0, z = 0;
};
inline V3 operator+(V3 a, V3 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}

// Row-major 3x3 rotation acting on column vectors.
using M3 = std::array<double, 9>;

inline M3 identity() {
  return {1, 0, 0, 0, 1, 0, 0, 0, 1};
}

// Rotation by `degrees` about axis 'X', 'Y' or 'Z' (right-handed, counter-clockwise).
inline M3 axis_matrix(char axis, double degrees) {
  const double a = degrees * kPi / 180.0, c = std::cos(a), s = std::sin(a);
  switch (axis) {
    case 'X':
      return {1, 0, 0, 0, c, -s, 0, s, c};
    case 'Y':
      return {c, 0, s, 0, 1, 0, -s, 0, c};
    default:
      return {c, -s, 0, s, c, 0, 0, 0, 1};
  }
}

inline M3 operator*(const M3& a, const M3& b) {
  M3 r{};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 3; ++k) r[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
    }
  }
  return r;
}

inline V3 operator*(const M3& m, V3 v) {
  return {m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
          m[6] * v.x + m[7] * v.y + m[8] * v.z};
}

// R = R(axes[0], deg[0]) * R(axes[1], deg[1]) * R(axes[2], deg[2]): the BVH channel order.
inline M3 euler_matrix(const std::string& axes, std::array<double, 3> degrees) {
  M3 r = identity();
  for (std::size_t i = 0; i < axes.size(); ++i) r = r * axis_matrix(axes[i], degrees[i]);
  return r;
}

// The same rotation as a quaternion, built by multiplying axis-angle quaternions in order.
inline marrow::Quat euler_quat(const std::string& axes, std::array<double, 3> degrees) {
  marrow::Quat q = marrow::Quat::identity();
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const marrow::Vec3 axis{axes[i] == 'X' ? 1.0f : 0.0f, axes[i] == 'Y' ? 1.0f : 0.0f,
                            axes[i] == 'Z' ? 1.0f : 0.0f};
    q = q * marrow::from_axis_angle(axis, static_cast<float>(degrees[i] * kPi / 180.0));
  }
  return q;
}

// Equal as rotations (q and -q are the same rotation).
inline void expect_same_rotation(marrow::Quat a, marrow::Quat b, float tol = 2e-5f) {
  const float sign = marrow::dot(a, b) < 0 ? -1.0f : 1.0f;
  EXPECT_NEAR(a.x, sign * b.x, tol);
  EXPECT_NEAR(a.y, sign * b.y, tol);
  EXPECT_NEAR(a.z, sign * b.z, tol);
  EXPECT_NEAR(a.w, sign * b.w, tol);
}

inline void expect_near(marrow::Vec3 got, V3 want, double tol) {
  EXPECT_NEAR(got.x, want.x, tol);
  EXPECT_NEAR(got.y, want.y, tol);
  EXPECT_NEAR(got.z, want.z, tol);
}

// Local pose of clip 0 at the time of key `frame` (every track of a BVH clip has every frame).
inline std::vector<marrow::Transform> local_pose(const marrow::Asset& asset, std::size_t frame) {
  const marrow::Clip& clip = asset.clips.at(0);
  std::vector<marrow::Transform> pose(asset.skeleton.size());
  const float t = clip.tracks().empty() ? 0.0f : clip.times()[clip.tracks()[0].first_key + frame];
  marrow::SamplingCursor cursor(clip);
  EXPECT_TRUE(marrow::sample(clip, asset.skeleton.rest_pose(), t, cursor, pose));
  return pose;
}

inline std::vector<marrow::Mat4> model_pose(const marrow::Asset& asset, std::size_t frame) {
  const std::vector<marrow::Transform> local = local_pose(asset, frame);
  std::vector<marrow::Mat4> model(local.size());
  EXPECT_TRUE(marrow::local_to_model(asset.skeleton, local, model));
  return model;
}

inline marrow::JointIndex joint(const marrow::Asset& asset, std::string_view name) {
  const auto j = asset.skeleton.find(name);
  EXPECT_TRUE(j.has_value()) << name;
  return j.value_or(0);
}

inline const marrow::Track* find_track(const marrow::Clip& clip, marrow::JointIndex j,
                                       marrow::TrackTarget target) {
  for (const marrow::Track& t : clip.tracks()) {
    if (t.joint == j && t.target == target) return &t;
  }
  return nullptr;
}

inline marrow::Asset load_text(const std::string& text, const std::string& name = "t.bvh") {
  marrow::Result<marrow::Asset> asset = marrow::read_bvh(text, name);
  EXPECT_TRUE(asset.ok()) << asset.error().message;
  if (!asset.ok()) return {};
  return std::move(asset).value();
}

}  // namespace bvh_test
