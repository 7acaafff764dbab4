#include "marrow/ik/foot_planting.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "base/job_problem.h"
#include "ik_job_checks.h"
#include "ik_math.h"
#include "marrow/ik/two_bone_ik.h"
#include "marrow/pose/local_to_model.h"

namespace marrow {

using namespace ik_detail;

void FootLock::update(float contact, Vec3 ankle, Vec3 ground_motion) {
  if (!(contact > 0)) {
    locked = false;
    return;
  }
  if (locked) {
    position += ground_motion;
  } else if (contact >= 1) {
    locked = true;
    position = ankle;
  }
}

namespace {

detail::JobProblem find_leg_problem(const FootPlantingJob& job, std::size_t i) {
  const FootPlantLeg& leg = job.legs[i];
  const Skeleton& s = *job.skeleton;
  const std::size_t n = s.size();
  if (leg.hip >= n || leg.hip == job.pelvis || !s.is_descendant(leg.hip, job.pelvis)) {
    return {"legs[].hip", "is not a joint below pelvis", i};
  }
  if (leg.knee >= n || leg.knee == leg.hip || !s.is_descendant(leg.knee, leg.hip)) {
    return {"legs[].knee", "is not a joint below the leg's hip", i};
  }
  if (leg.ankle >= n || leg.ankle == leg.knee || !s.is_descendant(leg.ankle, leg.knee)) {
    return {"legs[].ankle", "is not a joint below the leg's knee", i};
  }
  if (!(leg.contact >= 0 && leg.contact <= 1)) return {"legs[].contact", "is not in [0, 1]", i};
  if (!std::isfinite(leg.ground_height)) return {"legs[].ground_height", "is not finite", i};
  if (!is_finite(leg.pole_vector)) return {"legs[].pole_vector", "is not finite", i};
  if (!is_finite(leg.lock_position)) return {"legs[].lock_position", "is not finite", i};
  if (!finite_matrix(job.model[leg.hip]) || !finite_matrix(job.model[leg.knee]) ||
      !finite_matrix(job.model[leg.ankle])) {
    return {"model", "holds a non-finite matrix at a leg's hip, knee or ankle"};
  }
  return {};
}

detail::JobProblem find_problem(const FootPlantingJob& job) {
  if (auto problem =
          ik_detail::find_pose_problem(job.skeleton, job.model.size(), job.local.size())) {
    return problem;
  }
  const std::size_t n = job.skeleton->size();
  if (job.pelvis >= n) return {"pelvis", "is not a joint of the skeleton"};
  if (job.legs.size() > kMaxFootPlantLegs) return {"legs", "holds more than kMaxFootPlantLegs"};
  if (!is_finite(job.up) || !(length(job.up) > kTiny)) return {"up", "is not finite or is zero"};
  if (!std::isfinite(job.animation_ground)) return {"animation_ground", "is not finite"};
  if (!(job.reach > 0 && job.reach <= 1)) return {"reach", "is not in (0, 1]"};
  if (!(job.soft_limit > 0 && job.soft_limit <= 1)) return {"soft_limit", "is not in (0, 1]"};
  if (!(job.max_pelvis_offset >= 0)) return {"max_pelvis_offset", "is negative or NaN"};
  if (job.plane != nullptr) {
    if (!is_finite(job.plane->point) || !is_finite(job.plane->normal)) {
      return {"plane", "is not finite"};
    }
    const Vec3 normal = normalized_or(job.plane->normal, {0, 0, 0});
    if (std::fabs(dot(normal, normalized_or(job.up, {0, 1, 0}))) < 1e-3f) {
      return {"plane", "has a normal that is zero or perpendicular to up"};
    }
  }
  if (!finite_matrix(job.model[job.pelvis])) {
    return {"model", "holds a non-finite matrix at pelvis"};
  }
  for (std::size_t i = 0; i < job.legs.size(); ++i) {
    if (auto problem = find_leg_problem(job, i)) return problem;
  }
  return {};
}

}  // namespace

Status FootPlantingJob::validate() const {
  return detail::to_status("FootPlantingJob", find_problem(*this));
}

bool FootPlantingJob::run() const {
  if (find_problem(*this)) return false;
  const Vec3 vertical = normalized_or(up, {0, 1, 0});
  const auto height = [&](Vec3 p) { return dot(p, vertical); };
  const auto horizontal = [&](Vec3 p) { return p - vertical * height(p); };
  const Vec3 normal = plane != nullptr ? normalized_or(plane->normal, vertical) : vertical;
  // The ground's height under a horizontal position.
  const auto ground_under = [&](Vec3 p, const FootPlantLeg& leg) {
    if (plane == nullptr) return leg.ground_height;
    // The point p_h + y * up on the plane: dot(normal, p_h + y up - point) = 0.
    return dot(normal, plane->point - horizontal(p)) / dot(normal, vertical);
  };

  // 1. Ankle targets.
  std::array<Vec3, kMaxFootPlantLegs> targets;
  float offset = 0;
  bool any = false;
  for (std::size_t i = 0; i < legs.size(); ++i) {
    const FootPlantLeg& leg = legs[i];
    const Vec3 ankle = model[leg.ankle].translation();
    targets[i] = ankle;
    if (leg.contact <= 0) continue;
    const Vec3 place = leg.locked ? horizontal(leg.lock_position) : horizontal(ankle);
    const float clearance = height(ankle) - animation_ground;
    const Vec3 planted = place + vertical * (ground_under(place, leg) + clearance);
    targets[i] = lerp(ankle, planted, leg.contact);
    const float rise = height(targets[i]) - height(ankle);
    offset = any ? std::min(offset, rise) : rise;
    any = true;
  }

  // 2. The pelvis: the lowest foot's change, then lower until every planted leg can reach.
  for (std::size_t i = 0; i < legs.size() && any; ++i) {
    const FootPlantLeg& leg = legs[i];
    if (leg.contact <= 0) continue;
    const Vec3 hip = model[leg.hip].translation(), knee = model[leg.knee].translation(),
               ankle = model[leg.ankle].translation();
    const float limit = reach * (length(knee - hip) + length(ankle - knee));
    // Highest offset d with |target - (hip + d up)| <= limit.
    const Vec3 r = targets[i] - hip;
    const float along = dot(r, vertical);
    const float disc = limit * limit - dot(r, r) + along * along;
    const float highest = disc >= 0 ? along + std::sqrt(disc) : along;
    offset = std::min(offset, highest);
  }
  offset = std::clamp(offset, -max_pelvis_offset, max_pelvis_offset);
  if (offset != 0) {
    // Moving the pelvis' model position by offset * up is, in its parent's frame, the inverse
    // of the parent's linear part applied to that vector.
    const JointIndex parent = skeleton->parent(pelvis);
    Vec3 shift = vertical * offset;
    Mat4 inverse;
    if (parent == kNoParent) {
      local[pelvis].translation += shift;
    } else if (invert_affine(model[parent], inverse)) {
      local[pelvis].translation += transform_vector(inverse, shift);
    } else {
      offset = 0;  // a collapsed parent (zero scale) cannot place the pelvis
    }
    (void)local_to_model(*skeleton, local, model, pelvis);
  }

  // 3. The legs. Each foot keeps the model-space orientation it was animated with (the leg's
  // new angles would otherwise turn it), then tilts onto the plane by its contact.
  const Quat tilt = rotation_between(vertical, normal);
  for (std::size_t i = 0; i < legs.size(); ++i) {
    const FootPlantLeg& leg = legs[i];
    if (leg.contact <= 0) {
      if (result != nullptr) result->reached[i] = false;
      continue;
    }
    const Quat animated = rotation_of(model[leg.ankle]);
    bool reached = false;
    TwoBoneIkJob ik;
    ik.skeleton = skeleton;
    ik.start = leg.hip;
    ik.mid = leg.knee;
    ik.end = leg.ankle;
    ik.target = targets[i];
    ik.pole_vector = leg.pole_vector;
    ik.soft_limit = soft_limit;
    ik.model = model;
    ik.local = local;
    ik.reached = &reached;
    if (ik.run()) (void)local_to_model(*skeleton, local, model, leg.hip);
    const Quat now = rotation_of(model[leg.ankle]);
    Quat turn = animated * conjugate(now);
    if (plane != nullptr && align_feet) turn = partial(tilt, leg.contact) * turn;
    local[leg.ankle].rotation = turn_local(local[leg.ankle].rotation, now, normalize(turn));
    (void)local_to_model(*skeleton, local, model, leg.ankle);
    if (result != nullptr) result->reached[i] = reached;
  }
  if (result != nullptr) result->pelvis_offset = offset;
  return true;
}

}  // namespace marrow
