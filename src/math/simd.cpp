#include "marrow/math/simd.h"

#include "base/enum_names.h"

#include <atomic>
#include <cstdlib>

namespace marrow {
namespace {

bool supported(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar:
      return true;
#if defined(MARROW_HAVE_X86_KERNELS)
    case SimdLevel::kSse2:
      return true;  // part of x86-64
    case SimdLevel::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case SimdLevel::kAvx512:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
#endif
#if defined(MARROW_HAVE_WASM_KERNELS)
    case SimdLevel::kWasm128:
      return true;  // the module holds SIMD instructions: an engine without them cannot load it
#endif
    default:
      return false;
  }
}

SimdLevel detect() {
  for (SimdLevel level :
       {SimdLevel::kWasm128, SimdLevel::kAvx512, SimdLevel::kAvx2, SimdLevel::kSse2}) {
    if (supported(level)) return level;
  }
  return SimdLevel::kScalar;
}

SimdLevel initial_level() {
  SimdLevel level = detect();
  if (const char* env = std::getenv("MARROW_SIMD")) {
    const std::optional<SimdLevel> wanted = simd_level_from_string(env);
    if (wanted && *wanted < level) level = *wanted;
  }
  return level;
}

// Relaxed is enough: the level only selects between kernels that compute the same thing.
std::atomic<SimdLevel>& active() {
  static std::atomic<SimdLevel> level{initial_level()};
  return level;
}

}  // namespace

std::string_view to_string(SimdLevel level) {
  static constexpr std::array<std::string_view, 5> kNames{"scalar", "sse2", "avx2", "avx512",
                                                          "wasm128"};
  static_assert(detail::names_cover(kNames, SimdLevel::kWasm128));
  return detail::enum_name(level, kNames);
}

std::optional<SimdLevel> simd_level_from_string(std::string_view name) {
  for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kSse2, SimdLevel::kAvx2,
                          SimdLevel::kAvx512, SimdLevel::kWasm128}) {
    if (name == to_string(level)) return level;
  }
  return std::nullopt;
}

SimdLevel detected_simd_level() {
  static const SimdLevel level = detect();
  return level;
}

SimdLevel active_simd_level() {
  return active().load(std::memory_order_relaxed);
}

bool set_simd_level(SimdLevel level) {
  if (!supported(level)) return false;
  active().store(level, std::memory_order_relaxed);
  return true;
}

}  // namespace marrow
