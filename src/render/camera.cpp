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
  const float f = 1.0f / std::tan(vertical_fov * 0.5f);
  // OpenGL's perspective matrix: z maps [-near, -far] to [-1, 1].
  const float a = (far_plane + near_plane) / (near_plane - far_plane);
  const float b = 2 * far_plane * near_plane / (near_plane - far_plane);
  return {v.x * f / aspect, v.y * f, a * v.z + b, -v.z};
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

Camera frame_bounds(const Bounds& bounds, CameraPreset preset, float aspect,
                    const Orientation& orientation, float vertical_fov, float margin) {
  Camera camera;
  camera.vertical_fov = vertical_fov;
  camera.aspect = aspect > 0 ? aspect : 1;
  Bounds box = bounds;
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

  // Place the camera on the ray centre + dir * d with d just large enough that every corner of
  // the box lies inside the view frustum (each corner gives a lower bound on d).
  const Mat4 oriented = look_at(center + dir, center, up);  // rotation we need; distance later
  const float ty = std::tan(vertical_fov * 0.5f) / margin;
  const float tx = ty * camera.aspect;
  float distance = 0, nearest = 1e30f, farthest = 0;
  Vec3 corners[8];
  for (int i = 0; i < 8; ++i) {
    corners[i] = {i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y,
                  i & 4 ? box.max.z : box.min.z};
    // Camera-space offset of the corner from the centre (the eye is at +1 on the view axis).
    const Vec3 v = transform_point(oriented, corners[i]) - transform_point(oriented, center);
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
