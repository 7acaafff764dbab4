// Motion matching's distance kernel, written once over the lane types of src/math/simd/lanes_*.h
// and instantiated per level (match_kernels_<level>.cpp), so it goes through the runtime's one
// dispatch (src/math/simd/dispatch.h). Private to src/control. Include after one lanes header.
#pragma once

#include "control/match_dispatch.h"
#include "math/simd/force_inline.h"

namespace marrow::control_detail {

// Keeps the nearest of 8 frames whose squared distances are in `distance`. A template over the
// level's F so that each level has its own copy (src/math/simd/README.md).
template <class F>
MARROW_FORCE_INLINE void keep_nearest(const float* distance, const std::uint32_t* frames,
                                      float& best, std::uint32_t& best_frame) {
  for (int lane = 0; lane < 8; ++lane) {
    if (distance[lane] < best || (distance[lane] == best && frames[lane] < best_frame)) {
      best = distance[lane];
      best_frame = frames[lane];
    }
  }
}

// Eight frames at a time, one lane each, four blocks together so that four sums are in flight
// (one block's sum is a chain of dependent multiply-adds). Each lane's sum runs float by float in
// the same order as a scalar sum would, so every level ranks frames alike up to rounding. Every 8
// floats, blocks whose every partial sum already exceeds the best are dropped: sums only grow, so
// none of their frames could have won.
template <class F>
void nearest_in_blocks(NearestArgs& args) {
  const std::size_t dims = args.dims, stride = dims * 8;
  float best = args.best_distance;
  std::uint32_t best_frame = args.best_frame;
  alignas(32) float distance[4][8];
  std::size_t b = args.first_block;
  const std::size_t end = args.first_block + args.block_count;
  for (; b + 4 <= end; b += 4) {
    const float* block = args.blocks + b * stride;
    F s0 = F::zero(), s1 = F::zero(), s2 = F::zero(), s3 = F::zero();
    bool beaten = false;
    for (std::size_t d = 0; d < dims; ++d) {
      const F q = F::set1(args.query[d]);
      const F d0 = F::loadu(block + d * 8) - q, d1 = F::loadu(block + stride + d * 8) - q;
      const F d2 = F::loadu(block + 2 * stride + d * 8) - q;
      const F d3 = F::loadu(block + 3 * stride + d * 8) - q;
      s0 = fma(d0, d0, s0), s1 = fma(d1, d1, s1), s2 = fma(d2, d2, s2), s3 = fma(d3, d3, s3);
      if (d % 8 == 7 && !any(min(min(s0, s1), min(s2, s3)) <= F::set1(best))) {
        beaten = true;
        break;
      }
    }
    if (beaten) continue;
    s0.store(distance[0]), s1.store(distance[1]), s2.store(distance[2]), s3.store(distance[3]);
    for (int k = 0; k < 4; ++k)
      keep_nearest<F>(distance[k], args.block_frames + (b + k) * 8, best, best_frame);
  }
  for (; b < end; ++b) {
    const float* block = args.blocks + b * stride;
    F sum = F::zero();
    bool beaten = false;
    for (std::size_t d = 0; d < dims; ++d) {
      const F diff = F::loadu(block + d * 8) - F::set1(args.query[d]);
      sum = fma(diff, diff, sum);
      if (d % 8 == 7 && !any(sum <= F::set1(best))) {
        beaten = true;
        break;
      }
    }
    if (beaten) continue;
    sum.store(distance[0]);
    keep_nearest<F>(distance[0], args.block_frames + b * 8, best, best_frame);
  }
  args.best_distance = best;
  args.best_frame = best_frame;
}

template <class F>
float box_distance(const float* lower, const float* upper, const float* query,
                   std::size_t padded_dims) {
  const F zero = F::zero();
  F sum = zero;
  for (std::size_t d = 0; d < padded_dims; d += 8) {
    const F q = F::loadu(query + d);
    const F e = max(max(F::loadu(lower + d) - q, q - F::loadu(upper + d)), zero);
    sum = fma(e, e, sum);
  }
  alignas(32) float lanes[8];
  sum.store(lanes);
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

}  // namespace marrow::control_detail
