// A kernel family's tables, one per SIMD level, gathered for the dispatch (dispatch.h). Plain
// declarations only, so that the per-level translation units can include it through their
// family's header (README.md). Private to src/.
#pragma once

namespace marrow::simd {

template <class Kernels>
struct KernelLevels {
  const Kernels* scalar;
  const Kernels* sse2;  // null where the build has no x86 kernels
  const Kernels* avx2;
  const Kernels* avx512;
  const Kernels* wasm128;  // null outside the WebAssembly build
};

}  // namespace marrow::simd

// The declarations of a family's per-level tables, and the KernelLevels that gathers them; the
// x86 levels exist where src/CMakeLists.txt compiles them (MARROW_SIMD_FAMILIES), the WebAssembly
// level in the browser build.
#if defined(MARROW_HAVE_X86_KERNELS)
#define MARROW_DECLARE_KERNEL_LEVELS(Family) \
  extern const Family kScalar##Family, kSse2##Family, kAvx2##Family, kAvx512##Family
#define MARROW_KERNEL_LEVELS(Family)                                            \
  ::marrow::simd::KernelLevels<Family> {                                        \
    &kScalar##Family, &kSse2##Family, &kAvx2##Family, &kAvx512##Family, nullptr \
  }
#elif defined(MARROW_HAVE_WASM_KERNELS)
#define MARROW_DECLARE_KERNEL_LEVELS(Family) extern const Family kScalar##Family, kWasm128##Family
#define MARROW_KERNEL_LEVELS(Family)                               \
  ::marrow::simd::KernelLevels<Family> {                           \
    &kScalar##Family, nullptr, nullptr, nullptr, &kWasm128##Family \
  }
#else
#define MARROW_DECLARE_KERNEL_LEVELS(Family) extern const Family kScalar##Family
#define MARROW_KERNEL_LEVELS(Family)                     \
  ::marrow::simd::KernelLevels<Family> {                 \
    &kScalar##Family, nullptr, nullptr, nullptr, nullptr \
  }
#endif
