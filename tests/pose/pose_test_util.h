// Hand-built skeletons and clips shared by the pose tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include "marrow/clip/clip_builder.h"
#include "marrow/clip/sampling.h"
#include "marrow/math/transform.h"
#include "marrow/pose/mask.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::test {

inline constexpr float kPi = std::numbers::pi_v<float>;
inline constexpr Vec3 kX{1, 0, 0}, kY{0, 1, 0}, kZ{0, 0, 1};
inline float deg(float d) {
  return d * kPi / 180.0f;
}

inline Vec3 unit(Vec3 v) {
  return v * (1.0f / length(v));
}

inline Quat axis_angle(Vec3 axis, float degrees) {
  return from_axis_angle(axis, deg(degrees));
}

// Joints of the test character, parent-before-child.
enum Joint : JointIndex {
  kHips,
  kWaist,
  kChest,
  kShoulderR,
  kElbowR,
  kHandR,
  kShoulderL,
  kHead,
  kThighL,
  kKneeL,
  kThighR,
  kKneeR,
  kJointCount
};

// A small humanoid: hips at 1 m, spine up +Y, right arm along +X, legs down.
inline Skeleton character() {
  const auto at = [](float x, float y, float z) {
    Transform t;
    t.translation = {x, y, z};
    return t;
  };
  const std::vector<JointDesc> joints = {
      {"hips", -1, at(0, 1, 0)},
      {"waist", kHips, at(0, 0.2f, 0)},
      {"chest", kWaist, at(0, 0.3f, 0)},
      {"shoulder_r", kChest, at(0.2f, 0, 0)},
      {"elbow_r", kShoulderR, at(0.3f, 0, 0)},
      {"hand_r", kElbowR, at(0.25f, 0, 0)},
      {"shoulder_l", kChest, at(-0.2f, 0, 0)},
      {"head", kChest, at(0, 0.25f, 0)},
      {"thigh_l", kHips, at(-0.1f, 0, 0)},
      {"knee_l", kThighL, at(0, -0.45f, 0)},
      {"thigh_r", kHips, at(0.1f, 0, 0)},
      {"knee_r", kThighR, at(0, -0.45f, 0)},
  };
  Result<Skeleton> s = Skeleton::build(joints, "character");
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

// A rotation track about `axis`, one key per angle, evenly spaced over `duration`.
inline Status add_rotation_track(ClipBuilder& b, const Skeleton& s, JointIndex joint, Vec3 axis,
                                 std::span<const float> degrees, float duration,
                                 Interpolation interpolation = Interpolation::kLinear) {
  std::vector<float> times, values;
  for (std::size_t k = 0; k < degrees.size(); ++k) {
    times.push_back(degrees.size() == 1 ? 0.0f
                                        : duration * static_cast<float>(k) /
                                              static_cast<float>(degrees.size() - 1));
    const Quat q = axis_angle(axis, degrees[k]);
    values.insert(values.end(), {q.x, q.y, q.z, q.w});
  }
  return b.add_track(joint, s.name(joint), TrackTarget::kRotation, interpolation, times, values,
                     "test");
}

inline Clip build(ClipBuilder& b, const Skeleton& s) {
  Result<Clip> c = b.build(s.size(), "test");
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return std::move(c).value();
}

// The full local pose of `clip` at `time`.
inline std::vector<Transform> pose_at(const Skeleton& s, const Clip& clip, float time) {
  std::vector<Transform> pose(s.rest_pose().begin(), s.rest_pose().end());
  EXPECT_TRUE(sample_tracks(clip, time, pose));
  return pose;
}

inline bool bit_equal(const Transform& a, const Transform& b) {
  return std::memcmp(&a, &b, sizeof(Transform)) == 0;
}

inline bool all_finite(std::span<const Transform> pose) {
  for (const Transform& t : pose) {
    if (!is_finite(t)) return false;
  }
  return true;
}

// Channel-wise closeness; rotations compare by angle so q and -q are equal.
inline ::testing::AssertionResult near(const Transform& a, const Transform& b, float tol = 1e-5f) {
  const float dt = length(a.translation - b.translation);
  const float dr = rotation_angle(a.rotation, b.rotation);
  const float ds = length(a.scale - b.scale);
  if (dt <= tol && dr <= tol && ds <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "translation off by " << dt << ", rotation by " << dr << " rad, scale by " << ds;
}

inline ::testing::AssertionResult near(Vec3 a, Vec3 b, float tol = 1e-5f) {
  if (length(a - b) <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "(" << a.x << ", " << a.y << ", " << a.z << ") vs ("
                                       << b.x << ", " << b.y << ", " << b.z << ")";
}

}  // namespace marrow::test
