// What the controller's inertialization kernel takes, and the table of one SIMD level's kernel.
// Plain data only, so that the per-level translation units can include it
// (src/math/simd/README.md). Private to src/control.
#pragma once

#include <cstddef>

#include "marrow/math/soa_transform.h"
#include "math/simd/kernel_levels.h"

namespace marrow::control_detail {

// The decaying offsets of 8 joints (one SoA group), nine channels each: translation x y z, the
// rotation difference's vector part x y z, scale x y z. Channel k of lane l decays as
// x0 P(s) + v0t1 Q(s) with s = min(t inv_t1, 1) (inertialization.h); a still channel has
// x0 = v0t1 = 0.
struct alignas(32) InertialGroup {
  float x0[9][kSoaWidth] = {};
  float v0t1[9][kSoaWidth] = {};
  float inv_t1[9][kSoaWidth] = {};
  bool moves = false;
};

struct InertialArgs {
  const InertialGroup* groups;
  std::size_t group_count;  // at most the pose's
  float time;               // seconds since the switch, >= 0
  SoaTransform* pose;       // += the offsets at `time`, group by group
};

struct ControlKernels {
  void (*add_inertial_offsets)(const InertialArgs&);
};

MARROW_DECLARE_KERNEL_LEVELS(ControlKernels);

// The active level's kernels (src/math/simd/dispatch.h).
const ControlKernels& control_kernels();

}  // namespace marrow::control_detail
