// What motion matching's distance kernel takes, and the table of one SIMD level's kernel. Plain
// data only, so that the per-level translation units can include it
// (src/math/simd/README.md). Private to src/control.
#pragma once

#include <cstddef>
#include <cstdint>

#include "math/simd/kernel_levels.h"

namespace marrow::control_detail {

// Frames in blocks of 8, stored float by float: float d of the block's frame l at
// block[d * 8 + l]. The kernel keeps the nearest frame of blocks [first, first + count) to the
// query, in squared Euclidean distance summed float by float in order (so a box's bound, summed
// the same way, never exceeds the distance of a frame inside it); a frame replaces the best when
// nearer, or as near with a lower index. Padding frames hold infinities and the index kNoFrame.
struct NearestArgs {
  const float* query;
  const float* blocks;
  const std::uint32_t* block_frames;  // 8 per block: the frame each lane holds
  std::size_t dims;
  std::size_t first_block, block_count;
  float best_distance;  // in and out
  std::uint32_t best_frame;
};

// The squared distance from `query` to the nearest point of the box [lower, upper], over
// `padded_dims` floats (a multiple of 8; padding floats have an infinite box and a zero query).
// Summed in any order: the search allows for rounding when it compares a bound with a distance.
struct MatchKernels {
  void (*nearest_in_blocks)(NearestArgs&);
  float (*box_distance)(const float* lower, const float* upper, const float* query,
                        std::size_t padded_dims);
};

MARROW_DECLARE_KERNEL_LEVELS(MatchKernels);

// The active level's kernels (src/math/simd/dispatch.h).
const MatchKernels& match_kernels();

}  // namespace marrow::control_detail
