// The lane operations that are more than one instruction, on every SIMD level the machine has,
// against their definition (src/math/simd/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>

#include "lanes_probe.h"
#include "simd_test_util.h"

namespace marrow::test {
namespace {

using Probe = void (*)(const float*, const float*, InterleaveProbe&);
using BitsProbe = void (*)(const std::uint8_t*, const std::uint8_t*, const std::uint8_t*, float*);

BitsProbe bits_probe_of(SimdLevel level) {
  switch (level) {
#if defined(__x86_64__)
    case SimdLevel::kSse2:
      return &probe_bits_sse2;
    case SimdLevel::kAvx2:
      return &probe_bits_avx2;
    case SimdLevel::kAvx512:
      return &probe_bits_avx512;
#endif
#if defined(MARROW_WASM_TESTS)
    case SimdLevel::kWasm128:
      return &probe_bits_wasm128;
#endif
    default:
      return &probe_bits_scalar;
  }
}

Probe probe_of(SimdLevel level) {
  switch (level) {
#if defined(__x86_64__)
    case SimdLevel::kSse2:
      return &probe_interleave_sse2;
    case SimdLevel::kAvx2:
      return &probe_interleave_avx2;
    case SimdLevel::kAvx512:
      return &probe_interleave_avx512;
#endif
#if defined(MARROW_WASM_TESTS)
    case SimdLevel::kWasm128:
      return &probe_interleave_wasm128;
#endif
    default:
      return &probe_interleave_scalar;
  }
}

#if defined(MARROW_WASM_TESTS)
// The suites below compare every level with the scalar one; in WebAssembly that must include the
// SIMD level, or they would compare the scalar level with itself.
TEST(Lanes, TheWebAssemblyBuildDetectsAndRunsItsSimdLevel) {
  EXPECT_EQ(detected_simd_level(), SimdLevel::kWasm128);
  EXPECT_TRUE(set_simd_level(SimdLevel::kScalar));
  EXPECT_TRUE(set_simd_level(SimdLevel::kWasm128));
  EXPECT_FALSE(set_simd_level(SimdLevel::kAvx2));
}
#endif

// Lane i's value is bits[i] bits from bit offset[i] = bits[0] + ... + bits[i-1] of a
// little-endian record, least significant first (src/math/simd/README.md): random widths from 0
// to 24 (records from 0 to 192 bits, so both the one-load and the two-load paths of the 256-bit
// levels), random bytes, against that definition bit by bit.
TEST(Lanes, BitLoadsReadEachLanesBitsFromItsOffset) {
  std::mt19937 rng(20261207);
  std::uniform_int_distribution<int> width(0, 24), byte(0, 255);
  for (int round = 0; round < 2000; ++round) {
    std::uint8_t bits[8], offset[8], record[64];
    unsigned at = 0;
    for (int i = 0; i < 8; ++i) {
      // Every fourth round all lanes wide, so records past 128 bits come often.
      bits[i] = static_cast<std::uint8_t>(round % 4 == 0 ? 16 + width(rng) / 3 : width(rng));
      offset[i] = static_cast<std::uint8_t>(at);
      at += bits[i];
    }
    for (std::uint8_t& b : record) b = static_cast<std::uint8_t>(byte(rng));
    float want[8];
    for (int i = 0; i < 8; ++i) {
      std::uint32_t v = 0;
      for (unsigned b = 0; b < bits[i]; ++b) {
        const unsigned bit = offset[i] + b;
        v |= static_cast<std::uint32_t>((record[bit / 8] >> (bit % 8)) & 1u) << b;
      }
      want[i] = static_cast<float>(v);
    }
    for_each_simd_level([&](SimdLevel level) {
      float got[8];
      bits_probe_of(level)(record, offset, bits, got);
      for (int i = 0; i < 8; ++i) {
        ASSERT_EQ(got[i], want[i])
            << "round " << round << " lane " << i << " of " << int(bits[i]) << " bits at bit "
            << int(offset[i]) << " (record of " << at << " bits)";
      }
    });
  }
}

TEST(Lanes, InterleavedLoadsSplitComponentsAndStoresPutThemBack) {
  // Every input float distinct, so a lane taken from the wrong place shows.
  float in3[24], in4[32];
  for (int i = 0; i < 24; ++i) in3[i] = 100.0f + static_cast<float>(i);
  for (int i = 0; i < 32; ++i) in4[i] = -1.0f - static_cast<float>(i);
  for_each_simd_level([&](SimdLevel level) {
    InterleaveProbe p{};
    probe_of(level)(in3, in4, p);
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(p.x3[i], in3[3 * i]) << "x of vector " << i;
      EXPECT_EQ(p.y3[i], in3[3 * i + 1]) << "y of vector " << i;
      EXPECT_EQ(p.z3[i], in3[3 * i + 2]) << "z of vector " << i;
      EXPECT_EQ(p.x[i], in4[4 * i]) << "x of 4-vector " << i;
      EXPECT_EQ(p.y[i], in4[4 * i + 1]) << "y of 4-vector " << i;
      EXPECT_EQ(p.z[i], in4[4 * i + 2]) << "z of 4-vector " << i;
      EXPECT_EQ(p.w[i], in4[4 * i + 3]) << "w of 4-vector " << i;
    }
    for (int i = 0; i < 24; ++i) EXPECT_EQ(p.back3[i], in3[i]) << "element " << i;
    for (int i = 0; i < 32; ++i) EXPECT_EQ(p.back4[i], in4[i]) << "element " << i;
  });
}

TEST(Lanes, ScatteredStoresWriteEachVectorAtItsIndexAndNothingElse) {
  float in3[24], in4[32];
  for (int i = 0; i < 24; ++i) in3[i] = 100.0f + static_cast<float>(i);
  for (int i = 0; i < 32; ++i) in4[i] = -1.0f - static_cast<float>(i);
  constexpr float kUntouched = 7777.0f;
  for_each_simd_level([&](SimdLevel level) {
    InterleaveProbe p{};
    std::fill(std::begin(p.scattered3), std::end(p.scattered3), kUntouched);
    std::fill(std::begin(p.scattered4), std::end(p.scattered4), kUntouched);
    probe_of(level)(in3, in4, p);
    float want3[48], want4[64];
    std::fill(std::begin(want3), std::end(want3), kUntouched);
    std::fill(std::begin(want4), std::end(want4), kUntouched);
    for (int i = 0; i < 8; ++i) {
      for (int c = 0; c < 3; ++c) want3[3 * kScatterIndex[i] + c] = in3[3 * i + c];
      for (int c = 0; c < 4; ++c) want4[4 * kScatterIndex[i] + c] = in4[4 * i + c];
    }
    for (int i = 0; i < 48; ++i) EXPECT_EQ(p.scattered3[i], want3[i]) << "element " << i;
    for (int i = 0; i < 64; ++i) EXPECT_EQ(p.scattered4[i], want4[i]) << "element " << i;
  });
}

}  // namespace
}  // namespace marrow::test
