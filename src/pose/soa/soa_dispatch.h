// What the SoA pose kernels take, and the table of one SIMD level's kernels. Plain data only, so
// that the per-level translation units can include it (src/math/simd/README.md). Private to
// src/pose.
#pragma once

#include <cstddef>
#include <cstdint>

#include "marrow/math/mat4.h"
#include "marrow/math/soa_transform.h"
#include "math/simd/kernel_levels.h"

namespace marrow::soa_detail {

// One live layer of a blend: pose groups, weight, mask (nullptr: every joint at 1).
struct LayerArg {
  const SoaTransform* pose;
  float weight;
  const float* mask;
};

struct BlendArgs {
  std::size_t group_count;
  std::size_t joint_count;  // masks hold this many weights
  const SoaTransform* rest;
  const LayerArg* normal;
  std::size_t normal_count;
  const LayerArg* overrides;
  std::size_t override_count;
  const LayerArg* additives;
  std::size_t additive_count;
  float threshold;
  SoaTransform* output;
};

struct LocalToModelArgs {
  std::size_t joint_count;
  const std::uint16_t* parents;  // JointIndex; kNoParent (0xffff) for roots
  const std::uint16_t* order;    // every joint once, parents first (Skeleton::depth_order)
  const SoaTransform* local;
  Mat4* model;
  const Mat4* root;  // nullptr: identity
  // Joints before index `end` are written: with `subtree`, only joint `first` and its descendants
  // (the others' model matrices are read where needed), and not `first` itself when
  // `first_excluded`; otherwise every joint.
  std::size_t first;
  std::size_t end;
  bool subtree;
  bool first_excluded;
  bool streaming;  // SoaLocalToModelJob::streaming
};

struct SoaKernels {
  void (*blend)(const BlendArgs&);
  void (*local_to_model)(const LocalToModelArgs&);
};

MARROW_DECLARE_KERNEL_LEVELS(SoaKernels);

// The active level's kernels (simd.h).
const SoaKernels& soa_kernels();

}  // namespace marrow::soa_detail
