#include "marrow/render/rasterizer.h"

#include <algorithm>
#include <cmath>

namespace marrow::render {
namespace {

constexpr int kMaxClipVertices = 9;  // a triangle clipped by 6 planes has at most 9 corners

// Signed distance of a clip-space point to the i-th frustum plane (>= 0 inside), in the
// point's own precision (float vertices, double while clipping).
template <typename Point>
auto plane_distance(const Point& v, int plane) -> decltype(v.w) {
  switch (plane) {
    case 0:
      return v.w + v.x;
    case 1:
      return v.w - v.x;
    case 2:
      return v.w + v.y;
    case 3:
      return v.w - v.y;
    case 4:
      return v.w + v.z;  // near
    default:
      return v.w - v.z;  // far
  }
}

Vec4 lerp4(const Vec4& a, const Vec4& b, float t) {
  return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t,
          a.w + (b.w - a.w) * t};
}

// Clipping runs in double: a corner far outside the view (a ground plane kilometres long) makes
// the intersection a difference of large numbers, which float would round to garbage.
struct ClipPoint {
  double x, y, z, w, r, g, b, a, u, v;
};

ClipPoint lerp_point(const ClipPoint& p, const ClipPoint& q, double t) {
  return {p.x + (q.x - p.x) * t, p.y + (q.y - p.y) * t, p.z + (q.z - p.z) * t,
          p.w + (q.w - p.w) * t, p.r + (q.r - p.r) * t, p.g + (q.g - p.g) * t,
          p.b + (q.b - p.b) * t, p.a + (q.a - p.a) * t, p.u + (q.u - p.u) * t,
          p.v + (q.v - p.v) * t};
}

std::uint8_t to_byte(float v) {
  v = v > 0 ? (v > 1 ? 1 : v) : 0;  // NaN becomes 0
  return static_cast<std::uint8_t>(v * 255.0f + 0.5f);
}

// Pixel ownership for a pixel centre exactly on an edge: antisymmetric in the edge's
// direction, so of two triangles sharing an edge exactly one owns such pixels.
bool owns_edge(float dx, float dy) {
  return dy > 0 || (dy == 0 && dx < 0);
}

// floor and ceil for values clipping keeps within a few image sizes of the screen; inline, as
// the baseline x86-64 target has no rounding instruction and std::floor becomes a call.
int floor_int(float v) {
  const int i = static_cast<int>(v);
  return i - (static_cast<float>(i) > v);
}
int ceil_int(float v) {
  const int i = static_cast<int>(v);
  return i + (static_cast<float>(i) < v);
}

}  // namespace

Image::Image(int w, int h, Rgb fill) : width(w), height(h) {
  rgb.resize(static_cast<std::size_t>(w) * h * 3);
  for (std::size_t i = 0; i < rgb.size(); i += 3) {
    rgb[i] = fill.r;
    rgb[i + 1] = fill.g;
    rgb[i + 2] = fill.b;
  }
}

Rasterizer::Rasterizer(int width, int height)
    : image_(width, height), depth_(static_cast<std::size_t>(width) * height, 1.0f) {}

void Rasterizer::clear(Rgb background) {
  clear_gradient(background, background);
}

void Rasterizer::clear_gradient(Rgb top, Rgb bottom) {
  for (int y = 0; y < image_.height; ++y) {
    const float t = image_.height > 1 ? static_cast<float>(y) / (image_.height - 1) : 0;
    const Rgb c{static_cast<std::uint8_t>(top.r + (bottom.r - top.r) * t + 0.5f),
                static_cast<std::uint8_t>(top.g + (bottom.g - top.g) * t + 0.5f),
                static_cast<std::uint8_t>(top.b + (bottom.b - top.b) * t + 0.5f)};
    std::uint8_t* row = &image_.rgb[static_cast<std::size_t>(y) * image_.width * 3];
    for (int x = 0; x < image_.width; ++x) {
      row[x * 3] = c.r;
      row[x * 3 + 1] = c.g;
      row[x * 3 + 2] = c.b;
    }
  }
  std::fill(depth_.begin(), depth_.end(), 1.0f);
  fragments_ = 0;
}

void Rasterizer::draw_mesh(const Camera& camera, const MeshDraw& mesh, const Lighting& lighting) {
  const std::size_t n = mesh.positions.size();
  clip_scratch_.resize(n);
  const Camera::Projection proj = camera.projection();
  for (std::size_t v = 0; v < n; ++v) {
    const Vec3 c = transform_point(camera.view, mesh.positions[v]);
    clip_scratch_[v] = {c.x * proj.fx, c.y * proj.fy, proj.a * c.z + proj.b, -c.z};
  }
  const bool smooth = mesh.normals.size() >= n;
  const bool per_vertex_color = mesh.colors.size() >= n;
  const Vec3 light = lighting.key_direction * (1 / length(lighting.key_direction));

  // Lights one corner: the normal goes to camera space and is turned towards the viewer
  // (two-sided lighting: meshes with inconsistent winding still shade correctly).
  auto shade = [&](Vec3 normal_world, Vec3 base, bool flip) {
    Vec3 nc = transform_vector(camera.view, normal_world);
    const float len = length(nc);
    if (!(len > 0) || !std::isfinite(len)) return base * (lighting.ambient + lighting.key * 0.5f);
    nc = nc * (flip ? -1 / len : 1 / len);
    const float lambert = std::max(0.0f, dot(nc, light));
    return base * (lighting.ambient + lighting.key * lambert);
  };

  // Smooth shading lights each vertex once per side, not once per triangle corner.
  if (smooth) {
    color_scratch_.resize(2 * n);
    for (std::size_t v = 0; v < n; ++v) {
      const Vec3 base = per_vertex_color ? mesh.colors[v] : mesh.color;
      color_scratch_[2 * v] = shade(mesh.normals[v], base, false);
      color_scratch_[2 * v + 1] = shade(mesh.normals[v], base, true);
    }
  }
  const bool per_vertex_alpha = mesh.alphas.size() >= n;
  const bool textured = mesh.texture && mesh.uvs.size() >= n;
  const Surface surface{textured ? mesh.texture : nullptr, mesh.alpha_mode, mesh.alpha_cutoff,
                        mesh.write_depth};
  const Vec3 eye = camera.eye();
  for (std::size_t i = 0; i + 2 < mesh.indices.size(); i += 3) {
    const std::uint32_t ia = mesh.indices[i], ib = mesh.indices[i + 1], ic = mesh.indices[i + 2];
    if (ia >= n || ib >= n || ic >= n) continue;
    const Vec3 pa = mesh.positions[ia], pb = mesh.positions[ib], pc = mesh.positions[ic];
    // The face normal, and whether it faces the camera (the vector to the eye in world space).
    Vec3 face = cross(pb - pa, pc - pa);
    const Vec3 eye_dir = eye - pa;
    const bool faces_away = dot(face, eye_dir) < 0;
    if (faces_away) face = -face;
    ClipCorner corners[3];
    const std::uint32_t idx[3] = {ia, ib, ic};
    for (int k = 0; k < 3; ++k) {
      ClipCorner& c = corners[k];
      c.position = clip_scratch_[idx[k]];
      const Vec3 base = per_vertex_color ? mesh.colors[idx[k]] : mesh.color;
      if (!mesh.lit) {
        c.color = base;
      } else if (smooth) {
        // A triangle wound away from the viewer is lit from its other side.
        c.color = color_scratch_[2 * idx[k] + (faces_away ? 1 : 0)];
      } else {
        c.color = shade(face, base, false);
      }
      c.alpha = per_vertex_alpha ? mesh.alphas[idx[k]] : mesh.alpha;
      if (textured) {
        c.u = mesh.uvs[idx[k]][0];
        c.v = mesh.uvs[idx[k]][1];
      }
    }
    draw_clip_triangle(corners, surface);
  }
}

void Rasterizer::draw_clip_triangle(const Vec4 clip[3], const Vec3 color[3]) {
  const ClipCorner corners[3] = {{clip[0], color[0]}, {clip[1], color[1]}, {clip[2], color[2]}};
  draw_clip_triangle(corners, Surface{});
}

void Rasterizer::draw_clip_triangle(const ClipCorner corner[3], const Surface& surface) {
  unsigned outside_all = 0x3f, outside_any = 0;
  for (int k = 0; k < 3; ++k) {
    unsigned outside = 0;
    for (int p = 0; p < 6; ++p) {
      // NaN coordinates count as outside every plane.
      if (!(plane_distance(corner[k].position, p) >= 0)) outside |= 1u << p;
    }
    outside_all &= outside;
    outside_any |= outside;
  }
  if (outside_all) return;  // wholly beyond one plane
  if (!outside_any) {       // wholly inside: the common case
    fill_triangle(corner[0], corner[1], corner[2], surface);
    return;
  }
  ClipPoint poly[kMaxClipVertices], next[kMaxClipVertices];
  int count = 3;
  for (int k = 0; k < 3; ++k) {
    const ClipCorner& c = corner[k];
    poly[k] = {c.position.x, c.position.y, c.position.z, c.position.w, c.color.x,
               c.color.y,    c.color.z,    c.alpha,      c.u,          c.v};
  }
  // Sutherland-Hodgman against each plane the triangle crosses.
  for (int p = 0; p < 6 && count > 0; ++p) {
    if (!(outside_any & (1u << p))) continue;
    int out = 0;
    for (int k = 0; k < count; ++k) {
      const ClipPoint& a = poly[k];
      const ClipPoint& b = poly[(k + 1) % count];
      const double da = plane_distance(a, p), db = plane_distance(b, p);
      if (da >= 0) next[out++] = a;
      if ((da >= 0) != (db >= 0)) {
        const double t = da / (da - db);
        if (!std::isfinite(t)) continue;
        next[out++] = lerp_point(a, b, t);
      }
    }
    count = out;
    std::copy(next, next + count, poly);
  }
  if (count < 3) return;
  ClipCorner corners[kMaxClipVertices];
  for (int k = 0; k < count; ++k) {
    const ClipPoint& q = poly[k];
    corners[k] = {{static_cast<float>(q.x), static_cast<float>(q.y), static_cast<float>(q.z),
                   static_cast<float>(q.w)},
                  {static_cast<float>(q.r), static_cast<float>(q.g), static_cast<float>(q.b)},
                  static_cast<float>(q.a),
                  static_cast<float>(q.u),
                  static_cast<float>(q.v)};
  }
  for (int k = 1; k + 1 < count; ++k)
    fill_triangle(corners[0], corners[k], corners[k + 1], surface);
}

void Rasterizer::fill_triangle(const ClipCorner& a, const ClipCorner& b, const ClipCorner& c,
                               const Surface& surface) {
  const ClipCorner* v[3] = {&a, &b, &c};
  float sx[3], sy[3], sz[3], inv_w[3];
  const float w = static_cast<float>(image_.width), h = static_cast<float>(image_.height);
  for (int k = 0; k < 3; ++k) {
    const Vec4& p = v[k]->position;
    if (!(p.w > 0)) return;  // clipping keeps w >= near > 0; guards degenerate input
    inv_w[k] = 1 / p.w;
    sx[k] = (p.x * inv_w[k] * 0.5f + 0.5f) * w;
    sy[k] = (0.5f - p.y * inv_w[k] * 0.5f) * h;  // rows go down
    sz[k] = p.z * inv_w[k] * 0.5f + 0.5f;
  }
  float area = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sy[1] - sy[0]) * (sx[2] - sx[0]);
  if (!(std::fabs(area) > 0) || !std::isfinite(area)) return;
  int order[3] = {0, 1, 2};
  if (area < 0) {  // one winding for the edge tests; no culling
    std::swap(order[1], order[2]);
    area = -area;
  }
  const float x0 = sx[order[0]], y0 = sy[order[0]];
  const float x1 = sx[order[1]], y1 = sy[order[1]];
  const float x2 = sx[order[2]], y2 = sy[order[2]];
  // Only pixels whose centre (x + 0.5) can lie inside: x from ceil(min - 0.5) to
  // floor(max - 0.5). Clipping keeps the coordinates near the image, so the casts are safe.
  const int min_x = std::max(0, ceil_int(std::min({x0, x1, x2}) - 0.5f));
  const int max_x = std::min(image_.width - 1, floor_int(std::max({x0, x1, x2}) - 0.5f));
  const int min_y = std::max(0, ceil_int(std::min({y0, y1, y2}) - 0.5f));
  const int max_y = std::min(image_.height - 1, floor_int(std::max({y0, y1, y2}) - 0.5f));
  if (min_x > max_x || min_y > max_y) return;

  // Edge k is opposite vertex k: e0 = (v1 -> v2), e1 = (v2 -> v0), e2 = (v0 -> v1).
  const float ex[3] = {x2 - x1, x0 - x2, x1 - x0};
  const float ey[3] = {y2 - y1, y0 - y2, y1 - y0};
  const float ox[3] = {x1, x2, x0}, oy[3] = {y1, y2, y0};
  bool owner[3];
  for (int k = 0; k < 3; ++k) owner[k] = owns_edge(ex[k], ey[k]);
  const float inv_area = 1 / area;
  const int o0 = order[0], o1 = order[1], o2 = order[2];
  const float zs[3] = {sz[o0], sz[o1], sz[o2]};
  const float iw[3] = {inv_w[o0], inv_w[o1], inv_w[o2]};
  const Vec3 col[3] = {v[o0]->color * iw[0], v[o1]->color * iw[1], v[o2]->color * iw[2]};
  const float al[3] = {v[o0]->alpha * iw[0], v[o1]->alpha * iw[1], v[o2]->alpha * iw[2]};
  const Texture* texture = surface.texture;
  const bool blend = surface.alpha_mode == AlphaMode::kBlend;
  const bool mask = surface.alpha_mode == AlphaMode::kMask;
  // Texture coordinates over w are affine in screen space, as is 1/w; their screen gradients
  // (d/dx of a barycentric weight is -ey/area, d/dy is ex/area) give each pixel's texture
  // footprint, hence its mip level.
  float us[3] = {}, vs[3] = {}, grad_u[2] = {}, grad_v[2] = {}, grad_q[2] = {};
  float texture_w = 0, texture_h = 0;
  if (texture) {
    texture_w = static_cast<float>(texture->width());
    texture_h = static_cast<float>(texture->height());
    const int o[3] = {o0, o1, o2};
    for (int k = 0; k < 3; ++k) {
      us[k] = v[o[k]]->u * iw[k];
      vs[k] = v[o[k]]->v * iw[k];
      const float dbx = -ey[k] * inv_area, dby = ex[k] * inv_area;
      grad_u[0] += dbx * us[k];
      grad_u[1] += dby * us[k];
      grad_v[0] += dbx * vs[k];
      grad_v[1] += dby * vs[k];
      grad_q[0] += dbx * iw[k];
      grad_q[1] += dby * iw[k];
    }
  }

  for (int y = min_y; y <= max_y; ++y) {
    const float py = y + 0.5f;
    std::uint8_t* row = &image_.rgb[static_cast<std::size_t>(y) * image_.width * 3];
    float* depth_row = &depth_[static_cast<std::size_t>(y) * image_.width];
    // The row's part of each edge function (the same products as a per-pixel evaluation, so
    // ties on shared edges resolve identically in both triangles).
    const float row_term[3] = {ex[0] * (py - oy[0]), ex[1] * (py - oy[1]), ex[2] * (py - oy[2])};
    for (int x = min_x; x <= max_x; ++x) {
      const float px = x + 0.5f;
      float e[3];
      bool inside = true;
      for (int k = 0; k < 3; ++k) {
        e[k] = row_term[k] - ey[k] * (px - ox[k]);
        if (e[k] < 0 || (e[k] == 0 && !owner[k])) {
          inside = false;
          break;
        }
      }
      if (!inside) continue;
      ++fragments_;
      // Barycentric weights; depth is affine in screen space, colours perspective-correct.
      const float b0 = e[0] * inv_area, b1 = e[1] * inv_area, b2 = e[2] * inv_area;
      const float z = b0 * zs[0] + b1 * zs[1] + b2 * zs[2];
      if (!(z < depth_row[x]) || z < 0) continue;
      const float wsum = b0 * iw[0] + b1 * iw[1] + b2 * iw[2];
      const float inv_wsum = 1 / wsum;
      Vec3 rgb = (col[0] * b0 + col[1] * b1 + col[2] * b2) * inv_wsum;
      float alpha = (al[0] * b0 + al[1] * b1 + al[2] * b2) * inv_wsum;
      if (texture) {
        const float u = (us[0] * b0 + us[1] * b1 + us[2] * b2) * inv_wsum;
        const float t = (vs[0] * b0 + vs[1] * b1 + vs[2] * b2) * inv_wsum;
        // d(u)/dx = (d(u/w)/dx - u d(1/w)/dx) w, in texels.
        const float dudx = (grad_u[0] - u * grad_q[0]) * inv_wsum * texture_w;
        const float dvdx = (grad_v[0] - t * grad_q[0]) * inv_wsum * texture_h;
        const float dudy = (grad_u[1] - u * grad_q[1]) * inv_wsum * texture_w;
        const float dvdy = (grad_v[1] - t * grad_q[1]) * inv_wsum * texture_h;
        const float rho2 = std::max(dudx * dudx + dvdx * dvdx, dudy * dudy + dvdy * dvdy);
        const float lod = rho2 > 1 ? 0.5f * std::log2(rho2) : 0.0f;
        const std::array<float, 4> texel = texture->sample(u, t, lod);
        rgb = {rgb.x * texel[0], rgb.y * texel[1], rgb.z * texel[2]};
        alpha *= texel[3];
      }
      if (mask && !(alpha >= surface.alpha_cutoff)) continue;
      std::uint8_t* p = &row[x * 3];
      if (blend) {
        // Over what is behind; the depth stays that of what is behind unless asked.
        if (surface.write_depth) depth_row[x] = z;
        const float a = std::clamp(alpha, 0.0f, 1.0f);
        constexpr float k = 1.0f / 255.0f;
        rgb = rgb * a + Vec3{p[0] * k, p[1] * k, p[2] * k} * (1 - a);
      } else {
        depth_row[x] = z;
      }
      p[0] = to_byte(rgb.x);
      p[1] = to_byte(rgb.y);
      p[2] = to_byte(rgb.z);
    }
  }
}

void Rasterizer::plot_disc(float cx, float cy, float radius, Rgb color) {
  // Off the image (or not a number): nothing to do, and no float-to-int conversion out of range.
  if (!(cx + radius >= 0 && cy + radius >= 0 && cx - radius <= image_.width &&
        cy - radius <= image_.height))
    return;
  const int min_x = std::max(0, static_cast<int>(std::floor(cx - radius)));
  const int max_x = std::min(image_.width - 1, static_cast<int>(std::ceil(cx + radius)));
  const int min_y = std::max(0, static_cast<int>(std::floor(cy - radius)));
  const int max_y = std::min(image_.height - 1, static_cast<int>(std::ceil(cy + radius)));
  const float r2 = radius * radius;
  for (int y = min_y; y <= max_y; ++y) {
    for (int x = min_x; x <= max_x; ++x) {
      const float dx = x + 0.5f - cx, dy = y + 0.5f - cy;
      if (dx * dx + dy * dy > r2) continue;
      std::uint8_t* p = &image_.rgb[(static_cast<std::size_t>(y) * image_.width + x) * 3];
      p[0] = color.r;
      p[1] = color.g;
      p[2] = color.b;
    }
  }
}

void Rasterizer::draw_line(const Camera& camera, Vec3 a, Vec3 b, Rgb color, float thickness) {
  Vec4 ca = camera.to_clip(a), cb = camera.to_clip(b);
  // Clip the segment to the near plane so points behind the camera do not wrap around.
  const float da = ca.w + ca.z, db = cb.w + cb.z;
  if (!(da >= 0) && !(db >= 0)) return;
  if (da < 0) ca = lerp4(ca, cb, da / (da - db));
  if (db < 0) cb = lerp4(cb, ca, db / (db - da));
  if (!(ca.w > 0) || !(cb.w > 0)) return;
  const float w = static_cast<float>(image_.width), h = static_cast<float>(image_.height);
  const float x0 = (ca.x / ca.w * 0.5f + 0.5f) * w, y0 = (0.5f - ca.y / ca.w * 0.5f) * h;
  const float x1 = (cb.x / cb.w * 0.5f + 0.5f) * w, y1 = (0.5f - cb.y / cb.w * 0.5f) * h;
  if (!std::isfinite(x0 + y0 + x1 + y1)) return;
  // Stamps a disc every half pixel along the segment, clamped to a sane number of steps.
  const float len = std::hypot(x1 - x0, y1 - y0);
  const int steps = static_cast<int>(std::min(len * 2, 8192.0f)) + 1;
  for (int i = 0; i <= steps; ++i) {
    const float t = static_cast<float>(i) / steps;
    plot_disc(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, thickness * 0.5f, color);
  }
}

void Rasterizer::draw_dot(const Camera& camera, Vec3 p, float radius, Rgb color) {
  const Vec4 c = camera.to_clip(p);
  if (!(c.w + c.z >= 0) || !(c.w > 0)) return;
  const float x = (c.x / c.w * 0.5f + 0.5f) * image_.width;
  const float y = (0.5f - c.y / c.w * 0.5f) * image_.height;
  if (!std::isfinite(x + y)) return;
  plot_disc(x, y, radius, color);
}

}  // namespace marrow::render
