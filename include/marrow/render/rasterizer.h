/// @file
/// A software triangle rasterizer: no GPU, no display. Triangles are clipped in homogeneous
/// clip space, filled with edge functions (pixel centres at +0.5, a top-left style tie rule so
/// that triangles sharing an edge never both cover a pixel), depth-tested against a float depth
/// buffer and lit with Lambert + ambient from a key light fixed relative to the camera. Colour,
/// alpha and texture coordinates are interpolated perspective-correctly; a textured mesh samples
/// its texture trilinearly at the level of detail its screen-space derivatives ask for.
/// Colours are display (sRGB-encoded) values, as texels are: linear inputs (glTF factors and
/// vertex colours) are encoded before they reach the rasterizer (SceneRenderer does this).
/// Drawing allocates only when a mesh is larger than any drawn before (scratch buffers grow).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "marrow/render/camera.h"
#include "marrow/render/texture.h"

namespace marrow::render {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend constexpr bool operator==(Rgb a, Rgb b) = default;
};

/// An RGB image, 8 bits per channel, rows top to bottom.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  ///< width * height * 3

  Image() = default;
  Image(int w, int h, Rgb fill = {});
  Rgb at(int x, int y) const {
    const std::uint8_t* p = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
    return {p[0], p[1], p[2]};
  }
};

struct Lighting {
  Vec3 key_direction{-0.45f, 0.6f, 0.66f};  ///< towards the light, in camera space
  float ambient = 0.3f;
  float key = 0.75f;
};

/// One triangle mesh to draw, in world space.
struct MeshDraw {
  std::span<const Vec3> positions;
  std::span<const std::uint32_t> indices;  ///< triangle list; out-of-range triangles are skipped
  /// Per-vertex normals for smooth shading; empty for flat shading (one normal per triangle).
  std::span<const Vec3> normals;
  /// Per-vertex colours in [0, 1]; empty to use `color` everywhere.
  std::span<const Vec3> colors;
  Vec3 color{0.78f, 0.76f, 0.72f};
  /// Per-vertex alpha; empty to use `alpha` everywhere. Used by the mask and blend modes.
  std::span<const float> alphas;
  float alpha = 1;
  /// A texture multiplied with the colour, at per-vertex coordinates (both or neither).
  const Texture* texture = nullptr;
  std::span<const std::array<float, 2>> uvs;
  /// kMask: fragments with alpha below `alpha_cutoff` are discarded; kBlend: mixed over what is
  /// behind them (no depth write; draw blended meshes after opaque ones).
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  float alpha_cutoff = 0.5f;
  bool write_depth = true;  ///< blended fragments too (a ground drawn first); false for glass
  bool lit = true;          ///< false: colours as given, no lighting
};

/// One corner of a triangle given straight in clip space (for draw_clip_triangle).
struct ClipCorner {
  Vec4 position;
  Vec3 color;  ///< already lit
  float alpha = 1;
  float u = 0, v = 0;
};

/// How draw_clip_triangle fills: the texture (or none) and the alpha rule.
struct Surface {
  const Texture* texture = nullptr;
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  float alpha_cutoff = 0.5f;
  bool write_depth = true;  ///< for kBlend (opaque and masked fragments always write depth)
};

class Rasterizer {
 public:
  Rasterizer(int width, int height);

  int width() const { return image_.width; }
  int height() const { return image_.height; }
  const Image& image() const { return image_; }
  /// Depth in [0, 1] (0 at the near plane) per pixel, 1 where nothing was drawn.
  std::span<const float> depth() const { return depth_; }

  void clear(Rgb background);
  /// A vertical gradient from `top` to `bottom`, for a less flat background.
  void clear_gradient(Rgb top, Rgb bottom);

  void draw_mesh(const Camera& camera, const MeshDraw& mesh, const Lighting& lighting = {});

  /// The core: triangles given in clip space with a colour (0..1) per vertex, already lit.
  /// Used by draw_mesh and by tests that place triangles exactly.
  void draw_clip_triangle(const Vec4 clip[3], const Vec3 color[3]);
  /// The same with alpha and texture coordinates, filled as `surface` says.
  void draw_clip_triangle(const ClipCorner corners[3], const Surface& surface);

  /// Overlays drawn without depth test, on top of everything (the skeleton).
  void draw_line(const Camera& camera, Vec3 a, Vec3 b, Rgb color, float thickness);
  void draw_dot(const Camera& camera, Vec3 p, float radius, Rgb color);

  /// Fragments that passed the coverage test since the last clear (for tests: two triangles
  /// sharing an edge cover each pixel of it once).
  std::uint64_t fragments() const { return fragments_; }

 private:
  void fill_triangle(const ClipCorner& a, const ClipCorner& b, const ClipCorner& c,
                     const Surface& surface);
  void plot_disc(float cx, float cy, float radius, Rgb color);

  Image image_;
  std::vector<float> depth_;
  std::uint64_t fragments_ = 0;
  std::vector<Vec4> clip_scratch_;
  std::vector<Vec3> color_scratch_;
};

}  // namespace marrow::render
