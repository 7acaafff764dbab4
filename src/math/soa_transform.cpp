#include "marrow/math/soa_transform.h"

namespace marrow {

SoaTransform SoaTransform::identity() {
  SoaTransform r;
  for (std::size_t i = 0; i < kSoaWidth; ++i) r.set(i, Transform::identity());
  return r;
}

Transform SoaTransform::get(std::size_t i) const {
  return {{tx[i], ty[i], tz[i]}, {qx[i], qy[i], qz[i], qw[i]}, {sx[i], sy[i], sz[i]}};
}

void SoaTransform::set(std::size_t i, const Transform& t) {
  tx[i] = t.translation.x, ty[i] = t.translation.y, tz[i] = t.translation.z;
  qx[i] = t.rotation.x, qy[i] = t.rotation.y, qz[i] = t.rotation.z, qw[i] = t.rotation.w;
  sx[i] = t.scale.x, sy[i] = t.scale.y, sz[i] = t.scale.z;
}

bool to_soa(std::span<const Transform> aos, std::span<SoaTransform> soa) {
  if (soa.size() < soa_group_count(aos.size())) return false;
  for (std::size_t g = 0; g < soa_group_count(aos.size()); ++g) {
    for (std::size_t i = 0; i < kSoaWidth; ++i) {
      const std::size_t j = g * kSoaWidth + i;
      soa[g].set(i, j < aos.size() ? aos[j] : Transform::identity());
    }
  }
  return true;
}

bool from_soa(std::span<const SoaTransform> soa, std::span<Transform> aos) {
  if (soa.size() < soa_group_count(aos.size())) return false;
  for (std::size_t j = 0; j < aos.size(); ++j) aos[j] = soa[j / kSoaWidth].get(j % kSoaWidth);
  return true;
}

}  // namespace marrow
