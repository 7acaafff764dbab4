#include "marrow/ik/aim_ik.h"

#include <cmath>

#include "base/job_problem.h"
#include "ik_job_checks.h"
#include "ik_math.h"

namespace marrow {

using namespace ik_detail;

namespace {

// Angle between two directions, precise near 0 (atan2 of sine and cosine).
float angle_of(Vec3 a, Vec3 b) {
  return std::atan2(length(cross(a, b)), dot(a, b));
}

}  // namespace

namespace {

detail::JobProblem find_problem(const AimIkJob& job) {
  if (auto problem =
          ik_detail::find_pose_problem(job.skeleton, job.model.size(), job.local.size())) {
    return problem;
  }
  const std::size_t n = job.skeleton->size();
  if (job.joint >= n) return {"joint", "is not a joint of the skeleton"};
  if (!is_finite(job.target)) return {"target", "is not finite"};
  if (!is_finite(job.forward) || !(length(job.forward) > kTiny)) {
    return {"forward", "is not finite or is zero"};
  }
  if (!is_finite(job.offset)) return {"offset", "is not finite"};
  if (!is_finite(job.up)) return {"up", "is not finite"};
  if (!is_finite(job.pole_vector)) return {"pole_vector", "is not finite"};
  if (!(job.max_angle >= 0 && job.max_angle <= std::numbers::pi_v<float>)) {
    return {"max_angle", "is not in [0, pi]"};
  }
  if (!(job.weight >= 0 && job.weight <= 1)) return {"weight", "is not in [0, 1]"};
  if (!finite_matrix(job.model[job.joint])) return {"model", "holds a non-finite matrix at joint"};
  return {};
}

}  // namespace

Status AimIkJob::validate() const {
  return detail::to_status("AimIkJob", find_problem(*this));
}

bool AimIkJob::run() const {
  if (find_problem(*this)) return false;
  const Mat4& m = model[joint];
  const Vec3 p = m.translation();
  const Quat rotation = rotation_of(m);
  const Vec3 f = normalized_or(rotate(rotation, forward), {0, 0, 1});
  const Vec3 to_target = target - p;
  const float distance = length(to_target);
  if (!(distance > kTiny)) {  // the target is on the joint: no direction to aim at
    if (reached != nullptr) *reached = false;
    return true;
  }
  const Vec3 v = to_target * (1.0f / distance);

  // 1. The ray from the offset: |o + s f| = distance, the far root s >= 0.
  const Vec3 o = transform_vector(m, offset);
  const float of = dot(o, f);
  const float disc = of * of - dot(o, o) + distance * distance;
  bool ray_hits = false;
  Vec3 w = f;
  if (disc >= 0) {
    const float s = -of + std::sqrt(disc);
    if (s >= 0) {
      w = o + f * s;
      ray_hits = length(w) > kTiny;
      if (!ray_hits) w = f;
    }
  }
  Quat delta = rotation_between(w, v);

  // 2. Twist about the line to the target, bringing `up` towards the pole vector.
  if (length(up) > kTiny) {
    const Vec3 up_now = rotate(delta, rotate(rotation, up));
    const Vec3 a = up_now - v * dot(up_now, v), b = pole_vector - v * dot(pole_vector, v);
    if (length(a) > kTiny && length(b) > kTiny) {
      delta = normalize(axis_angle(v, signed_angle(a, b, v)) * delta);
    }
  }

  // 3. The cone limit around forward's rest direction under the current parent.
  bool limited = false;
  if (max_angle < std::numbers::pi_v<float>) {
    const Quat parent = rotation * conjugate(local[joint].rotation);
    const Vec3 rest_forward =
        normalized_or(rotate(parent * skeleton->rest_pose()[joint].rotation, forward), f);
    const Vec3 aimed = rotate(delta, f);
    const float angle = angle_of(aimed, rest_forward);
    if (angle > max_angle) {
      const Vec3 axis = normalized_or(cross(aimed, rest_forward), any_perpendicular(aimed));
      delta = normalize(axis_angle(axis, angle - max_angle) * delta);
      limited = true;
    }
  }

  delta = partial(delta, weight);
  local[joint].rotation = turn_local(local[joint].rotation, rotation, delta);
  if (reached != nullptr) {
    *reached = ray_hits && !limited && weight >= 1 && angle_of(rotate(delta, w), v) <= 1e-5f;
  }
  return true;
}

}  // namespace marrow
