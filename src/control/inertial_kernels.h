// The controller's inertialization kernel, written once over the lane types of
// src/math/simd/lanes_*.h and instantiated per level (inertial_kernels_<level>.cpp), so it goes
// through the runtime's one dispatch (src/math/simd/dispatch.h). A template over the level's F,
// so each level's machine code has symbols of its own (src/math/simd/README.md).
// Private to src/control. Include after one lanes header.
#pragma once

#include "control/inertial_dispatch.h"
#include "math/simd/force_inline.h"

namespace marrow::control_detail {

// pose += the offsets at args.time, 8 joints at a time. Channel k is x0 P(s) + v0t1 Q(s) with
// s = min(t inv_t1, 1), P(s) = 1 - 10 s^2 + 20 s^3 - 15 s^4 + 4 s^5 and Q(s) = s (1 - s)^4
// (include/marrow/control/inertialization.h).
template <class F>
void add_inertial_offsets(const InertialArgs& args) {
  const F time = F::set1(args.time), one = F::set1(1), zero = F::zero();
  const F c4 = F::set1(4), c15 = F::set1(-15), c20 = F::set1(20), c10 = F::set1(-10);
  for (std::size_t g = 0; g < args.group_count; ++g) {
    const InertialGroup& c = args.groups[g];
    if (!c.moves) continue;
    F x[9];
    for (int k = 0; k < 9; ++k) {
      const F s = min(time * F::load(c.inv_t1[k]), one), u = one - s;
      const F p = one + s * s * (c10 + s * (c20 + s * (c15 + s * c4)));
      const F q = s * (u * u) * (u * u);
      x[k] = F::load(c.x0[k]) * p + F::load(c.v0t1[k]) * q;
    }
    SoaTransform& o = args.pose[g];
    (F::load(o.tx) + x[0]).store(o.tx);
    (F::load(o.ty) + x[1]).store(o.ty);
    (F::load(o.tz) + x[2]).store(o.tz);
    (F::load(o.sx) + x[6]).store(o.sx);
    (F::load(o.sy) + x[7]).store(o.sy);
    (F::load(o.sz) + x[8]).store(o.sz);
    // The offset rotation (v, sqrt(1 - |v|^2)) times the target's, renormalized. A still
    // joint's lanes carry v = 0: the product leaves their rotation as it was.
    const F vx = x[3], vy = x[4], vz = x[5];
    const F vw = sqrt(max(zero, one - (vx * vx + vy * vy + vz * vz)));
    const F bx = F::load(o.qx), by = F::load(o.qy), bz = F::load(o.qz), bw = F::load(o.qw);
    const F rx = vw * bx + vx * bw + vy * bz - vz * by;
    const F ry = vw * by - vx * bz + vy * bw + vz * bx;
    const F rz = vw * bz + vx * by - vy * bx + vz * bw;
    const F rw = vw * bw - vx * bx - vy * by - vz * bz;
    const F inv = rsqrt(max(rx * rx + ry * ry + rz * rz + rw * rw, F::set1(1e-30f)));
    (rx * inv).store(o.qx);
    (ry * inv).store(o.qy);
    (rz * inv).store(o.qz);
    (rw * inv).store(o.qw);
  }
}

}  // namespace marrow::control_detail
