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
