// Shared by the IK and foot-contact tests: real assets loaded once, poses in model space, and
// small geometry helpers.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/math/mat4.h"
#include "marrow/pose/local_to_model.h"

#include "../support/shared_asset.h"

namespace marrow::test {

inline constexpr float kPi = std::numbers::pi_v<float>;

inline float deg(float d) {
  return d * kPi / 180.0f;
}

// Model matrices of `clip` at `time` (the full pose: rest plus the clip's channels).
inline std::vector<Mat4> model_at(const Skeleton& s, const Clip& clip, float time) {
  std::vector<Transform> local(s.size());
  std::vector<Mat4> model(s.size());
  SamplingCursor cursor(clip);
  EXPECT_TRUE(sample(clip, s.rest_pose(), time, cursor, local));
  EXPECT_TRUE(local_to_model(s, local, model));
  return model;
}

inline std::vector<Mat4> model_of(const Skeleton& s, std::span<const Transform> local) {
  std::vector<Mat4> model(s.size());
  EXPECT_TRUE(local_to_model(s, local, model));
  return model;
}

inline JointIndex joint(const Skeleton& s, std::string_view name) {
  const std::optional<JointIndex> j = s.find(name);
  EXPECT_TRUE(j.has_value()) << "no joint " << name;
  return j.value_or(0);
}

// A transform that only translates.
inline Transform at(float x, float y, float z) {
  Transform t;
  t.translation = {x, y, z};
  return t;
}

inline ::testing::AssertionResult near(Vec3 a, Vec3 b, float tol) {
  if (length(a - b) <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "(" << a.x << ", " << a.y << ", " << a.z << ") vs (" << b.x << ", " << b.y << ", "
         << b.z << "), " << length(a - b) << " apart";
}

}  // namespace marrow::test
