// Choosing between q and -q (the same rotation) when blending, so that the choice is stable from
// frame to frame. Private to src/pose.
#pragma once

#include <cmath>

#include "marrow/math/quat.h"

namespace marrow::detail {

// |cos| of the angle between two quaternions below which the sign of their dot product is
// treated as undecided: they are then (nearly) half a turn apart as rotations.
inline constexpr float kUndecidedDot = 1e-4f;

// The component of largest magnitude, with its sign.
inline float largest_component(Quat q) {
  float largest = q.x;
  if (std::fabs(q.y) > std::fabs(largest)) largest = q.y;
  if (std::fabs(q.z) > std::fabs(largest)) largest = q.z;
  if (std::fabs(q.w) > std::fabs(largest)) largest = q.w;
  return largest;
}

// q or -q, whichever has its largest-magnitude component positive. Rounding noise cannot flip
// this choice (short of an exact tie between two components).
inline Quat canonical(Quat q) {
  return largest_component(q) < 0 ? negate(q) : q;
}

// Puts `b` in the hemisphere of `a` (the shortest arc between them). When they are nearly
// orthogonal the two choices are rotations half a turn apart and the dot product's sign is
// rounding noise: two clips holding a joint exactly half a turn apart would then blend one way
// on one frame and the other way on the next. There both are put in canonical sign instead, a
// choice that depends on the rotations alone. The one discontinuity any shortest-arc blend has
// (at half a turn) moves by at most kUndecidedDot; no new one appears.
inline void align(Quat& a, Quat& b) {
  const float d = dot(a, b);
  if (d * d > kUndecidedDot * kUndecidedDot * dot(a, a) * dot(b, b)) {
    if (d < 0) b = negate(b);
  } else {
    a = canonical(a);
    b = canonical(b);
  }
}

}  // namespace marrow::detail
