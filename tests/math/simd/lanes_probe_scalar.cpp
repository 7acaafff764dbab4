// lanes_probe.h for the scalar level.
#include "lanes_probe.h"
#include "math/simd/lanes_scalar.h"

namespace marrow::test {

void probe_interleave_scalar(const float* in3, const float* in4, InterleaveProbe& out) {
  using simd::scalar::F;
  F x, y, z, w;
  load_interleaved3(in3, x, y, z);
  x.storeu(out.x3), y.storeu(out.y3), z.storeu(out.z3);
  store_interleaved3(out.back3, x, y, z);
  store_scattered3(out.scattered3, kScatterIndex, x, y, z);
  load_interleaved4(in4, x, y, z, w);
  x.storeu(out.x), y.storeu(out.y), z.storeu(out.z), w.storeu(out.w);
  store_interleaved4(out.back4, x, y, z, w);
  store_scattered4(out.scattered4, kScatterIndex, x, y, z, w);
}

}  // namespace marrow::test
