#include "marrow/pose/force.h"

#include <cmath>

#include "base/job_problem.h"
#include "marrow/pose/blend.h"

namespace marrow {

Mat4 model_matrix_of(const Skeleton& skeleton, std::span<const Transform> pose, JointIndex joint,
                     const Mat4& root) {
  // Multiply from the joint up to its root: no buffer for the chain is needed.
  Mat4 m = to_matrix(pose[joint]);
  for (JointIndex p = skeleton.parent(joint); p != kNoParent; p = skeleton.parent(p)) {
    m = mul_affine(to_matrix(pose[p]), m);
  }
  return root == Mat4::identity() ? m : mul_affine(root, m);
}

namespace {

detail::JobProblem find_problem(const ForceJob& job) {
  if (job.skeleton == nullptr) return {"skeleton", "is null"};
  if (job.pose.size() < job.skeleton->size()) {
    return {"pose", "is shorter than the skeleton's joint count"};
  }
  for (float v : job.root.m) {
    if (!std::isfinite(v)) return {"root", "is not finite"};
  }
  for (std::size_t i = 0; i < job.forces.size(); ++i) {
    const ForcedJoint& f = job.forces[i];
    if (f.joint >= job.skeleton->size()) {
      return {"forces[].joint", "is not a joint of the skeleton", i};
    }
    if (i > 0 && f.joint <= job.forces[i - 1].joint) {
      return {"forces[].joint", "is not above the previous force's joint", i};
    }
    if (f.space != ForceSpace::kLocal && f.space != ForceSpace::kModel) {
      return {"forces[].space", "is neither kLocal nor kModel", i};
    }
    if (!is_finite(f.transform)) return {"forces[].transform", "is not finite", i};
    if (!(f.weight >= 0 && f.weight <= 1)) return {"forces[].weight", "is not in [0, 1]", i};
  }
  return {};
}

}  // namespace

Status ForceJob::validate() const {
  return detail::to_status("ForceJob", find_problem(*this));
}

bool ForceJob::run() const {
  if (find_problem(*this)) return false;
  for (const ForcedJoint& f : forces) {
    if (f.weight == 0) continue;
    Transform local = f.transform;
    if (f.space == ForceSpace::kModel) {
      const JointIndex p = skeleton->parent(f.joint);
      const Mat4 parent = p == kNoParent ? root : model_matrix_of(*skeleton, pose, p, root);
      Mat4 inverse;
      if (!invert_affine(parent, inverse)) continue;
      local = decompose(mul_affine(inverse, to_matrix(f.transform))).transform;
      // A nearly singular parent can overflow the product: never write a non-finite joint.
      if (!is_finite(local)) continue;
    }
    pose[f.joint] = lerp(pose[f.joint], local, f.weight);
  }
  return true;
}

}  // namespace marrow
