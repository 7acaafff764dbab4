// What the compiled-clip sampling kernel takes, and the table of one SIMD level's kernel. Plain
// data only, so that the per-level translation units can include it (src/math/simd/README.md).
// Private to src/clip.
#pragma once

#include <cstddef>
#include <cstdint>

#include "marrow/clip/compiled_clip.h"
#include "marrow/math/soa_transform.h"
#include "math/simd/kernel_levels.h"

namespace marrow::compiled_detail {

// TrackGroup::slerp_timing's k = (1 - d) (kSlerpTimingLinear + kSlerpTimingQuadratic (1 - d)):
// 2/3 cancels nlerp's timing error to third order in the angle (its error at fraction t is
// -(angle^3 / 3) t (t - 1/2) (t - 1)); 0.19 fits the next order (docs/formats_archive.md).
inline constexpr float kSlerpTimingLinear = 2.0f / 3.0f;
inline constexpr float kSlerpTimingQuadratic = 0.19f;

// The sampled fraction alpha + k(d) alpha (alpha - 1/2) (alpha - 1) as c[2] + (c[1] + c[0] d) d.
inline void slerp_timing_coefficients(float alpha, float (&c)[3]) {
  const float cubic = alpha * (alpha - 0.5f) * (alpha - 1.0f);
  // k = L (1 - d) + Q (1 - d)^2 = (L + Q) - (L + 2 Q) d + Q d^2
  c[0] = kSlerpTimingQuadratic * cubic;
  c[1] = -(kSlerpTimingLinear + 2 * kSlerpTimingQuadratic) * cubic;
  c[2] = (kSlerpTimingLinear + kSlerpTimingQuadratic) * cubic + alpha;
}

struct SampleArgs {
  std::size_t group_count;
  const CompiledClipData::Source* sources;  // 3 per group
  const float* constants;
  const CompiledClipData::TrackGroup* track_groups;
  const float* ranges;
  // Per stream: the frames before and after the sampled time, and where between them (0 at
  // frame0, 1 at frame1).
  const std::uint8_t* frame0[CompiledClipData::kMaxStreams];
  const std::uint8_t* frame1[CompiledClipData::kMaxStreams];
  float alpha[CompiledClipData::kMaxStreams];
  // Per stream: TrackGroup::slerp_timing's fraction as a quadratic in d
  // (slerp_timing_coefficients).
  float timing[CompiledClipData::kMaxStreams][3];
  const SoaTransform* rest;
  SoaTransform* output;
};

struct SampleKernels {
  void (*sample)(const SampleArgs&);
};

MARROW_DECLARE_KERNEL_LEVELS(SampleKernels);

// The active level's kernel (simd.h).
const SampleKernels& sample_kernels();

}  // namespace marrow::compiled_detail
