// The compiled-clip sampling kernel, written once over the lane types of
// src/math/simd/lanes_*.h and instantiated per SIMD level (sample_kernels_<level>.cpp); each
// instantiation names its level's types, so no level's machine code can stand in for another's
// (src/math/simd/README.md). Private to src/clip.
//
// Include only after one lanes header and sample_dispatch.h.
#pragma once

namespace marrow::compiled_detail {

#define MARROW_KERNEL [[gnu::always_inline]] inline

// Component k of one frame's track group, 8 lanes, decoded.
template <class F>
MARROW_KERNEL F decode(const std::uint8_t* frame, const CompiledClipData::TrackGroup& tg,
                       const float* ranges, int k) {
  using I = decltype(to_int_trunc(F::zero()));
  const std::uint8_t* p = frame + tg.frame_offset;
  switch (tg.format) {
    case CompiledClipData::Format::kU8: {
      const float* r = ranges + tg.range_offset + k * 2 * kSoaWidth;
      return fma(to_float(I::load_u8(p + k * kSoaWidth)), F::loadu(r + kSoaWidth), F::loadu(r));
    }
    case CompiledClipData::Format::kU16: {
      const float* r = ranges + tg.range_offset + k * 2 * kSoaWidth;
      const auto* words = reinterpret_cast<const std::uint16_t*>(p) + k * kSoaWidth;
      return fma(to_float(I::load_u16(words)), F::loadu(r + kSoaWidth), F::loadu(r));
    }
    case CompiledClipData::Format::kF32:
    default:
      return F::loadu(reinterpret_cast<const float*>(p) + k * kSoaWidth);
  }
}

template <class F>
MARROW_KERNEL void copy_planes(const float* from, float* to, int planes) {
  for (int k = 0; k < planes; ++k) F::loadu(from + k * kSoaWidth).store(to + k * kSoaWidth);
}

template <class F>
void sample_groups(const SampleArgs& a) {
  using Source = CompiledClipData::Source;
  const float* constant = a.constants;
  const CompiledClipData::TrackGroup* tg = a.track_groups;
  for (std::size_t g = 0; g < a.group_count; ++g) {
    SoaTransform& out = a.output[g];
    const SoaTransform& rest = a.rest[g];
    // The three channels: planes of `out` and `rest` in SoaTransform order.
    float* const out_planes[3] = {out.tx, out.qx, out.sx};
    const float* const rest_planes[3] = {rest.tx, rest.qx, rest.sx};
    for (int c = 0; c < 3; ++c) {
      const int comps = c == 1 ? 4 : 3;
      switch (a.sources[g * 3 + c]) {
        case Source::kRest:
          copy_planes<F>(rest_planes[c], out_planes[c], comps);
          break;
        case Source::kConstant:
          copy_planes<F>(constant, out_planes[c], comps);
          constant += comps * kSoaWidth;
          break;
        case Source::kAnimated: {
          F v[4];
          const F alpha = F::set1(a.alpha[tg->stream]);
          for (int k = 0; k < comps; ++k) {
            const F v0 = decode<F>(a.frame0[tg->stream], *tg, a.ranges, k);
            const F v1 = decode<F>(a.frame1[tg->stream], *tg, a.ranges, k);
            v[k] = fma(v1 - v0, alpha, v0);
          }
          if (c == 1) {
            // nlerp: the hemisphere of consecutive frames was fixed when the clip was compiled.
            const F n2 = fma(v[0], v[0], fma(v[1], v[1], fma(v[2], v[2], v[3] * v[3])));
            const F inv = rsqrt(n2);
            for (int k = 0; k < 4; ++k) v[k] = v[k] * inv;
          }
          for (int k = 0; k < comps; ++k) v[k].store(out_planes[c] + k * kSoaWidth);
          ++tg;
          break;
        }
      }
    }
  }
}

}  // namespace marrow::compiled_detail
