#include "marrow/clip/clip.h"

namespace marrow {

std::string_view to_string(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::kStep:
      return "STEP";
    case Interpolation::kLinear:
      return "LINEAR";
    case Interpolation::kCubicSpline:
      return "CUBICSPLINE";
  }
  return "?";
}

std::string_view to_string(TrackTarget target) {
  switch (target) {
    case TrackTarget::kTranslation:
      return "translation";
    case TrackTarget::kRotation:
      return "rotation";
    case TrackTarget::kScale:
      return "scale";
  }
  return "?";
}

}  // namespace marrow
