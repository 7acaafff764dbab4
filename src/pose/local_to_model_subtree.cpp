#include "marrow/pose/local_to_model_subtree.h"

namespace marrow {

bool LocalToModelSubtreeJob::validate() const {
  return skeleton != nullptr && local.size() >= skeleton->size() &&
         model.size() >= skeleton->size() && from < skeleton->size() &&
         (to == kNoParent || (to >= from && to < skeleton->size()));
}

bool LocalToModelSubtreeJob::run() const {
  if (!validate()) return false;
  const std::span<const JointIndex> parents = skeleton->parents();
  const std::size_t last = to == kNoParent ? parents.size() - 1 : to;
  const JointIndex p = parents[from];
  model[from] = mul_affine(p == kNoParent ? root : model[p], to_matrix(local[from]));
  for (std::size_t j = std::size_t{from} + 1; j <= last; ++j) {
    // Parents come first, so a joint is below `from` exactly when walking up its parents reaches
    // `from` before an index smaller than it.
    JointIndex a = parents[j];
    while (a != kNoParent && a > from) a = parents[a];
    if (a != from) continue;
    model[j] = mul_affine(model[parents[j]], to_matrix(local[j]));
  }
  return true;
}

bool local_to_model_subtree(const Skeleton& skeleton, std::span<const Transform> local,
                            std::span<Mat4> model, JointIndex from) {
  LocalToModelSubtreeJob job;
  job.skeleton = &skeleton;
  job.local = local;
  job.model = model;
  job.from = from;
  return job.run();
}

}  // namespace marrow
