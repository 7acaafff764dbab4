#include "marrow/ik/chain_ik.h"

#include <array>
#include <cmath>

#include "base/job_problem.h"
#include "ik_job_checks.h"
#include "ik_math.h"

namespace marrow {

using namespace ik_detail;

namespace {

// Joints root .. tip (root first) into `chain`; returns their count, or 0 when tip does not lie
// below root or the chain is too long.
std::size_t collect_chain(const Skeleton& s, JointIndex root, JointIndex tip,
                          std::array<JointIndex, kMaxChainJoints>& chain) {
  std::size_t n = 0;
  for (JointIndex j = tip;; j = s.parent(j)) {
    if (j == kNoParent || n == kMaxChainJoints) return 0;
    chain[n++] = j;
    if (j == root) break;
  }
  for (std::size_t i = 0; i < n / 2; ++i) std::swap(chain[i], chain[n - 1 - i]);
  return n;
}

detail::JobProblem find_problem(const ChainIkJob& job) {
  if (auto problem =
          ik_detail::find_pose_problem(job.skeleton, job.model.size(), job.local.size())) {
    return problem;
  }
  const std::size_t n = job.skeleton->size();
  if (job.root >= n) return {"root", "is not a joint of the skeleton"};
  if (job.tip >= n || job.tip == job.root) return {"tip", "is not a joint below root"};
  std::array<JointIndex, kMaxChainJoints> chain;
  const std::size_t count = collect_chain(*job.skeleton, job.root, job.tip, chain);
  if (count < 2) return {"tip", "is not below root within kMaxChainJoints joints"};
  if (!is_finite(job.target)) return {"target", "is not finite"};
  if (job.max_iterations < 0) return {"max_iterations", "is negative"};
  if (!(job.tolerance >= 0) || !std::isfinite(job.tolerance)) {
    return {"tolerance", "is not finite or is negative"};
  }
  if (!(job.weight >= 0 && job.weight <= 1)) return {"weight", "is not in [0, 1]"};
  for (std::size_t i = 0; i < count; ++i) {
    if (!finite_matrix(job.model[chain[i]])) {
      return {"model", "holds a non-finite matrix in the chain"};
    }
  }
  return {};
}

}  // namespace

Status ChainIkJob::validate() const {
  return detail::to_status("ChainIkJob", find_problem(*this));
}

bool ChainIkJob::run() const {
  if (find_problem(*this)) return false;
  std::array<JointIndex, kMaxChainJoints> chain;
  const std::size_t n = collect_chain(*skeleton, root, tip, chain);
  std::array<Vec3, kMaxChainJoints> original, solved;
  std::array<float, kMaxChainJoints> bone;
  float total = 0;
  for (std::size_t i = 0; i < n; ++i) original[i] = solved[i] = model[chain[i]].translation();
  for (std::size_t i = 0; i + 1 < n; ++i) total += bone[i] = length(original[i + 1] - original[i]);

  // A bone's direction, or where it has none, the bone's direction in the input pose.
  const auto direction = [&](Vec3 from, Vec3 to, std::size_t i) {
    return normalized_or(to - from, normalized_or(original[i + 1] - original[i], {0, 1, 0}));
  };
  const Vec3 base = original[0];
  int passes = 0;
  if (length(target - base) >= total) {
    // Out of reach: the straight chain pointing at the target.
    const Vec3 dir = normalized_or(target - base, direction(original[0], original[n - 1], 0));
    for (std::size_t i = 0; i + 1 < n; ++i) solved[i + 1] = solved[i] + dir * bone[i];
  } else {
    while (passes < max_iterations && length(solved[n - 1] - target) > tolerance) {
      ++passes;
      solved[n - 1] = target;  // backward: from the tip to the root
      for (std::size_t i = n - 1; i-- > 0;) {
        solved[i] = solved[i + 1] - direction(solved[i], solved[i + 1], i) * bone[i];
      }
      solved[0] = base;  // forward: from the root to the tip
      for (std::size_t i = 0; i + 1 < n; ++i) {
        solved[i + 1] = solved[i] + direction(solved[i], solved[i + 1], i) * bone[i];
      }
    }
  }
  if (weight < 1) {
    for (std::size_t i = 0; i < n; ++i) solved[i] = lerp(original[i], solved[i], weight);
  }

  // Positions to rotations, root first: each joint turns its bone onto the solved direction;
  // the turn carries the rest of the chain (`moved`) and adds to what the children inherit.
  std::array<Vec3, kMaxChainJoints> moved = original;
  Quat inherited = Quat::identity();  // model-space turn of the parent chain so far
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const JointIndex j = chain[i];
    const Quat turn = rotation_between(moved[i + 1] - moved[i], solved[i + 1] - solved[i]);
    for (std::size_t k = i + 1; k < n; ++k) moved[k] = moved[i] + rotate(turn, moved[k] - moved[i]);
    const Quat rotation_now = normalize(inherited * rotation_of(model[j]));
    local[j].rotation = turn_local(local[j].rotation, rotation_now, turn);
    inherited = normalize(turn * inherited);
  }
  if (iterations != nullptr) *iterations = passes;
  if (reached != nullptr) *reached = length(moved[n - 1] - target) <= tolerance;
  return true;
}

}  // namespace marrow
