// Helpers for the retargeting tests: posing a skeleton by model-space turns, running the
// per-frame job, and comparing directions.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <vector>

#include "marrow/pose/local_to_model.h"
#include "marrow/retarget/retargeter.h"

namespace marrow::test {

inline std::vector<Mat4> model_of(const Skeleton& s, std::span<const Transform> local) {
  std::vector<Mat4> model(s.size());
  EXPECT_TRUE(local_to_model(s, local, model));
  return model;
}

inline Quat model_rotation(const Mat4& m) {
  return decompose(m).transform.rotation;
}

// Turns joint j by the model-space rotation `turn` about itself; its descendants follow.
inline void turn_joint(const Skeleton& s, std::vector<Transform>& local, JointIndex j, Quat turn) {
  const std::vector<Mat4> model = model_of(s, local);
  const JointIndex p = s.parent(j);
  const Quat parent = p == kNoParent ? Quat::identity() : model_rotation(model[p]);
  local[j].rotation = normalize(conjugate(parent) * turn * parent * local[j].rotation);
}

inline std::vector<Transform> rest_of(const Skeleton& s) {
  return {s.rest_pose().begin(), s.rest_pose().end()};
}

// The target pose for a source pose, through a fresh context.
inline std::vector<Transform> retarget_pose(const Retargeter& r,
                                            std::span<const Transform> source) {
  RetargetContext context(r);
  std::vector<Transform> target(r.target().size());
  RetargetJob job;
  job.retargeter = &r;
  job.context = &context;
  job.source_pose = source;
  job.target_pose = target;
  EXPECT_TRUE(job.run());
  return target;
}

inline float angle_between_dirs(Vec3 a, Vec3 b) {
  return std::atan2(length(cross(a, b)), dot(a, b));
}

inline ::testing::AssertionResult near_vec(Vec3 a, Vec3 b, float tol) {
  if (length(a - b) <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "(" << a.x << ", " << a.y << ", " << a.z << ") vs (" << b.x << ", " << b.y << ", "
         << b.z << "), " << length(a - b) << " apart";
}

}  // namespace marrow::test
