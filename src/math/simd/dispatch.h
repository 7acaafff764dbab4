// The one SIMD dispatch of the runtime. Every kernel family (compiled-clip sampling, SoA blending
// and hierarchy, skinning and morphing, the controller's inertialization) is a table of function
// pointers; each level's translation unit defines that level's table, named k<Level><Family>
// (kScalarSoaKernels, kAvx2SoaKernels, ...), and the family's one lookup function returns
// active_kernels(MARROW_KERNEL_LEVELS(Family)): the table of the level active_simd_level() names
// (include/marrow/math/simd.h: detected once per process, lowered by MARROW_SIMD or
// set_simd_level for tests), the scalar table where the build has no kernels for that level.
// Private to src/.
#pragma once

#include "marrow/math/simd.h"
#include "math/simd/kernel_levels.h"

namespace marrow::simd {

template <class Kernels>
const Kernels& active_kernels(const KernelLevels<Kernels>& levels) {
  const Kernels* chosen = nullptr;
  switch (active_simd_level()) {
    case SimdLevel::kAvx512:
      chosen = levels.avx512;
      break;
    case SimdLevel::kAvx2:
      chosen = levels.avx2;
      break;
    case SimdLevel::kSse2:
      chosen = levels.sse2;
      break;
    case SimdLevel::kWasm128:
      chosen = levels.wasm128;
      break;
    case SimdLevel::kScalar:
      break;
  }
  return chosen ? *chosen : *levels.scalar;
}

}  // namespace marrow::simd
