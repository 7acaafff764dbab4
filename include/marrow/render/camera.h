/// @file
/// A perspective camera for the software rasterizer, and automatic framing: a camera that keeps
/// the character (its extreme points over every rendered frame, or a box) in view from a chosen
/// side of it.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "marrow/math/mat4.h"
#include "marrow/math/vec3.h"

namespace marrow::render {

/// Homogeneous clip coordinates (OpenGL convention: visible where -w <= x, y, z <= w).
struct Vec4 {
  float x = 0, y = 0, z = 0, w = 1;
};

/// An axis-aligned box; empty until a point is added.
struct Bounds {
  Vec3 min{1e30f, 1e30f, 1e30f};
  Vec3 max{-1e30f, -1e30f, -1e30f};

  bool empty() const { return min.x > max.x; }
  void add(Vec3 p);  ///< non-finite points are ignored
  void add(const Bounds& b);
  Vec3 center() const { return (min + max) * 0.5f; }
  Vec3 size() const { return empty() ? Vec3{} : max - min; }
};

struct Camera {
  Mat4 view;                  ///< world to camera (camera looks down its -z, y up)
  float vertical_fov = 0.6f;  ///< radians
  float aspect = 1;           ///< width / height
  float near_plane = 0.1f;
  float far_plane = 100.0f;

  /// World point to clip coordinates.
  Vec4 to_clip(Vec3 world) const;
  /// The perspective matrix's non-zero terms: clip = (fx x, fy y, a z + b, -z) of a camera-space
  /// point.
  struct Projection {
    float fx, fy, a, b;
  };
  Projection projection() const;
  Vec3 eye() const;  ///< camera position in world space
};

/// A camera at `eye` looking at `target` with `up` roughly up.
Mat4 look_at(Vec3 eye, Vec3 target, Vec3 up);

/// Where the camera looks from. kAuto: a three-quarter view from the front, slightly above.
enum class CameraPreset { kAuto, kFront, kSide, kBack, kTop, kThreeQuarter };

std::optional<CameraPreset> parse_camera_preset(std::string_view name);
inline constexpr std::string_view kCameraPresetNames =
    "auto, front, side, back, top, three-quarter";

/// Which way is up and which way the character faces, in world space (unit vectors,
/// perpendicular). glTF's convention by default: Y up, facing +Z.
struct Orientation {
  Vec3 up{0, 1, 0};
  Vec3 forward{0, 0, 1};
};

/// A camera that sees every corner of `bounds` from the preset's side of the character, with a
/// small margin, for an image of the given aspect (width / height). Front looks at the
/// character's face, side at its left, top down its up axis; auto and three-quarter look from
/// the front-left, a little above.
Camera frame_bounds(const Bounds& bounds, CameraPreset preset, float aspect,
                    const Orientation& orientation = {}, float vertical_fov = 0.6f,
                    float margin = 1.08f);

/// The same for a cloud of points: the camera looks at the centre of their box and stands just
/// far enough for every point to be in view. Tighter than the box when the view is oblique.
Camera frame_points(std::span<const Vec3> points, CameraPreset preset, float aspect,
                    const Orientation& orientation = {}, float vertical_fov = 0.6f,
                    float margin = 1.08f);

/// Appends the points extreme along 26 directions (the axes, face and corner diagonals): a few
/// points per frame that frame a body from any preset almost as tightly as all its vertices.
void add_extreme_points(std::span<const Vec3> points, std::vector<Vec3>& out);

}  // namespace marrow::render
