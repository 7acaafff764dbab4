#include "marrow/ik/two_bone_ik.h"

#include <algorithm>
#include <cmath>

#include "base/job_problem.h"
#include "ik_job_checks.h"
#include "ik_math.h"

namespace marrow {

using namespace ik_detail;

namespace {

detail::JobProblem find_problem(const TwoBoneIkJob& job) {
  if (auto problem =
          ik_detail::find_pose_problem(job.skeleton, job.model.size(), job.local.size())) {
    return problem;
  }
  const Skeleton& s = *job.skeleton;
  const std::size_t n = s.size();
  if (job.start >= n) return {"start", "is not a joint of the skeleton"};
  if (job.mid >= n || job.mid == job.start || !s.is_descendant(job.mid, job.start)) {
    return {"mid", "is not a joint below start"};
  }
  if (job.end >= n || job.end == job.mid || !s.is_descendant(job.end, job.mid)) {
    return {"end", "is not a joint below mid"};
  }
  if (!is_finite(job.target)) return {"target", "is not finite"};
  if (!is_finite(job.pole_vector)) return {"pole_vector", "is not finite"};
  if (!is_finite(job.mid_axis)) return {"mid_axis", "is not finite"};
  if (!(job.weight >= 0 && job.weight <= 1)) return {"weight", "is not in [0, 1]"};
  if (!(job.soft_limit > 0 && job.soft_limit <= 1)) return {"soft_limit", "is not in (0, 1]"};
  if (!finite_matrix(job.model[job.start]) || !finite_matrix(job.model[job.mid]) ||
      !finite_matrix(job.model[job.end])) {
    return {"model", "holds a non-finite matrix at start, mid or end"};
  }
  return {};
}

}  // namespace

Status TwoBoneIkJob::validate() const {
  return detail::to_status("TwoBoneIkJob", find_problem(*this));
}

bool TwoBoneIkJob::run() const {
  if (find_problem(*this)) return false;
  const Vec3 a = model[start].translation(), b = model[mid].translation(),
             c = model[end].translation();
  const float l1 = length(b - a), l2 = length(c - b), chain = l1 + l2;
  if (!(chain > kTiny) || !std::isfinite(chain)) {  // everything on one point: nothing turns
    if (reached != nullptr) *reached = length(target - a) <= kTiny;
    return true;
  }
  const Quat start_rotation = rotation_of(model[start]), mid_rotation = rotation_of(model[mid]);
  const Vec3 to_target = target - a;
  const float distance = length(to_target);
  // Towards the target; a target on the start joint keeps the chain's direction.
  const Vec3 axis = normalized_or(to_target, normalized_or(c - a, normalized_or(b - a, {0, 1, 0})));

  // 1-2. The middle joint's hinge rotation that gives the clamped reach.
  Quat mid_delta = Quat::identity();
  const float degenerate = 1e-6f * chain;
  if (l1 > degenerate && l2 > degenerate) {
    float reach = distance;
    if (soft_limit < 1) {
      // Soft IK: past soft_limit * chain the reach approaches the chain length exponentially.
      const float soft_start = soft_limit * chain, span = chain - soft_start;
      if (reach > soft_start)
        reach = soft_start + span * (1 - std::exp(-(reach - soft_start) / span));
    }
    reach = std::clamp(reach, std::fabs(l1 - l2), chain);

    const Vec3 e = c - b, f = a - b, g = b - a;
    Vec3 hinge = rotate(mid_rotation, mid_axis);
    if (!(length(hinge) > kTiny)) {
      const Vec3 bend = cross(e, f);
      if (length(bend) > 1e-4f * l1 * l2) {
        hinge = bend;  // the plane the chain bends in now
      } else {
        // Straight (or folded): bend so that, once the start joint has aimed the end, the middle
        // joint points to the pole vector. Rotating e about (pole x e) moves the end away from
        // the pole, which puts the middle joint on the pole's side.
        const Vec3 e_dir = e * (1.0f / l2);
        const Vec3 pole = pole_vector - e_dir * dot(pole_vector, e_dir);
        hinge = length(pole) > kTiny ? cross(pole, e) : any_perpendicular(e);
      }
    }
    const Vec3 k = normalized_or(hinge, any_perpendicular(e));
    // |R_k(delta) e + g|^2 = reach^2, i.e. A cos(delta) + B sin(delta) = Q - C, with e split
    // into its parts along and across the hinge.
    const Vec3 e_along = k * dot(k, e), e_across = e - e_along;
    const float A = dot(g, e_across), B = dot(g, cross(k, e_across)), C = dot(g, e_along);
    const float Q = 0.5f * (reach * reach - l1 * l1 - l2 * l2);
    const float R = std::sqrt(A * A + B * B);
    if (R > kTiny) {
      // delta0 straightens the chain about this hinge; +acos bends it the positive way.
      const float delta0 = std::atan2(B, A);
      const float delta = delta0 + std::acos(std::clamp((Q - C) / R, -1.0f, 1.0f));
      mid_delta = axis_angle(k, delta);
    }
  }
  const Vec3 c1 = b + rotate(mid_delta, c - b);

  // 3. The start joint: the end onto the line towards the target, then the twist to the pole.
  const Quat aim = rotation_between(c1 - a, axis);
  Quat twist = Quat::identity();
  const Vec3 pole = pole_vector - axis * dot(pole_vector, axis);
  if (length(pole) > kTiny) {
    const Vec3 b1 = rotate(aim, b - a);
    const Vec3 across = b1 - axis * dot(b1, axis);
    if (length(across) > 1e-4f * l1) twist = axis_angle(axis, signed_angle(across, pole, axis));
  }
  const Quat start_delta = partial(normalize(twist * aim), weight);
  mid_delta = partial(mid_delta, weight);

  local[mid].rotation = turn_local(local[mid].rotation, mid_rotation, mid_delta);
  local[start].rotation = turn_local(local[start].rotation, start_rotation, start_delta);
  if (reached != nullptr) {
    const Vec3 end_now = a + rotate(start_delta, b + rotate(mid_delta, c - b) - a);
    *reached = length(end_now - target) <= 1e-4f * chain;
  }
  return true;
}

}  // namespace marrow
