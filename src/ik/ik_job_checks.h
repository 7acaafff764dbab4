// The checks every IK job's validate() starts with, in the order their headers list them.
// Internal: not part of the public headers.
#pragma once

#include <cstddef>

#include "base/job_problem.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::ik_detail {

// `skeleton` null, then `model`, then `local` shorter than its joint count.
inline detail::JobProblem find_pose_problem(const Skeleton* skeleton, std::size_t model_size,
                                            std::size_t local_size) {
  if (skeleton == nullptr) return {"skeleton", "is null"};
  if (model_size < skeleton->size()) {
    return {"model", "is shorter than the skeleton's joint count"};
  }
  if (local_size < skeleton->size()) {
    return {"local", "is shorter than the skeleton's joint count"};
  }
  return {};
}

}  // namespace marrow::ik_detail
