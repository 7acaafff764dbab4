#include "marrow/pose/local_to_model.h"

#include "pose/soa/soa_dispatch.h"

namespace marrow {

namespace {

// The cases LocalToModelJob::validate documents, shared by both layouts' jobs.
bool valid_range(const Skeleton& skeleton, JointIndex from, JointIndex to) {
  const std::size_t n = skeleton.size();
  if (from != kNoParent && from >= n) return false;
  if (to == kNoParent) return true;
  return to < n && (from == kNoParent || to >= from);
}

}  // namespace

bool LocalToModelJob::validate() const {
  return skeleton != nullptr && local.size() >= skeleton->size() &&
         model.size() >= skeleton->size() && valid_range(*skeleton, from, to);
}

bool LocalToModelJob::run() const {
  if (!validate()) return false;
  const std::span<const JointIndex> parents = skeleton->parents();
  const std::size_t end = to == kNoParent ? parents.size() : std::size_t{to} + 1;
  const bool whole = from == kNoParent;
  const std::size_t first = whole ? 0 : from;
  const bool root_is_identity = root == Mat4::identity();
  for (std::size_t j = first; j < end; ++j) {
    if (!whole) {
      if (j == first && from_excluded) continue;
      // Parents come first, so a joint is below `from` exactly when walking up its parents
      // reaches `from` before an index smaller than it.
      JointIndex a = static_cast<JointIndex>(j);
      while (a != kNoParent && a > from) a = parents[a];
      if (a != from) continue;
    }
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
         model.size() >= skeleton->size() && valid_range(*skeleton, from, to);
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
  args.end = to == kNoParent ? skeleton->size() : std::size_t{to} + 1;
  args.subtree = from != kNoParent;
  args.first_excluded = from != kNoParent && from_excluded;
  args.streaming = streaming;
  soa_detail::soa_kernels().local_to_model(args);
  return true;
}

bool local_to_model(const Skeleton& skeleton, std::span<const Transform> local,
                    std::span<Mat4> model, JointIndex from) {
  LocalToModelJob job;
  job.skeleton = &skeleton;
  job.local = local;
  job.model = model;
  job.from = from;
  return job.run();
}

}  // namespace marrow
