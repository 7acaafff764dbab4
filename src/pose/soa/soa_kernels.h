// The SoA blend and local-to-model kernels, written once over the lane types of
// src/math/simd/lanes_*.h and instantiated per SIMD level (soa_kernels_<level>.cpp). Every
// function is a template over the level's F, so each level's machine code has symbols of its own
// (src/math/simd/README.md). Private to src/pose.
//
// Include only after one lanes header; this file includes nothing itself.
#pragma once

#include "math/simd/force_inline.h"

namespace marrow::soa_detail {

#define MARROW_KERNEL MARROW_FORCE_INLINE

template <class F>
struct Quat4 {
  F x, y, z, w;
};
template <class F>
struct Vec3x {
  F x, y, z;
};
template <class F>
struct Trs {
  Vec3x<F> t;
  Quat4<F> q;
  Vec3x<F> s;
};

// Joint weights at or below this take no part (blend.cpp's kTinyWeight).
inline constexpr float kTinyWeight = 1e-20f;
// hemisphere.h's kUndecidedDot.
inline constexpr float kUndecidedDot = 1e-4f;

template <class F>
MARROW_KERNEL Trs<F> load_trs(const SoaTransform& p) {
  return {{F::load(p.tx), F::load(p.ty), F::load(p.tz)},
          {F::load(p.qx), F::load(p.qy), F::load(p.qz), F::load(p.qw)},
          {F::load(p.sx), F::load(p.sy), F::load(p.sz)}};
}
template <class F>
MARROW_KERNEL void store_trs(const Trs<F>& v, SoaTransform& p) {
  v.t.x.store(p.tx), v.t.y.store(p.ty), v.t.z.store(p.tz);
  v.q.x.store(p.qx), v.q.y.store(p.qy), v.q.z.store(p.qz), v.q.w.store(p.qw);
  v.s.x.store(p.sx), v.s.y.store(p.sy), v.s.z.store(p.sz);
}

template <class F, class M>
MARROW_KERNEL Trs<F> select(M m, const Trs<F>& a, const Trs<F>& b) {
  return {{select(m, a.t.x, b.t.x), select(m, a.t.y, b.t.y), select(m, a.t.z, b.t.z)},
          {select(m, a.q.x, b.q.x), select(m, a.q.y, b.q.y), select(m, a.q.z, b.q.z),
           select(m, a.q.w, b.q.w)},
          {select(m, a.s.x, b.s.x), select(m, a.s.y, b.s.y), select(m, a.s.z, b.s.z)}};
}

template <class F>
MARROW_KERNEL F dot(const Quat4<F>& a, const Quat4<F>& b) {
  return fma(a.x, b.x, fma(a.y, b.y, fma(a.z, b.z, a.w * b.w)));
}

// The largest-magnitude component with its sign, the first of equals winning (hemisphere.h).
template <class F>
MARROW_KERNEL F largest_component(const Quat4<F>& q) {
  F l = q.x;
  l = select(abs(q.y) > abs(l), q.y, l);
  l = select(abs(q.z) > abs(l), q.z, l);
  l = select(abs(q.w) > abs(l), q.w, l);
  return l;
}
template <class F>
MARROW_KERNEL Quat4<F> flip(const Quat4<F>& q, F sign) {
  return {flip_sign(q.x, sign), flip_sign(q.y, sign), flip_sign(q.z, sign), flip_sign(q.w, sign)};
}
template <class F>
MARROW_KERNEL Quat4<F> canonical(const Quat4<F>& q) {
  return flip(q, largest_component(q));
}

// hemisphere.h's align(a, b), lane by lane: b flipped into a's hemisphere, or both made canonical
// where the sign of their dot product is undecided.
template <class F>
MARROW_KERNEL void align(Quat4<F>& a, Quat4<F>& b) {
  const F d = dot(a, b);
  const F eps2 = F::set1(kUndecidedDot * kUndecidedDot);
  const auto decided = d * d > eps2 * dot(a, a) * dot(b, b);
  const Quat4<F> ca = canonical(a), cb = canonical(b), fb = flip(b, d);
  a = {select(decided, a.x, ca.x), select(decided, a.y, ca.y), select(decided, a.z, ca.z),
       select(decided, a.w, ca.w)};
  b = {select(decided, fb.x, cb.x), select(decided, fb.y, cb.y), select(decided, fb.z, cb.z),
       select(decided, fb.w, cb.w)};
}

// normalize() of quat.h: a zero or non-finite quaternion becomes the identity.
template <class F>
MARROW_KERNEL Quat4<F> normalize(const Quat4<F>& q) {
  const F n2 = dot(q, q);
  const auto ok = (n2 > F::set1(1e-30f)) & (n2 < F::set1(3.0e38f));
  const F inv = rsqrt(select(ok, n2, F::set1(1.0f)));
  const F zero = F::zero();
  return {select(ok, q.x * inv, zero), select(ok, q.y * inv, zero), select(ok, q.z * inv, zero),
          select(ok, q.w * inv, F::set1(1.0f))};
}

// align() for the common case first: when every lane's sign is decided (rotations not half a
// turn apart) b is just flipped into a's hemisphere; only otherwise are canonical signs computed.
template <class F>
MARROW_KERNEL void align_fast(Quat4<F>& a, Quat4<F>& b) {
  const F d = dot(a, b);
  const F eps2 = F::set1(kUndecidedDot * kUndecidedDot);
  if (all(d * d > eps2 * dot(a, a) * dot(b, b))) {
    b = flip(b, d);
  } else {
    align(a, b);
  }
}

// Running weighted sums of one group of joints (blend.cpp's Accumulator, lane by lane). KeepLast:
// whether some lane may end with a single term, which is then returned exactly (else `last` is
// not kept, and the registers it would take stay free).
template <class F, bool KeepLast>
struct Accumulator {
  Trs<F> sum{};
  F weight = F::zero();
  F count = F::zero();
  Trs<F> last{};  // the only term, where count is 1
  // Whether every lane holds a term already (then new terms need no "first term" handling).
  bool all_started = false;

  MARROW_KERNEL Accumulator() {
    sum = {{F::zero(), F::zero(), F::zero()},
           {F::zero(), F::zero(), F::zero(), F::zero()},
           {F::zero(), F::zero(), F::zero()}};
    last = sum;
  }

  MARROW_KERNEL void accumulate(const Trs<F>& x, const Quat4<F>& q, F w) {
    sum.t = {fma(x.t.x, w, sum.t.x), fma(x.t.y, w, sum.t.y), fma(x.t.z, w, sum.t.z)};
    sum.q = {fma(q.x, w, sum.q.x), fma(q.y, w, sum.q.y), fma(q.z, w, sum.q.z),
             fma(q.w, w, sum.q.w)};
    sum.s = {fma(x.s.x, w, sum.s.x), fma(x.s.y, w, sum.s.y), fma(x.s.z, w, sum.s.z)};
  }

  // Adds x with weight w in every lane (an unmasked layer).
  MARROW_KERNEL void add_all(const Trs<F>& x, F w) {
    Quat4<F> q = x.q;
    if (all_started) align_fast(sum.q, q);  // the first term sets the hemisphere
    accumulate(x, q, w);
    weight = weight + w;
    count = count + F::set1(1.0f);
    if constexpr (KeepLast) last = x;
    all_started = true;
  }

  // Adds x with weight w in the lanes of `live` (a masked layer, or the rest pose filling in).
  template <class M>
  MARROW_KERNEL void add(const Trs<F>& x, F w, M live) {
    if (all_started && all(live)) return add_all(x, w);
    const auto first = live & (count == F::zero());
    Quat4<F> q = x.q, s = sum.q;
    align_fast(s, q);
    q = {select(first, x.q.x, q.x), select(first, x.q.y, q.y), select(first, x.q.z, q.z),
         select(first, x.q.w, q.w)};
    const auto aligned = live & !first;
    sum.q = {select(aligned, s.x, sum.q.x), select(aligned, s.y, sum.q.y),
             select(aligned, s.z, sum.q.z), select(aligned, s.w, sum.q.w)};
    const F wl = select(live, w, F::zero());
    accumulate(x, q, wl);
    weight = weight + wl;
    count = count + select(live, F::set1(1.0f), F::zero());
    if constexpr (KeepLast) last = select(live, x, last);
  }

  // The normalized average (lanes with count 0 hold garbage; the caller selects).
  MARROW_KERNEL Trs<F> average() const {
    const F inv = F::set1(1.0f) / select(weight > F::zero(), weight, F::set1(1.0f));
    const Quat4<F> q =
        normalize(Quat4<F>{sum.q.x * inv, sum.q.y * inv, sum.q.z * inv, sum.q.w * inv});
    const Trs<F> avg{{sum.t.x * inv, sum.t.y * inv, sum.t.z * inv},
                     q,
                     {sum.s.x * inv, sum.s.y * inv, sum.s.z * inv}};
    if constexpr (KeepLast) return select(count == F::set1(1.0f), last, avg);
    return avg;
  }
};

// blend.h's lerp(a, b, t), lane by lane (t <= 0 gives a, t >= 1 gives b exactly).
template <class F>
MARROW_KERNEL Trs<F> lerp(const Trs<F>& a, const Trs<F>& b, F t) {
  Quat4<F> qa = a.q, qb = b.q;
  align(qa, qb);
  const F u = F::set1(1.0f) - t;
  const Quat4<F> q = normalize(Quat4<F>{fma(qa.x, u, qb.x * t), fma(qa.y, u, qb.y * t),
                                        fma(qa.z, u, qb.z * t), fma(qa.w, u, qb.w * t)});
  const Trs<F> mid{
      {fma(b.t.x - a.t.x, t, a.t.x), fma(b.t.y - a.t.y, t, a.t.y), fma(b.t.z - a.t.z, t, a.t.z)},
      q,
      {fma(b.s.x - a.s.x, t, a.s.x), fma(b.s.y - a.s.y, t, a.s.y), fma(b.s.z - a.s.z, t, a.s.z)}};
  return select(t <= F::zero(), a, select(t >= F::set1(1.0f), b, mid));
}

template <class F>
MARROW_KERNEL Quat4<F> mul(const Quat4<F>& a, const Quat4<F>& b) {
  return {fma(a.w, b.x, fma(a.x, b.w, a.y * b.z - a.z * b.y)),
          fma(a.w, b.y, fma(-a.x, b.z, fma(a.y, b.w, a.z * b.x))),
          fma(a.w, b.z, fma(a.x, b.y, fma(-a.y, b.x, a.z * b.w))),
          fma(a.w, b.w, -(fma(a.x, b.x, fma(a.y, b.y, a.z * b.z))))};
}

// --- Elementary functions for the additive layers' q^w (Cephes-style minimax polynomials, single
// precision: ~1e-7 absolute on the ranges used here). ---

// atan(x) for x >= 0.
template <class F>
MARROW_KERNEL F atan_nonnegative(F x) {
  const auto big = x > F::set1(2.414213562373095f);            // tan(3 pi / 8)
  const auto mid = (x > F::set1(0.4142135623730950f)) & !big;  // tan(pi / 8)
  const F one = F::set1(1.0f);
  // Reduced argument: -1/x, (x - 1)/(x + 1) or x; offset pi/2, pi/4 or 0.
  const F num = select(big, -one, select(mid, x - one, x));
  const F den = select(big, x, select(mid, x + one, one));
  const F r = num / den;
  const F base = select(big, F::set1(1.5707963267948966f),
                        select(mid, F::set1(0.7853981633974483f), F::zero()));
  const F z = r * r;
  F p = F::set1(8.05374449538e-2f);
  p = fma(p, z, F::set1(-1.38776856032e-1f));
  p = fma(p, z, F::set1(1.99777106478e-1f));
  p = fma(p, z, F::set1(-3.33329491539e-1f));
  return base + fma(p * z, r, r);
}

// atan2(s, c) for s > 0: in (0, pi).
template <class F>
MARROW_KERNEL F atan2_positive(F s, F c) {
  const auto right = c > F::zero();
  const F safe_c = select(right, c, F::set1(1.0f));
  const F safe_s = select(s > F::zero(), s, F::set1(1.0f));
  const F a = atan_nonnegative(select(right, s / safe_c, -c / safe_s));
  return select(right, a, F::set1(1.5707963267948966f) + a);
}

// sin and cos of x, |x| up to ~8192 (Cody-Waite reduction by pi/4 in three parts).
template <class F, class I>
MARROW_KERNEL void sincos(F x, F& sin_out, F& cos_out) {
  const F ax = abs(x);
  I j = to_int_trunc(ax * F::set1(1.27323954473516f));  // 4 / pi
  j = (j + I::set1(1)) & I::set1(~1);
  const F y = to_float(j);
  F r = fma(y, F::set1(-0.78515625f), ax);
  r = fma(y, F::set1(-2.4187564849853515625e-4f), r);
  r = fma(y, F::set1(-3.77489497744594108e-8f), r);
  const F z = r * r;
  F sp = F::set1(-1.9515295891e-4f);
  sp = fma(sp, z, F::set1(8.3321608736e-3f));
  sp = fma(sp, z, F::set1(-1.6666654611e-1f));
  const F sin_r = fma(sp * z, r, r);
  F cp = F::set1(2.443315711809948e-5f);
  cp = fma(cp, z, F::set1(-1.388731625493765e-3f));
  cp = fma(cp, z, F::set1(4.166664568298827e-2f));
  const F cos_r = fma(cp * z, z, fma(F::set1(-0.5f), z, F::set1(1.0f)));
  // Octant j (even): j & 2 swaps sin and cos; the signs follow j & 4 (sin) and (j + 2) & 4 (cos).
  const auto swap = (j & I::set1(2)) == I::set1(2);
  const F s = select(swap, cos_r, sin_r), c = select(swap, sin_r, cos_r);
  const F neg = -F::set1(1.0f);
  const F sin_sign = select((j & I::set1(4)) == I::set1(4), neg, F::set1(1.0f));
  const F cos_sign = select(((j + I::set1(2)) & I::set1(4)) == I::set1(4), neg, F::set1(1.0f));
  sin_out = flip_sign(s * sin_sign, x);  // sin is odd
  cos_out = c * cos_sign;
}

// additive.cpp's quat_pow(q, w), lane by lane.
template <class F, class I>
MARROW_KERNEL Quat4<F> quat_pow(Quat4<F> q, F w) {
  const F eps2 = F::set1(kUndecidedDot * kUndecidedDot);
  const auto undecided = q.w * q.w <= eps2 * dot(q, q);
  const Quat4<F> v{q.x, q.y, q.z, F::zero()};
  const F sign = select(undecided, largest_component(v), q.w);
  q = flip(q, sign);
  const F s2 = fma(q.x, q.x, fma(q.y, q.y, q.z * q.z));
  const auto moving = s2 > F::zero();
  const F s = sqrt(s2);
  const F half = atan2_positive(select(moving, s, F::set1(1.0f)), q.w);
  F sn, cs;
  sincos<F, I>(w * half, sn, cs);
  const F k = sn / select(moving, s, F::set1(1.0f));
  const F one = F::set1(1.0f), zero = F::zero();
  return {select(moving, q.x * k, zero), select(moving, q.y * k, zero),
          select(moving, q.z * k, zero), select(moving, cs, one)};
}

// additive.cpp's scale_pow for lanes where it is needed (r != 1, w != 1): rare, so per lane.
template <class F>
MARROW_KERNEL F scale_pow(F r, F w) {
  alignas(32) float rv[8], wv[8];
  r.store(rv);
  w.store(wv);
  for (int i = 0; i < 8; ++i) {
    if (rv[i] == 1.0f) continue;
    float s = rv[i] > 0 ? __builtin_powf(rv[i], wv[i]) : 1.0f + wv[i] * (rv[i] - 1.0f);
    s = s < -1e6f ? -1e6f : (s > 1e6f ? 1e6f : s);
    rv[i] = s;
  }
  return F::load(rv);
}

// additive.cpp's apply_additive(base, delta, w), lane by lane (w = 0 returns base exactly).
template <class F, class I>
MARROW_KERNEL Trs<F> apply_additive(const Trs<F>& base, const Trs<F>& delta, F w) {
  const F one = F::set1(1.0f);
  const auto full = w == one;
  const auto none = w == F::zero();
  Trs<F> r;
  r.t = {fma(delta.t.x, w, base.t.x), fma(delta.t.y, w, base.t.y), fma(delta.t.z, w, base.t.z)};
  Quat4<F> dq = delta.q;
  Vec3x<F> ds = delta.s;
  if (!all(w == one)) {
    const Quat4<F> p = quat_pow<F, I>(delta.q, w);
    dq = {select(full, delta.q.x, p.x), select(full, delta.q.y, p.y), select(full, delta.q.z, p.z),
          select(full, delta.q.w, p.w)};
    const auto scaled = (ds.x != one) | (ds.y != one) | (ds.z != one);
    if (any(scaled & !full)) {
      ds = {select(full, ds.x, scale_pow(ds.x, w)), select(full, ds.y, scale_pow(ds.y, w)),
            select(full, ds.z, scale_pow(ds.z, w))};
    }
  }
  r.q = normalize(mul(base.q, dq));
  r.s = {base.s.x * ds.x, base.s.y * ds.y, base.s.z * ds.z};
  r.t = {select(full, base.t.x + delta.t.x, r.t.x), select(full, base.t.y + delta.t.y, r.t.y),
         select(full, base.t.z + delta.t.z, r.t.z)};
  return select(none, base, r);
}

// Masked weight of one layer for group g: weight * clamp(mask[j], 0, 1), NaN read as 0.
template <class F>
MARROW_KERNEL F layer_weight(const LayerArg& layer, std::size_t g, std::size_t joint_count) {
  const F w = F::set1(layer.weight);
  if (layer.mask == nullptr) return w;
  const std::size_t first = g * kSoaWidth;
  F m;
  if (first + kSoaWidth <= joint_count) {
    m = F::loadu(layer.mask + first);
  } else {
    alignas(32) float tail[kSoaWidth] = {};
    for (std::size_t i = 0; first + i < joint_count; ++i) tail[i] = layer.mask[first + i];
    m = F::load(tail);
  }
  return w * min(max(m, F::zero()), F::set1(1.0f));
}

// Whether some lane may end up with a single term from these layers: unless two or more of them
// weigh every joint.
template <class F>
MARROW_KERNEL bool may_have_one_term(const LayerArg* layers, std::size_t count) {
  std::size_t full = 0;
  for (std::size_t i = 0; i < count; ++i) full += layers[i].mask == nullptr ? 1 : 0;
  return full < 2;
}

template <class F, bool KeepLast>
MARROW_KERNEL void add_layers(Accumulator<F, KeepLast>& acc, const LayerArg* layers,
                              std::size_t count, std::size_t g, std::size_t joint_count) {
  const F tiny = F::set1(kTinyWeight);
  for (std::size_t i = 0; i < count; ++i) {
    const Trs<F> x = load_trs<F>(layers[i].pose[g]);
    if (layers[i].mask == nullptr) {
      acc.add_all(x, F::set1(layers[i].weight));  // live layers weigh more than kTinyWeight
    } else {
      const F w = layer_weight<F>(layers[i], g, joint_count);
      acc.add(x, w, w > tiny);
    }
  }
}

template <class F, bool NormalLast, bool OverrideLast>
MARROW_KERNEL void blend_groups_impl(const BlendArgs& a) {
  using I = decltype(to_int_trunc(F::zero()));
  const F tiny = F::set1(kTinyWeight);
  const F threshold = F::set1(a.threshold);
  for (std::size_t g = 0; g < a.group_count; ++g) {
    const Trs<F> rest = load_trs<F>(a.rest[g]);
    // 1. Normal layers, the rest pose making up a summed weight below the threshold.
    Accumulator<F, NormalLast> acc;
    add_layers(acc, a.normal, a.normal_count, g, a.joint_count);
    const auto has = acc.count > F::zero();
    const auto light = has & (acc.weight < threshold);
    if (any(light)) acc.add(rest, threshold - acc.weight, light);
    Trs<F> result = all(has) ? acc.average() : select(has, acc.average(), rest);

    // 2. Override layers: their own average, over the result by their summed weight (max 1).
    if (a.override_count > 0) {
      Accumulator<F, OverrideLast> o;
      add_layers(o, a.overrides, a.override_count, g, a.joint_count);
      const auto live = o.count > F::zero();
      if (any(live)) result = select(live, lerp(result, o.average(), o.weight), result);
    }

    // 3. Additive layers, in order.
    for (std::size_t i = 0; i < a.additive_count; ++i) {
      F w = layer_weight<F>(a.additives[i], g, a.joint_count);
      w = select(abs(w) > tiny, w, F::zero());
      result = apply_additive<F, I>(result, load_trs<F>(a.additives[i].pose[g]), w);
    }
    store_trs(result, a.output[g]);
  }
}

template <class F>
void blend_groups(const BlendArgs& a) {
  const bool normal_last = may_have_one_term<F>(a.normal, a.normal_count);
  const bool override_last = may_have_one_term<F>(a.overrides, a.override_count);
  if (normal_last) {
    if (override_last) return blend_groups_impl<F, true, true>(a);
    return blend_groups_impl<F, true, false>(a);
  }
  if (override_last) return blend_groups_impl<F, false, true>(a);
  return blend_groups_impl<F, false, false>(a);
}

// True when joint k is `from` or lies below it. Ancestors come before their children, so the walk
// up stops as soon as it passes below `from`.
template <class F>
MARROW_KERNEL bool in_subtree(const std::uint16_t* parents, std::size_t k, std::size_t from) {
  std::size_t p = k;
  while (p != 0xffff && p > from) p = parents[p];
  return p == from;
}

// TRS to matrix columns, 8 joints at once (mat4.h's mat4_from_trs): the rotation's products,
// then columns 0-1 and columns 2-3 as two blocks of 8 registers; joint i's matrix is row i of each
// block once transposed.
template <class F>
struct RotationProducts {
  F xx, yy, zz, xy, xz, yz, wx, wy, wz;
};
template <class F>
MARROW_KERNEL RotationProducts<F> rotation_products(const SoaTransform& l) {
  const F qx = F::load(l.qx), qy = F::load(l.qy), qz = F::load(l.qz), qw = F::load(l.qw);
  return {qx * qx, qy * qy, qz * qz, qx * qy, qx * qz, qy * qz, qw * qx, qw * qy, qw * qz};
}
template <class F>
MARROW_KERNEL void columns01(const RotationProducts<F>& p, const SoaTransform& l, F (&block)[8]) {
  const F one = F::set1(1.0f), two = F::set1(2.0f), zero = F::zero();
  const F sx = F::load(l.sx), sy = F::load(l.sy);
  block[0] = (one - two * (p.yy + p.zz)) * sx;
  block[1] = two * (p.xy + p.wz) * sx;
  block[2] = two * (p.xz - p.wy) * sx;
  block[3] = zero;
  block[4] = two * (p.xy - p.wz) * sy;
  block[5] = (one - two * (p.xx + p.zz)) * sy;
  block[6] = two * (p.yz + p.wx) * sy;
  block[7] = zero;
}
template <class F>
MARROW_KERNEL void columns23(const RotationProducts<F>& p, const SoaTransform& l, F (&block)[8]) {
  const F one = F::set1(1.0f), two = F::set1(2.0f), zero = F::zero();
  const F sz = F::load(l.sz);
  block[0] = two * (p.xz + p.wy) * sz;
  block[1] = two * (p.yz - p.wx) * sz;
  block[2] = (one - two * (p.xx + p.yy)) * sz;
  block[3] = zero;
  block[4] = F::load(l.tx);
  block[5] = F::load(l.ty);
  block[6] = F::load(l.tz);
  block[7] = one;
}

// A range of joints (`first` up to `end`, a sub-hierarchy when `subtree`): joints in index order,
// each converted and multiplied at once, so that joints outside the range are never written.
template <class F>
void local_to_model_range(const LocalToModelArgs& a) {
  // Locals, not a.*: the stores into `model` could alias the argument block for all the compiler
  // knows, and it would reload every field after every store.
  const std::uint16_t* const parents = a.parents;
  const SoaTransform* const local = a.local;
  float* const model = reinterpret_cast<float*>(a.model);
  const float* const root = reinterpret_cast<const float*>(a.root);
  const std::size_t from = a.first, end_joint = a.end;
  const bool subtree = a.subtree, from_excluded = a.first_excluded;
  const std::size_t groups = (end_joint + kSoaWidth - 1) / kSoaWidth;
  alignas(32) float cols[kSoaWidth][16];
  for (std::size_t g = from / kSoaWidth; g < groups; ++g) {
    const RotationProducts<F> p = rotation_products<F>(local[g]);
    F block0[8], block1[8];
    columns01(p, local[g], block0);
    columns23(p, local[g], block1);
    // Joint i's matrix is row i of each block once transposed.
    transpose8x8(block0);
    transpose8x8(block1);
    for (std::size_t i = 0; i < kSoaWidth; ++i) {
      block0[i].store(cols[i]);
      block1[i].store(cols[i] + 8);
    }
    const std::size_t begin = g * kSoaWidth;
    const std::size_t end = begin + kSoaWidth < end_joint ? begin + kSoaWidth : end_joint;
    for (std::size_t j = begin < from ? from : begin; j < end; ++j) {
      if (subtree && (!in_subtree<F>(parents, j, from) || (from_excluded && j == from))) continue;
      const float* c = cols[j - begin];
      float* out = model + 16 * j;
      const std::uint16_t p = parents[j];
      if (p != 0xffff) {
        affine_mul(model + 16 * std::size_t{p}, F::load(c), F::load(c + 8), out);
      } else if (root != nullptr) {
        affine_mul(root, F::load(c), F::load(c + 8), out);
      } else {
        F::load(c).storeu(out);
        F::load(c + 8).storeu(out + 8);
      }
    }
  }
}

// Every joint, in two passes. First each joint's local matrix, 8 joints at a time, into a scratch
// block on the stack that stays in the first-level cache. Then the products by the parents' model
// matrices in the skeleton's depth order: there the next joints rarely wait on the one just
// computed, so their loads and multiply-adds overlap, where the index order chains each joint to
// the previous one (the store, its reload and three dependent multiply-adds, ~20 cycles a joint).
// Skeletons larger than the scratch block keep their local matrices in `model` between the passes.
// With `streaming`, the model matrices too are made in the scratch and then copied out with
// non-temporal stores (SoaLocalToModelJob::streaming).
inline constexpr std::size_t kLocalMatrixScratch = 256;

template <class F>
MARROW_KERNEL void local_matrices(const SoaTransform* local, std::size_t n, float* out) {
  const std::size_t groups = (n + kSoaWidth - 1) / kSoaWidth;
  for (std::size_t g = 0; g < groups; ++g) {
    const RotationProducts<F> p = rotation_products<F>(local[g]);
    const std::size_t begin = g * kSoaWidth;
    const std::size_t count = n - begin < kSoaWidth ? n - begin : kSoaWidth;
    // Columns 0-1 then 2-3, each transposed and stored before the next is made: fewer live
    // registers than both blocks at once (16 at AVX2 would spill).
    F block[8];
    columns01(p, local[g], block);
    transpose8x8(block);
    for (std::size_t i = 0; i < count; ++i) block[i].storeu(out + 16 * (begin + i));
    columns23(p, local[g], block);
    transpose8x8(block);
    for (std::size_t i = 0; i < count; ++i) block[i].storeu(out + 16 * (begin + i) + 8);
  }
}

template <class F>
void local_to_model(const LocalToModelArgs& a) {
  if (a.subtree || a.end < a.joint_count) return local_to_model_range<F>(a);
  const std::size_t n = a.joint_count;
  const std::uint16_t* const parents = a.parents;
  const std::uint16_t* const order = a.order;
  float* const model = reinterpret_cast<float*>(a.model);
  const float* const root = reinterpret_cast<const float*>(a.root);
  alignas(64) float scratch[kLocalMatrixScratch * 16];
  const bool fits = n <= kLocalMatrixScratch;
  float* const locals = fits ? scratch : model;
  local_matrices<F>(a.local, n, locals);
  // Streaming: the products in place in the scratch, then one sequential copy out.
  const bool stream = a.streaming && fits && (reinterpret_cast<std::uintptr_t>(model) & 15) == 0;
  float* const results = stream ? scratch : model;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t j = order[k];
    const float* const in = locals + 16 * j;
    float* const out = results + 16 * j;
    const std::uint16_t p = parents[j];
    if (p != 0xffff) {
      affine_mul(results + 16 * std::size_t{p}, F::loadu(in), F::loadu(in + 8), out);
    } else if (root != nullptr) {
      affine_mul(root, F::loadu(in), F::loadu(in + 8), out);
    } else if (in != out) {
      F::loadu(in).storeu(out);
      F::loadu(in + 8).storeu(out + 8);
    }
  }
  if (stream) stream_copy(scratch, model, 16 * n, F::zero());  // F: the level, by its lookup
}

}  // namespace marrow::soa_detail
