// Running a test body once per SIMD level the machine has, and random poses to feed it.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "marrow/math/simd.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::test {

inline constexpr SimdLevel kAllLevels[] = {SimdLevel::kScalar, SimdLevel::kSse2, SimdLevel::kAvx2,
                                           SimdLevel::kAvx512, SimdLevel::kWasm128};

// Levels no build for this architecture has (x86's in WebAssembly, WebAssembly's on x86).
inline bool of_another_architecture(SimdLevel level) {
#if defined(__wasm__)
  return level != SimdLevel::kScalar && level != SimdLevel::kWasm128;
#else
  return level == SimdLevel::kWasm128;
#endif
}

// Calls body(level) with each level this machine runs forced, then restores the level. Levels the
// machine cannot run are listed in the test's output, so a run on an older processor says what it
// did not cover.
template <typename Body>
void for_each_simd_level(Body&& body) {
  const SimdLevel saved = active_simd_level();
  std::string skipped;
  for (SimdLevel level : kAllLevels) {
    if (of_another_architecture(level)) continue;
    if (!set_simd_level(level)) {
      skipped += std::string(skipped.empty() ? "" : ", ") + std::string(to_string(level));
      continue;
    }
    SCOPED_TRACE("SIMD level " + std::string(to_string(level)));
    body(level);
  }
  EXPECT_TRUE(set_simd_level(saved));
  if (!skipped.empty())
    std::cout << "[ note ] SIMD levels not run on this machine: " << skipped << "\n";
}

inline Quat random_rotation(std::mt19937& rng) {
  std::normal_distribution<float> n(0, 1);
  return normalize(Quat{n(rng), n(rng), n(rng), n(rng)});
}

inline Transform random_transform(std::mt19937& rng, bool uniform_scale = false) {
  std::uniform_real_distribution<float> t(-2, 2), s(0.5f, 2.0f);
  Transform x;
  x.translation = {t(rng), t(rng), t(rng)};
  x.rotation = random_rotation(rng);
  const float u = s(rng);
  x.scale = uniform_scale ? Vec3{u, u, u} : Vec3{s(rng), s(rng), s(rng)};
  return x;
}

inline std::vector<Transform> random_pose(std::mt19937& rng, std::size_t n,
                                          bool uniform_scale = false) {
  std::vector<Transform> pose(n);
  for (Transform& x : pose) x = random_transform(rng, uniform_scale);
  return pose;
}

// A tree of n joints with random parents (each before its children) and random rest poses.
inline Skeleton random_skeleton(std::mt19937& rng, std::size_t n) {
  std::vector<JointDesc> joints(n);
  for (std::size_t j = 0; j < n; ++j) {
    joints[j].name = "j" + std::to_string(j);
    joints[j].parent = j == 0 ? -1 : static_cast<std::int64_t>(rng() % j);
    joints[j].rest = random_transform(rng, true);
    joints[j].rest.translation = joints[j].rest.translation * 0.2f;
  }
  return Skeleton::build(joints).value();
}

// Both the same rotation (q and -q alike) to within `eps` on the components.
inline bool same_rotation(Quat a, Quat b, float eps) {
  if (dot(a, b) < 0) b = negate(b);
  return std::fabs(a.x - b.x) <= eps && std::fabs(a.y - b.y) <= eps &&
         std::fabs(a.z - b.z) <= eps && std::fabs(a.w - b.w) <= eps;
}

inline bool near(Vec3 a, Vec3 b, float eps) {
  return std::fabs(a.x - b.x) <= eps * (1 + std::fabs(b.x)) &&
         std::fabs(a.y - b.y) <= eps * (1 + std::fabs(b.y)) &&
         std::fabs(a.z - b.z) <= eps * (1 + std::fabs(b.z));
}

}  // namespace marrow::test
