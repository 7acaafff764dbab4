#include "marrow/pose/local_to_model.h"

#include "pose/soa/soa_dispatch.h"

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

bool SoaLocalToModelJob::validate() const {
  return skeleton != nullptr && local.size() >= soa_group_count(skeleton->size()) &&
         model.size() >= skeleton->size() && (from == kNoParent || from < skeleton->size());
}

bool SoaLocalToModelJob::run() const {
  if (!validate()) return false;
  soa_detail::LocalToModelArgs args;
  args.joint_count = skeleton->size();
  args.parents = skeleton->parents().data();
  args.order = skeleton->depth_order().data();
  args.local = local.data();
  args.model = model.data();
  args.root = root == Mat4::identity() ? nullptr : &root;
  args.first = from == kNoParent ? 0 : from;
  args.subtree = from != kNoParent;
  args.streaming = streaming;
  soa_detail::soa_kernels().local_to_model(args);
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
