// The rasterizer against hand-computed expectations: which pixels a triangle covers (pixel
// centres at +0.5), the depth it writes, edges shared by two triangles, clipping at the near
// plane, a cube's silhouette, and camera framing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "marrow/render/camera.h"
#include "marrow/render/rasterizer.h"

using namespace marrow;
using namespace marrow::render;

namespace {

const Vec3 kWhite[3] = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}};

// Clip coordinates (w = 1) of a screen position in a W x H image: x right, y down.
Vec4 at_pixel(float x, float y, float depth01, int w, int h) {
  return {x / w * 2 - 1, 1 - y / h * 2, depth01 * 2 - 1, 1};
}

int covered(const Rasterizer& r) {
  int n = 0;
  for (float d : r.depth()) n += d < 1.0f;
  return n;
}

}  // namespace

TEST(Rasterizer, RightTriangleCoversTheCentresInside) {
  // Legs of 9.7 pixels from the top-left corner: pixel (x, y) is in when its centre satisfies
  // (x + 0.5) + (y + 0.5) < 9.7, i.e. x + y <= 8: 1 + 2 + ... + 9 = 45 pixels.
  Rasterizer r(12, 12);
  r.clear({0, 0, 0});
  const Vec4 tri[3] = {at_pixel(0, 0, 0.5f, 12, 12), at_pixel(9.7f, 0, 0.5f, 12, 12),
                       at_pixel(0, 9.7f, 0.5f, 12, 12)};
  r.draw_clip_triangle(tri, kWhite);
  EXPECT_EQ(r.fragments(), 45u);
  EXPECT_EQ(covered(r), 45);
  for (int y = 0; y < 12; ++y) {
    for (int x = 0; x < 12; ++x) {
      const bool inside = x + y <= 8;
      EXPECT_EQ(r.depth()[y * 12 + x] < 1.0f, inside) << x << "," << y;
      EXPECT_EQ(r.image().at(x, y) == (Rgb{255, 255, 255}), inside) << x << "," << y;
    }
  }
}

TEST(Rasterizer, DepthIsInterpolatedLinearlyOnScreen) {
  // Depth 0.2 at x = 0 rising to 0.8 at x = 16 (all w = 1, so screen-space linear): the pixel
  // centre x + 0.5 gets 0.2 + 0.6 (x + 0.5) / 16.
  Rasterizer r(16, 16);
  r.clear({0, 0, 0});
  const Vec4 a = at_pixel(0, 0, 0.2f, 16, 16), b = at_pixel(16, 0, 0.8f, 16, 16);
  const Vec4 c = at_pixel(16, 16, 0.8f, 16, 16), d = at_pixel(0, 16, 0.2f, 16, 16);
  const Vec4 t1[3] = {a, b, c}, t2[3] = {a, c, d};
  r.draw_clip_triangle(t1, kWhite);
  r.draw_clip_triangle(t2, kWhite);
  for (int x : {0, 5, 15}) {
    EXPECT_NEAR(r.depth()[7 * 16 + x], 0.2f + 0.6f * (x + 0.5f) / 16, 1e-5f) << x;
  }
  // A nearer triangle wins, a farther one leaves the buffer alone.
  const Vec3 red[3] = {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}};
  const Vec4 near_tri[3] = {at_pixel(0, 0, 0.1f, 16, 16), at_pixel(4, 0, 0.1f, 16, 16),
                            at_pixel(0, 4, 0.1f, 16, 16)};
  const Vec4 far_tri[3] = {at_pixel(8, 8, 0.95f, 16, 16), at_pixel(16, 8, 0.95f, 16, 16),
                           at_pixel(8, 16, 0.95f, 16, 16)};
  r.draw_clip_triangle(near_tri, red);
  r.draw_clip_triangle(far_tri, red);
  EXPECT_EQ(r.image().at(0, 0), (Rgb{255, 0, 0}));
  EXPECT_FLOAT_EQ(r.depth()[0], 0.1f);
  EXPECT_EQ(r.image().at(9, 9), (Rgb{255, 255, 255}));
}

TEST(Rasterizer, SharedEdgeCoversEachPixelOnce) {
  // A 8 x 8 square split along its diagonal, whose pixel centres (x + 0.5 = y + 0.5) lie
  // exactly on the shared edge: 64 fragments, not 72.
  Rasterizer r(8, 8);
  r.clear({0, 0, 0});
  const Vec4 a = at_pixel(0, 0, 0.5f, 8, 8), b = at_pixel(8, 0, 0.5f, 8, 8);
  const Vec4 c = at_pixel(8, 8, 0.5f, 8, 8), d = at_pixel(0, 8, 0.5f, 8, 8);
  const Vec4 t1[3] = {a, b, c}, t2[3] = {a, c, d};
  r.draw_clip_triangle(t1, kWhite);
  r.draw_clip_triangle(t2, kWhite);
  EXPECT_EQ(r.fragments(), 64u);
  EXPECT_EQ(covered(r), 64);
  // The same with the second triangle wound the other way (no culling, same ownership).
  r.clear({0, 0, 0});
  const Vec4 t3[3] = {a, d, c};
  r.draw_clip_triangle(t1, kWhite);
  r.draw_clip_triangle(t3, kWhite);
  EXPECT_EQ(r.fragments(), 64u);
}

TEST(Rasterizer, NearPlaneClipsTheTriangle) {
  // A = (-1, -1, 0, 1), B = (1, -1, 0, 1), C = (0, 1, -3, 1): C lies in front of the near plane
  // (z < -w). Edges AC and BC cross z = -w at a third of the way, at (-2/3, -1/3) and
  // (2/3, -1/3): the visible part is a trapezoid from y = -1 to y = -1/3 in NDC. On a 60 x 60
  // image that is rows 40..60 with x from 10 - (y - 40)/2 to 50 + (y - 40)/2: pixel centres
  // give 40 + k pixels on even rows k and 41 + k on odd ones, 1000 in all.
  Rasterizer r(60, 60);
  r.clear({0, 0, 0});
  const Vec4 tri[3] = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {0, 1, -3, 1}};
  r.draw_clip_triangle(tri, kWhite);
  EXPECT_EQ(covered(r), 1000);
  for (int y = 0; y < 40; ++y) EXPECT_EQ(r.depth()[y * 60 + 30], 1.0f) << y;
  EXPECT_LT(r.depth()[40 * 60 + 30], 1.0f);

  // Wholly behind the camera (w < 0 everywhere): nothing, even though x/w, y/w land inside.
  r.clear({0, 0, 0});
  const Vec4 behind[3] = {{-0.5f, -0.5f, 2, -1}, {0.5f, -0.5f, 2, -1}, {0, 0.5f, 2, -1}};
  r.draw_clip_triangle(behind, kWhite);
  EXPECT_EQ(covered(r), 0);

  // Straddling the camera plane: one corner behind (w < 0), whose x / w = 2 would put a
  // naive projection on the right of the image. Clipped, only the sliver between the left
  // edge (x = -w) and x = -0.9 is drawn, all in the left few columns.
  r.clear({0, 0, 0});
  const Vec4 straddle[3] = {{-0.9f, -0.9f, 0, 1}, {-0.9f, 0.9f, 0, 1}, {-1.0f, 0.0f, 0, -0.5f}};
  r.draw_clip_triangle(straddle, kWhite);
  EXPECT_GT(covered(r), 0);
  for (int y = 0; y < 60; ++y) {
    for (int x = 4; x < 60; ++x) EXPECT_EQ(r.depth()[y * 60 + x], 1.0f) << x << "," << y;
  }
}

TEST(Rasterizer, CubeSilhouetteIsTheProjectedFrontFace) {
  // A unit cube centred 2.5 in front of a 90-degree camera: its front face is 2 away, so its
  // half-size 0.5 projects to 0.25 in NDC, 25 pixels on a 200 x 200 image: a 50 x 50 square
  // from 75 to 125, 2500 pixels.
  std::vector<Vec3> p;
  for (int i = 0; i < 8; ++i) {
    p.push_back({i & 1 ? 0.5f : -0.5f, i & 2 ? 0.5f : -0.5f, (i & 4 ? 0.5f : -0.5f) - 2.5f});
  }
  const std::vector<std::uint32_t> idx = {0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1,
                                          2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3};
  Camera camera;
  camera.view = Mat4::identity();
  camera.vertical_fov = std::numbers::pi_v<float> / 2;
  camera.aspect = 1;
  camera.near_plane = 0.5f;
  camera.far_plane = 10;
  Rasterizer r(200, 200);
  r.clear({0, 0, 0});
  MeshDraw mesh;
  mesh.positions = p;
  mesh.indices = idx;
  r.draw_mesh(camera, mesh);
  EXPECT_EQ(covered(r), 2500);
  int min_x = 200, max_x = -1, min_y = 200, max_y = -1;
  for (int y = 0; y < 200; ++y) {
    for (int x = 0; x < 200; ++x) {
      if (r.depth()[y * 200 + x] == 1.0f) continue;
      min_x = std::min(min_x, x);
      max_x = std::max(max_x, x);
      min_y = std::min(min_y, y);
      max_y = std::max(max_y, y);
    }
  }
  EXPECT_EQ(min_x, 75);
  EXPECT_EQ(max_x, 124);
  EXPECT_EQ(min_y, 75);
  EXPECT_EQ(max_y, 124);
  // The front face (z = -2) is what the depth buffer holds: OpenGL depth of view z = -2 with
  // near 0.5 and far 10 is (f + n)/(f - n) - 2fn/((f - n) 2), mapped to [0, 1].
  const float n = 0.5f, f = 10, z = 2;
  const float ndc = (f + n) / (f - n) - 2 * f * n / ((f - n) * z);
  EXPECT_NEAR(r.depth()[100 * 200 + 100], ndc * 0.5f + 0.5f, 1e-5f);
  // Lit faces are brighter than ambient alone, and flat: one colour over the front face.
  const Rgb a = r.image().at(80, 80), b = r.image().at(120, 120);
  EXPECT_NEAR(a.r, b.r, 1);
  EXPECT_NEAR(a.g, b.g, 1);
  EXPECT_GT(a.r, static_cast<int>(255 * Lighting{}.ambient * 0.78f) + 10);
}

TEST(Rasterizer, LinesAndDotsClipAtTheNearPlane) {
  Camera camera;
  camera.view = Mat4::identity();
  Rasterizer r(50, 50);
  r.clear({0, 0, 0});
  // A segment from behind the camera to in front of it must not wrap around the image.
  r.draw_line(camera, {0.0f, 0.0f, 5.0f}, {0.0f, 0.0f, -5.0f}, {255, 0, 0}, 2);
  r.draw_dot(camera, {0, 0, 5}, 3, {0, 255, 0});  // behind: not drawn
  int red = 0, green = 0;
  for (int y = 0; y < 50; ++y) {
    for (int x = 0; x < 50; ++x) {
      red += r.image().at(x, y) == Rgb{255, 0, 0};
      green += r.image().at(x, y) == Rgb{0, 255, 0};
    }
  }
  EXPECT_GT(red, 0);
  EXPECT_EQ(green, 0);
}

TEST(Camera, FramingKeepsEveryCornerInView) {
  Bounds box;
  box.add(Vec3{-0.3f, 0, -0.2f});
  box.add(Vec3{0.4f, 1.8f, 0.5f});
  for (CameraPreset preset :
       {CameraPreset::kAuto, CameraPreset::kFront, CameraPreset::kSide, CameraPreset::kBack,
        CameraPreset::kTop, CameraPreset::kThreeQuarter}) {
    for (float aspect : {0.5f, 1.0f, 2.0f}) {
      const Camera camera = frame_bounds(box, preset, aspect);
      float widest = 0;
      for (int i = 0; i < 8; ++i) {
        const Vec3 corner{i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y,
                          i & 4 ? box.max.z : box.min.z};
        const Vec4 c = camera.to_clip(corner);
        ASSERT_GT(c.w, 0);
        EXPECT_LE(std::fabs(c.x / c.w), 1.0f);
        EXPECT_LE(std::fabs(c.y / c.w), 1.0f);
        EXPECT_GT(c.z / c.w, -1.0f);
        EXPECT_LT(c.z / c.w, 1.0f);
        widest = std::max({widest, std::fabs(c.x / c.w), std::fabs(c.y / c.w)});
      }
      // Tight: some corner reaches the margin (1 / 1.08 of the half-width) on one axis.
      EXPECT_GT(widest, 0.9f) << static_cast<int>(preset) << " " << aspect;
    }
  }
  // Front looks along -forward: the eye sits on the +forward side of the box.
  const Camera front = frame_bounds(box, CameraPreset::kFront, 1, {{0, 1, 0}, {0, 0, -1}});
  EXPECT_LT(front.eye().z, box.min.z);
  const Camera side = frame_bounds(box, CameraPreset::kSide, 1);  // left of a +Z-facing body
  EXPECT_GT(side.eye().x, box.max.x);
}

TEST(Camera, PresetNames) {
  EXPECT_EQ(parse_camera_preset("three-quarter"), CameraPreset::kThreeQuarter);
  EXPECT_EQ(parse_camera_preset("top"), CameraPreset::kTop);
  EXPECT_FALSE(parse_camera_preset("diagonal"));
}

TEST(Rasterizer, HostileGeometryIsSkippedOrClipped) {
  Camera camera;
  camera.view = Mat4::identity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<Vec3> p = {
      {nan, 0, -2},         {1, 0, -2},          {0, 1, -2},       // a NaN corner
      {inf, 0, -2},         {1, 1, -2},          {0, -1, -2},      // an infinite corner
      {-1e6f, -1e6f, -2},   {1e6f, -1e6f, -2},   {0, 1e6f, -2},    // huge, around the view
      {-1e30f, -1e30f, -3}, {1e30f, -1e30f, -3}, {0, 1e30f, -3}};  // absurd, behind it
  const std::vector<std::uint32_t> idx = {0, 1, 2,  3,  4, 5, 6, 7,
                                          8, 9, 10, 11, 0, 1, 99};  // 99: no such vertex
  MeshDraw mesh;
  mesh.positions = p;
  mesh.indices = idx;
  const std::vector<Vec3> normals(p.size(), Vec3{nan, nan, nan});
  mesh.normals = normals;  // unusable normals fall back to a fixed shade
  Rasterizer r(40, 30);
  r.clear({0, 0, 0});
  r.draw_mesh(camera, mesh);
  // A triangle a million times the view's size contains the whole view: clipped to it (in
  // double precision), it covers every pixel. One of 1e30 may come out wrong, but within the
  // image and the depth range.
  int covered = 0;
  for (float d : r.depth()) {
    EXPECT_TRUE(d >= 0 && d <= 1);
    covered += d < 1;
  }
  EXPECT_EQ(covered, 40 * 30);
  // Lines and dots with non-finite ends draw nothing and do not hang.
  r.clear({0, 0, 0});
  r.draw_line(camera, {nan, 0, -1}, {0, 0, -1}, {255, 0, 0}, 2);
  r.draw_line(camera, {-1e30f, 0, -1}, {1e30f, 0, -1}, {255, 0, 0}, 2);
  r.draw_dot(camera, {inf, 0, -1}, 3, {255, 0, 0});
  SUCCEED();
}
