#include "marrow/pose/local_to_model.h"

namespace marrow {

bool LocalToModelJob::validate() const {
  return skeleton != nullptr && local.size() >= skeleton->size() &&
         model.size() >= skeleton->size();
}

bool LocalToModelJob::run() const {
  if (!validate()) return false;
  const std::span<const JointIndex> parents = skeleton->parents();
  const bool root_is_identity = root == Mat4::identity();
  for (std::size_t j = 0; j < parents.size(); ++j) {
    const Mat4 m = to_matrix(local[j]);
    const JointIndex p = parents[j];
    if (p != kNoParent) {
      model[j] = mul_affine(model[p], m);
    } else {
      model[j] = root_is_identity ? m : mul_affine(root, m);
    }
  }
  return true;
}

bool local_to_model(const Skeleton& skeleton, std::span<const Transform> local,
                    std::span<Mat4> model) {
  LocalToModelJob job;
  job.skeleton = &skeleton;
  job.local = local;
  job.model = model;
  return job.run();
}

}  // namespace marrow
