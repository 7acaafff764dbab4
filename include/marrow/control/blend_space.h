/// @file
/// Blend spaces: clips placed at points of a parameter space (speed; or sideways x forward
/// velocity), weighted from where the parameter is. Weights are always >= 0 and sum to one; a
/// parameter outside the samples is clamped to them.
///
/// 1D: the samples sorted by value; between two neighbours the weights are linear in the
/// parameter (a, b -> 1 - u, u), below the first sample or above the last the end sample has
/// weight 1.
///
/// 2D: Delaunay triangulation of the sample points (built once), then barycentric weights in the
/// triangle holding the parameter, so at most three clips are sampled per frame. Chosen over
/// gradient-band interpolation (Johansen 2009) because (1) the cost per frame is bounded by three
/// clips, where gradient bands give every sample some weight; (2) barycentric weights reproduce any
/// linear function of the points, so when the samples sit at their clips' velocities the blended
/// velocity is the one asked for; (3) a sample's point gives that clip alone. Gradient bands are
/// smoother across triangle edges (C1 against C0), which matters less once weights are phase
/// synced and cross-faded. Outside the convex hull the parameter moves to the nearest point of the
/// hull (documented clamp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"

namespace marrow {

/// A sample as a user describes it (ClipSetBuilder resolves the clip name).
struct BlendSampleDesc {
  std::string clip{};
  float x = 0;  ///< 1D: the value; 2D: the first coordinate
  float y = 0;  ///< 2D only
  /// Take part in the space's phase sync (false for a pose that has no cycle, such as idle).
  bool sync = true;
};

struct BlendSample {
  std::uint32_t clip = 0;
  float x = 0, y = 0;
  bool sync = true;
};

enum class SyncMode : std::uint8_t {
  kMarkers,  ///< aligned marker to marker (foot down to foot down)
  kPhase,    ///< aligned by normalized time (time / duration)
};

class BlendSpace {
 public:
  BlendSpace() = default;
  /// Errors: fewer than 2 samples (1D) or 3 (2D), non-finite coordinates, two samples at one
  /// point, all 2D points on one line. `name` prefixes them.
  static Result<BlendSpace> make_1d(std::string name, std::vector<BlendSample> samples);
  static Result<BlendSpace> make_2d(std::string name, std::vector<BlendSample> samples);

  const std::string& name() const { return name_; }
  int dimensions() const { return dimensions_; }
  std::span<const BlendSample> samples() const { return samples_; }
  /// Triangles of a 2D space, three sample indices each, counter-clockwise.
  std::span<const std::uint32_t> triangles() const { return triangles_; }
  SyncMode sync_mode() const { return sync_mode_; }

  /// One weight per sample into `weights` (at least samples().size()), >= 0, summing to 1.
  /// Non-finite coordinates read as 0 (documented clamp). Returns the parameter actually used
  /// (after clamping). Per-frame safe: no allocation.
  struct Point {
    float x = 0, y = 0;
  };
  Point weights(float x, float y, std::span<float> weights) const;

 private:
  friend class ClipSetBuilder;
  std::string name_;
  int dimensions_ = 1;
  std::vector<BlendSample> samples_;
  std::vector<std::uint32_t> order_;      ///< 1D: samples sorted by x
  std::vector<std::uint32_t> triangles_;  ///< 2D
  std::vector<std::uint32_t> hull_;       ///< 2D: boundary edges, pairs of sample indices
  SyncMode sync_mode_ = SyncMode::kPhase;
};

}  // namespace marrow
