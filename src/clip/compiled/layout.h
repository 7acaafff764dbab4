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

inline std::size_t element_bytes(CompiledClipData::Format f) {
  return f == CompiledClipData::Format::kU8 ? 1 : f == CompiledClipData::Format::kU16 ? 2 : 4;
}

}  // namespace marrow::compiled_detail
