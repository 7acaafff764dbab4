/// @file
/// Run-time choice of the SIMD kernels. The default build runs on any x86-64 (SSE2) and picks
/// wider kernels (AVX2 + FMA, AVX-512) when the processor has them, without -march flags; other
/// processors run the portable scalar kernels. Every level computes the same results as the scalar
/// reference within a stated tolerance (tests force each level in turn).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace marrow {

enum class SimdLevel : std::uint8_t {
  kScalar,   ///< portable C++, any processor; the reference the others are tested against
  kSse2,     ///< x86-64 baseline: 8 lanes as two 4-float registers
  kAvx2,     ///< AVX2 + FMA (x86-64-v3)
  kAvx512,   ///< AVX-512 F/VL/DQ/BW on 8-float registers (masked ops, better estimates)
  kWasm128,  ///< WebAssembly SIMD (the browser build, docs/web.md): 8 lanes as two v128 registers
};

std::string_view to_string(SimdLevel level);
/// "scalar", "sse2", "avx2", "avx512", "wasm128" (case-sensitive), as MARROW_SIMD and --simd take
/// them.
std::optional<SimdLevel> simd_level_from_string(std::string_view name);

/// The widest level this processor (and operating system) supports, and that this build has
/// kernels for.
SimdLevel detected_simd_level();

/// The level kernels dispatch to: detected_simd_level(), or lower when the environment variable
/// MARROW_SIMD names a lower level (read once, at the first call), or what set_simd_level chose.
SimdLevel active_simd_level();

/// Forces a level for the whole process (tests and benchmarks compare levels this way). Returns
/// false, changing nothing, when the processor or this build cannot run it. Setup-time: jobs
/// read the level once when they start, so do not change it while other threads run jobs.
bool set_simd_level(SimdLevel level);

}  // namespace marrow
