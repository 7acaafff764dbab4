// Local-to-model: one forward pass over joints stored parent-before-child.
#pragma once

#include <span>

#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

struct LocalToModelJob {
  const Skeleton* skeleton = nullptr;
  std::span<const Transform> local;  // one per joint
  std::span<Mat4> model;             // one per joint, written
  Mat4 root = Mat4::identity();      // placed above every root joint

  bool validate() const;
  // Returns false, writing nothing, when validate() fails.
  bool run() const;
};

// The same as a call: model[j] = model[parent(j)] * matrix(local[j]).
bool local_to_model(const Skeleton& skeleton, std::span<const Transform> local,
                    std::span<Mat4> model);

}  // namespace marrow
