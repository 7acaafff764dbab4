#include "marrow/pose/local_to_model.h"

#include "base/job_problem.h"
#include "pose/soa/soa_dispatch.h"

namespace marrow {

namespace {

std::size_t local_needed(const LocalToModelJob& job) {
  return job.skeleton->size();
}
std::size_t local_needed(const SoaLocalToModelJob& job) {
  return soa_group_count(job.skeleton->size());
}

// The cases LocalToModelJob::validate documents, shared by both layouts' jobs.
template <typename Job>
detail::JobProblem find_problem(const Job& job) {
  using detail::JobProblem;
  if (job.skeleton == nullptr) return {"skeleton", "is null"};
  const std::size_t n = job.skeleton->size();
  if (job.local.size() < local_needed(job)) return {"local", "is shorter than the skeleton"};
  if (job.model.size() < n) return {"model", "is shorter than the skeleton's joint count"};
  if (job.from != kNoParent && job.from >= n) {
    return {"from", "is neither kNoParent nor a joint of the skeleton"};
  }
  if (job.to == kNoParent) return {};
  if (job.to >= n) return {"to", "is neither kNoParent nor a joint of the skeleton"};
  if (job.from != kNoParent && job.to < job.from) return {"to", "is below from"};
  return {};
}

}  // namespace

Status LocalToModelJob::validate() const {
  return detail::to_status("LocalToModelJob", find_problem(*this));
}

bool LocalToModelJob::run() const {
  if (find_problem(*this)) return false;
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

Status SoaLocalToModelJob::validate() const {
  return detail::to_status("SoaLocalToModelJob", find_problem(*this));
}

bool SoaLocalToModelJob::run() const {
  if (find_problem(*this)) return false;
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
