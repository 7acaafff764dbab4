// Sizes in the compiled clip's layout, shared by the compiler and the validation. Private to
// src/clip.
#pragma once

#include <cstddef>

#include "marrow/clip/compiled_clip.h"
#include "marrow/math/soa_transform.h"

namespace marrow::compiled_detail {

inline int components(CompiledClipData::Channel c) {
  return c == CompiledClipData::Channel::kRotation ? 4 : 3;
}

inline TrackTarget target_of(CompiledClipData::Channel c) {
  switch (c) {
    case CompiledClipData::Channel::kTranslation:
      return TrackTarget::kTranslation;
    case CompiledClipData::Channel::kRotation:
      return TrackTarget::kRotation;
    case CompiledClipData::Channel::kScale:
      break;
  }
  return TrackTarget::kScale;
}

// A track group's alignment within its frame, and the size of one lane's component (kPacked:
// byte-aligned records of bits).
inline std::size_t element_bytes(CompiledClipData::Format f) {
  return f == CompiledClipData::Format::kU16 ? 2 : f == CompiledClipData::Format::kF32 ? 4 : 1;
}

static_assert(kSoaWidth == 8, "kPacked track groups hold 8 lanes");

// The components a track group stores per lane: kPacked rotations drop w.
inline int stored_components(CompiledClipData::Channel c, CompiledClipData::Format f) {
  return f == CompiledClipData::Format::kPacked && c == CompiledClipData::Channel::kRotation
             ? 3
             : components(c);
}

// Bytes of one component's record of a kPacked group: all its lanes' bits, rounded up.
inline std::size_t packed_record_bytes(const CompiledClipData::TrackGroup& tg) {
  return (std::size_t{tg.lane_offset[7]} + tg.lane_bits[7] + 7) / 8;
}

// Bytes of a track group in each of its frames.
inline std::size_t group_frame_bytes(const CompiledClipData::TrackGroup& tg,
                                     CompiledClipData::Channel c) {
  const auto stored = static_cast<std::size_t>(stored_components(c, tg.format));
  return tg.format == CompiledClipData::Format::kPacked
             ? stored * packed_record_bytes(tg)
             : stored * kSoaWidth * element_bytes(tg.format);
}

// Each lane's first bit: the running sum of the bits before it.
inline void set_lane_offsets(CompiledClipData::TrackGroup& tg) {
  unsigned at = 0;
  for (std::size_t i = 0; i < kSoaWidth; ++i) {
    tg.lane_offset[i] = static_cast<std::uint8_t>(at);
    at += tg.lane_bits[i];
  }
}

// Bytes the sampler may read past the end of the frame data (load_bits' 16-byte loads): the
// compiled clip's block keeps them readable.
inline constexpr std::size_t kFrameReadSlack = 32;

}  // namespace marrow::compiled_detail
