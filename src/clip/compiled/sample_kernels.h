// The compiled-clip sampling kernel, written once over the lane types of
// src/math/simd/lanes_*.h and instantiated per SIMD level (sample_kernels_<level>.cpp); each
// instantiation names its level's types, so no level's machine code can stand in for another's
// (src/math/simd/README.md). Private to src/clip.
//
// Include only after one lanes header and sample_dispatch.h.
#pragma once

#include "math/simd/force_inline.h"

namespace marrow::compiled_detail {

#define MARROW_KERNEL MARROW_FORCE_INLINE

// Where between two rotation frames each lane goes (TrackGroup::slerp_timing): alpha + k cubic,
// k a quadratic in the frames' dot product d, here (t.d2 d + t.d1) d + t.d0 with the cubic and
// alpha folded into the coefficients per stream (slerp_timing_coefficients), so that d is followed
// by two operations: the kernel is bound by its chains' latency. Groups without it get t = {0, 0,
// alpha}.
template <class F>
struct TimedAlpha {
  F d2, d1, d0;
};

template <class F>
MARROW_KERNEL F slerp_timed_alpha(const F* a, const F* b, const TimedAlpha<F>& t) {
  const F d = fma(a[0], b[0], a[1] * b[1]) + fma(a[2], b[2], a[3] * b[3]);
  return fma(fma(d, t.d2, t.d1), d, t.d0);
}

// One track group's components, decoded from both frames and interpolated (lerp; nlerp for
// rotations, at slerp_timed_alpha: the hemisphere of consecutive frames was fixed when the clip
// was compiled), into the output planes. Fmt picks the element type at compile time.
template <class F, CompiledClipData::Format Fmt, int Comps>
MARROW_KERNEL void interpolate_group(const std::uint8_t* frame0, const std::uint8_t* frame1,
                                     const float* range, F alpha, const TimedAlpha<F>& timed,
                                     float* out) {
  using I = decltype(to_int_trunc(F::zero()));
  F a[Comps], b[Comps];
  for (int k = 0; k < Comps; ++k) {
    F& v0 = a[k];
    F& v1 = b[k];
    if constexpr (Fmt == CompiledClipData::Format::kU8) {
      const F scale = F::loadu(range + (2 * k + 1) * kSoaWidth),
              min = F::loadu(range + 2 * k * kSoaWidth);
      v0 = fma(to_float(I::load_u8(frame0 + k * kSoaWidth)), scale, min);
      v1 = fma(to_float(I::load_u8(frame1 + k * kSoaWidth)), scale, min);
    } else if constexpr (Fmt == CompiledClipData::Format::kU16) {
      const F scale = F::loadu(range + (2 * k + 1) * kSoaWidth),
              min = F::loadu(range + 2 * k * kSoaWidth);
      v0 =
          fma(to_float(I::load_u16(reinterpret_cast<const std::uint16_t*>(frame0) + k * kSoaWidth)),
              scale, min);
      v1 =
          fma(to_float(I::load_u16(reinterpret_cast<const std::uint16_t*>(frame1) + k * kSoaWidth)),
              scale, min);
    } else {
      v0 = F::loadu(reinterpret_cast<const float*>(frame0) + k * kSoaWidth);
      v1 = F::loadu(reinterpret_cast<const float*>(frame1) + k * kSoaWidth);
    }
  }
  if constexpr (Comps == 4) alpha = slerp_timed_alpha(a, b, timed);
  F v[Comps];
  for (int k = 0; k < Comps; ++k) v[k] = fma(b[k] - a[k], alpha, a[k]);
  if constexpr (Comps == 4) {
    const F inv = rsqrt(fma(v[0], v[0], fma(v[1], v[1], fma(v[2], v[2], v[3] * v[3]))));
    for (int k = 0; k < 4; ++k) v[k] = v[k] * inv;
  }
  for (int k = 0; k < Comps; ++k) v[k].store(out + k * kSoaWidth);
}

// A kPacked group: each lane's bits unpacked from one record per stored component, then as
// interpolate_group. Rotations come without w: each frame's is rebuilt as the non-negative root
// of 1 - x^2 - y^2 - z^2 (the compiler packs a lane only where consecutive frames then lie in one
// hemisphere, so nlerp needs no sign turn).
template <class F, int Comps>
MARROW_KERNEL void interpolate_packed(const std::uint8_t* frame0, const std::uint8_t* frame1,
                                      const float* range, F alpha, const TimedAlpha<F>& timed,
                                      const CompiledClipData::TrackGroup& tg, float* out) {
  const auto windows = bit_windows(tg.lane_offset, tg.lane_bits, alpha);
  // One component's record: every lane's bits, rounded up to bytes (layout.h).
  const std::size_t record = (std::size_t{tg.lane_offset[7]} + tg.lane_bits[7] + 7) / 8;
  F a[4], b[4];
  for (int k = 0; k < 3; ++k) {
    const F scale = F::loadu(range + (2 * k + 1) * kSoaWidth),
            min = F::loadu(range + 2 * k * kSoaWidth);
    a[k] = fma(to_float(load_bits(frame0 + k * record, windows)), scale, min);
    b[k] = fma(to_float(load_bits(frame1 + k * record, windows)), scale, min);
  }
  if constexpr (Comps == 4) {
    // Sums as shallow trees: the kernel is bound by these chains' latency.
    const F one = F::set1(1.0f), zero = F::zero();
    a[3] = sqrt(max(one - (fma(a[0], a[0], a[1] * a[1]) + a[2] * a[2]), zero));
    b[3] = sqrt(max(one - (fma(b[0], b[0], b[1] * b[1]) + b[2] * b[2]), zero));
    alpha = slerp_timed_alpha(a, b, timed);
  }
  F v[Comps];
  for (int k = 0; k < Comps; ++k) v[k] = fma(b[k] - a[k], alpha, a[k]);
  if constexpr (Comps == 4) {
    const F inv = rsqrt(fma(v[0], v[0], v[1] * v[1]) + fma(v[2], v[2], v[3] * v[3]));
    for (int k = 0; k < 4; ++k) v[k] = v[k] * inv;
  }
  for (int k = 0; k < Comps; ++k) v[k].store(out + k * kSoaWidth);
}

template <class F, int Comps>
MARROW_KERNEL void animated_channel(const SampleArgs& a, const CompiledClipData::TrackGroup& tg,
                                    float* out) {
  const std::uint8_t* f0 = a.frame0[tg.stream] + tg.frame_offset;
  const std::uint8_t* f1 = a.frame1[tg.stream] + tg.frame_offset;
  const float* range = a.ranges + tg.range_offset;
  const F alpha = F::set1(a.alpha[tg.stream]);
  TimedAlpha<F> timed{F::zero(), F::zero(), alpha};
  if (Comps == 4 && tg.slerp_timing) {
    const float* c = a.timing[tg.stream];
    timed = {F::set1(c[0]), F::set1(c[1]), F::set1(c[2])};
  }
  using Format = CompiledClipData::Format;
  switch (tg.format) {
    case Format::kU8:
      return interpolate_group<F, Format::kU8, Comps>(f0, f1, range, alpha, timed, out);
    case Format::kU16:
      return interpolate_group<F, Format::kU16, Comps>(f0, f1, range, alpha, timed, out);
    case Format::kPacked:
      return interpolate_packed<F, Comps>(f0, f1, range, alpha, timed, tg, out);
    default:
      return interpolate_group<F, Format::kF32, Comps>(f0, f1, range, alpha, timed, out);
  }
}

template <class F, int Comps>
MARROW_KERNEL void copy_planes(const float* from, float* to) {
  for (int k = 0; k < Comps; ++k) F::loadu(from + k * kSoaWidth).store(to + k * kSoaWidth);
}

// One channel of one group from its source; advances the constant and track group cursors.
template <class F, int Comps>
MARROW_KERNEL void channel(const SampleArgs& a, CompiledClipData::Source source, const float* rest,
                           float* out, const float*& constant,
                           const CompiledClipData::TrackGroup*& tg) {
  switch (source) {
    case CompiledClipData::Source::kRest:
      copy_planes<F, Comps>(rest, out);
      break;
    case CompiledClipData::Source::kConstant:
      copy_planes<F, Comps>(constant, out);
      constant += Comps * kSoaWidth;
      break;
    case CompiledClipData::Source::kAnimated:
      animated_channel<F, Comps>(a, *tg++, out);
      break;
  }
}

template <class F>
void sample_groups(const SampleArgs& a) {
  const float* constant = a.constants;
  const CompiledClipData::TrackGroup* tg = a.track_groups;
  const CompiledClipData::Source* sources = a.sources;
  SoaTransform* const output = a.output;
  const SoaTransform* const rest = a.rest;
  for (std::size_t g = 0; g < a.group_count; ++g) {
    channel<F, 3>(a, sources[3 * g], rest[g].tx, output[g].tx, constant, tg);
    channel<F, 4>(a, sources[3 * g + 1], rest[g].qx, output[g].qx, constant, tg);
    channel<F, 3>(a, sources[3 * g + 2], rest[g].sx, output[g].sx, constant, tg);
  }
}

}  // namespace marrow::compiled_detail
