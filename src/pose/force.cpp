#include "marrow/pose/force.h"

#include <cmath>

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

bool ForceJob::validate() const {
  if (skeleton == nullptr || pose.size() < skeleton->size()) return false;
  for (float v : root.m) {
    if (!std::isfinite(v)) return false;
  }
  for (std::size_t i = 0; i < forces.size(); ++i) {
    const ForcedJoint& f = forces[i];
    if (f.joint >= skeleton->size() || (i > 0 && f.joint <= forces[i - 1].joint)) return false;
    if (!is_finite(f.transform) || !(f.weight >= 0 && f.weight <= 1)) return false;
    if (f.space != ForceSpace::kLocal && f.space != ForceSpace::kModel) return false;
  }
  return true;
}

bool ForceJob::run() const {
  if (!validate()) return false;
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
