/// @file
/// Local transforms of 8 joints in structure-of-arrays form: the layout the compiled-clip sampler,
/// the SIMD blend and the SIMD local-to-model work on (one SIMD register holds one component of 8
/// joints). Joint j of a pose lives in group j / 8, lane j % 8; lanes past the last joint hold the
/// identity so that kernels may process whole groups.
#pragma once

#include <cstddef>
#include <span>

#include "marrow/math/transform.h"

namespace marrow {

inline constexpr std::size_t kSoaWidth = 8;

struct alignas(32) SoaTransform {
  float tx[kSoaWidth], ty[kSoaWidth], tz[kSoaWidth];
  float qx[kSoaWidth], qy[kSoaWidth], qz[kSoaWidth], qw[kSoaWidth];
  float sx[kSoaWidth], sy[kSoaWidth], sz[kSoaWidth];

  static SoaTransform identity();
  Transform get(std::size_t lane) const;
  void set(std::size_t lane, const Transform& t);
};

/// Groups needed for `joints` joints.
constexpr std::size_t soa_group_count(std::size_t joints) {
  return (joints + kSoaWidth - 1) / kSoaWidth;
}

/// aos -> soa: soa must hold soa_group_count(aos.size()) groups; lanes past aos.size() get the
/// identity. Returns false, writing nothing, when soa is too short.
bool to_soa(std::span<const Transform> aos, std::span<SoaTransform> soa);
/// soa -> aos for aos.size() joints. Returns false, writing nothing, when soa is too short.
bool from_soa(std::span<const SoaTransform> soa, std::span<Transform> aos);

}  // namespace marrow
