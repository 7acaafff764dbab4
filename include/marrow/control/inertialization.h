/// @file
/// Inertialization (Bollo, "Inertialization: High-Performance Animation Transitions in Gears of
/// War", GDC 2018): instead of blending two animations for the length of a transition, switch to
/// the new one at once and add the difference the switch made, decaying to zero. The Animator
/// (animator.h, Animator::inertialize) keeps that difference per joint channel with its velocity,
/// and decays each with the quintic below: nine channels per joint, the translation difference,
/// the vector part of the rotation difference (source * target^-1, in the hemisphere w >= 0; the
/// output is that quaternion, rebuilt with w = sqrt(1 - |v|^2), times the target's rotation) and
/// the scale difference. Only the new animation is sampled after the switch, so it costs less than
/// a cross-fade, which samples both.
#pragma once

namespace marrow {

/// The offset at time t (seconds since the switch) of a channel that started at x0 with velocity
/// v0 and must reach zero, with zero velocity and acceleration, by `duration`:
/// @code
///   x(t) = A t^5 + B t^4 + C t^3 + a0/2 t^2 + v0 t + x0 for t < t1, and 0 after,
/// @endcode
/// with a0 = (-8 v0 t1 - 20 x0) / t1^2 (so the jerk is zero at the switch) and A, B, C from the end
/// conditions. t1 = duration, shortened to -5 x0 / v0 when v0 heads for zero so fast that the full
/// duration would carry x past it. So x(0) = x0 and x'(0) = v0 exactly (pose and velocity are
/// continuous at the switch), and x never changes sign: no channel passes the new animation
/// (tests/control/inertialization_test.cpp measures the largest overshoot over a grid of v0 at
/// below 1e-6 of x0). When v0 heads away from zero the offset first grows, continuing the old
/// motion, before it decays. Non-finite input gives 0.
///
/// The same curve, written over s = t / t1: x = x0 P(s) + v0 t1 Q(s) with
/// P(s) = 1 - 10 s^2 + 20 s^3 - 15 s^4 + 4 s^5 and Q(s) = s (1 - s)^4, which is how the Animator
/// evaluates it (two products per channel per frame once P and Q are known).
float inertial_offset(float x0, float v0, float duration, float t);

}  // namespace marrow
