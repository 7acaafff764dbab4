#include "marrow/render/camera.h"

#include <algorithm>
#include <cmath>

namespace marrow::render {

void Bounds::add(Vec3 p) {
  if (!is_finite(p)) return;
  min = {std::min(min.x, p.x), std::min(min.y, p.y), std::min(min.z, p.z)};
  max = {std::max(max.x, p.x), std::max(max.y, p.y), std::max(max.z, p.z)};
}

void Bounds::add(const Bounds& b) {
  if (b.empty()) return;
  add(b.min);
  add(b.max);
}

Vec4 Camera::to_clip(Vec3 world) const {
  const Vec3 v = transform_point(view, world);
  const Projection p = projection();
  return {v.x * p.fx, v.y * p.fy, p.a * v.z + p.b, -v.z};
}

Camera::Projection Camera::projection() const {
  // OpenGL's perspective matrix: z maps [-near, -far] to [-1, 1].
  const float f = 1.0f / std::tan(vertical_fov * 0.5f);
  return {f / aspect, f, (far_plane + near_plane) / (near_plane - far_plane),
          2 * far_plane * near_plane / (near_plane - far_plane)};
}

Vec3 Camera::eye() const {
  Mat4 inverse;
  if (!invert_affine(view, inverse)) return {};
  return inverse.translation();
}

Mat4 look_at(Vec3 eye, Vec3 target, Vec3 up) {
  Vec3 forward = target - eye;
  const float fl = length(forward);
  forward = fl > 0 ? forward * (1 / fl) : Vec3{0, 0, -1};
  Vec3 right = cross(forward, up);
  if (length(right) < 1e-6f)
    right = cross(forward, std::fabs(forward.y) < 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0});
  right = right * (1 / length(right));
  const Vec3 true_up = cross(right, forward);
  // Rows of the rotation are the camera axes (x = right, y = up, z = -forward).
  Mat4 m;
  m.m = {right.x,          true_up.x,          -forward.x,        0,
         right.y,          true_up.y,          -forward.y,        0,
         right.z,          true_up.z,          -forward.z,        0,
         -dot(right, eye), -dot(true_up, eye), dot(forward, eye), 1};
  return m;
}

std::optional<CameraPreset> parse_camera_preset(std::string_view name) {
  if (name == "auto") return CameraPreset::kAuto;
  if (name == "front") return CameraPreset::kFront;
  if (name == "side") return CameraPreset::kSide;
  if (name == "back") return CameraPreset::kBack;
  if (name == "top") return CameraPreset::kTop;
  if (name == "three-quarter") return CameraPreset::kThreeQuarter;
  return std::nullopt;
}

void add_extreme_points(std::span<const Vec3> points, std::vector<Vec3>& out) {
  constexpr int kDirections = 13;  // each gives a minimum and a maximum point
  float low[kDirections], high[kDirections];
  std::size_t low_at[kDirections], high_at[kDirections];
  std::fill(std::begin(low), std::end(low), 1e30f);
  std::fill(std::begin(high), std::end(high), -1e30f);
  bool any = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Vec3 p = points[i];
    if (!is_finite(p)) continue;
    any = true;
    const float d[kDirections] = {p.x,
                                  p.y,
                                  p.z,
                                  p.x + p.y,
                                  p.x - p.y,
                                  p.x + p.z,
                                  p.x - p.z,
                                  p.y + p.z,
                                  p.y - p.z,
                                  p.x + p.y + p.z,
                                  p.x + p.y - p.z,
                                  p.x - p.y + p.z,
                                  -p.x + p.y + p.z};
    for (int k = 0; k < kDirections; ++k) {
      if (d[k] < low[k]) {
        low[k] = d[k];
        low_at[k] = i;
      }
      if (d[k] > high[k]) {
        high[k] = d[k];
        high_at[k] = i;
      }
    }
  }
  if (!any) return;
  for (int k = 0; k < kDirections; ++k) {
    out.push_back(points[low_at[k]]);
    out.push_back(points[high_at[k]]);
  }
}

Camera frame_bounds(const Bounds& bounds, CameraPreset preset, float aspect,
                    const Orientation& orientation, float vertical_fov, float margin) {
  Vec3 corners[8];
  const Bounds box = bounds.empty() ? Bounds{{0, 0, 0}, {0, 0, 0}} : bounds;
  for (int i = 0; i < 8; ++i) {
    corners[i] = {i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y,
                  i & 4 ? box.max.z : box.min.z};
  }
  return frame_points(corners, preset, aspect, orientation, vertical_fov, margin);
}

Camera frame_points(std::span<const Vec3> points, CameraPreset preset, float aspect,
                    const Orientation& orientation, float vertical_fov, float margin) {
  Camera camera;
  camera.vertical_fov = vertical_fov;
  camera.aspect = aspect > 0 ? aspect : 1;
  Bounds box;
  for (const Vec3& p : points) box.add(p);
  if (box.empty()) box.add(Vec3{});
  // A flat or point-like box still gets a visible extent.
  const Vec3 size = box.size();
  const float largest = std::max({size.x, size.y, size.z, 1e-3f});
  const Vec3 pad{std::max(0.0f, 0.01f * largest - size.x) * 0.5f,
                 std::max(0.0f, 0.01f * largest - size.y) * 0.5f,
                 std::max(0.0f, 0.01f * largest - size.z) * 0.5f};
  box.min -= pad;
  box.max += pad;
  const Vec3 center = box.center();

  // Directions in the character's frame: forward, up and its left side.
  const Vec3 forward = orientation.forward, up_axis = orientation.up;
  const Vec3 left = cross(up_axis, forward);
  Vec3 dir, up = up_axis;
  switch (preset) {
    case CameraPreset::kFront:
      dir = forward + up_axis * 0.08f;
      break;
    case CameraPreset::kSide:
      dir = left + up_axis * 0.08f;
      break;
    case CameraPreset::kBack:
      dir = -forward + up_axis * 0.08f;
      break;
    case CameraPreset::kTop:
      dir = up_axis;
      up = forward;
      break;
    case CameraPreset::kThreeQuarter:
      dir = forward + left * 0.7f + up_axis * 0.25f;
      break;
    case CameraPreset::kAuto:
      dir = forward + left * 0.55f + up_axis * 0.3f;
      break;
  }
  dir = dir * (1 / length(dir));

  // Place the camera on the ray centre + dir * d with d just large enough that every point lies
  // inside the view frustum (each point gives a lower bound on d).
  const Mat4 oriented = look_at(center + dir, center, up);  // rotation we need; distance later
  const float ty = std::tan(vertical_fov * 0.5f) / margin;
  const float tx = ty * camera.aspect;
  float distance = 0, nearest = 1e30f, farthest = 0;
  std::vector<Vec3> corners;
  for (const Vec3& p : points) {
    if (is_finite(p)) corners.push_back(p);
  }
  // A flat or empty cloud is framed by its padded box as well, so it keeps a visible extent.
  if (corners.empty() || pad.x > 0 || pad.y > 0 || pad.z > 0) {
    for (int i = 0; i < 8; ++i) {
      corners.push_back({i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y,
                         i & 4 ? box.max.z : box.min.z});
    }
  }
  for (const Vec3& corner : corners) {
    // Camera-space offset of the point from the centre (the eye is at +1 on the view axis).
    const Vec3 v = transform_point(oriented, corner) - transform_point(oriented, center);
    // With the eye at distance d, the corner's depth is d - v.z; it must satisfy
    // |v.x| <= (d - v.z) tx and |v.y| <= (d - v.z) ty.
    distance = std::max({distance, v.z + std::fabs(v.x) / tx, v.z + std::fabs(v.y) / ty});
  }
  distance = std::max(distance, 1e-3f);
  const Vec3 eye = center + dir * distance;
  camera.view = look_at(eye, center, up);
  for (const Vec3& c : corners) {
    const float depth = -transform_point(camera.view, c).z;
    nearest = std::min(nearest, depth);
    farthest = std::max(farthest, depth);
  }
  camera.near_plane = std::max(nearest * 0.5f, distance * 1e-3f);
  camera.far_plane = std::max(farthest * 2.0f, camera.near_plane * 10);
  return camera;
}

}  // namespace marrow::render
