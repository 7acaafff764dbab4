#include "marrow/clip/clip.h"

#include "base/enum_names.h"

namespace marrow {

// glTF's names (its sampler interpolations and channel paths), which the writers use too.
constexpr std::array<std::string_view, 3> kInterpolationNames{"STEP", "LINEAR", "CUBICSPLINE"};
static_assert(detail::names_cover(kInterpolationNames, Interpolation::kCubicSpline));
constexpr std::array<std::string_view, 3> kTargetNames{"translation", "rotation", "scale"};
static_assert(detail::names_cover(kTargetNames, TrackTarget::kScale));

std::string_view to_string(Interpolation interpolation) {
  return detail::enum_name(interpolation, kInterpolationNames);
}

std::string_view to_string(TrackTarget target) {
  return detail::enum_name(target, kTargetNames);
}

}  // namespace marrow
