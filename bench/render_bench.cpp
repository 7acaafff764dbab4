// Headless rendering per frame: skinning Soldier.glb into world space, drawing it with the
// software rasterizer, and encoding the frame into a GIF.
#include <benchmark/benchmark.h>

#include <memory>

#include "marrow/io/asset.h"
#include "marrow/io/pose_dump.h"
#include "marrow/render/gif.h"
#include "marrow/render/scene.h"

#include "shared_asset.h"

namespace {

using namespace marrow;

const Asset* soldier() {
  std::string why;
  return test::shared_asset("gltf/Soldier.glb", why);
}

struct SoldierScene {
  render::SceneRenderer scene;
  std::vector<std::vector<Mat4>> poses;  // 30 frames of Walk
  render::Camera camera;
};

std::unique_ptr<SoldierScene> make_scene(const Asset& asset, int width, int height,
                                         const render::SceneStyle& style = {}) {
  std::vector<float> times;
  const Clip& walk = asset.clips[*asset.find_clip("Walk")];
  for (int f = 0; f < 30; ++f) times.push_back(walk.duration() * f / 30);
  auto scene = render::SceneRenderer::create(asset, style);
  if (!scene) return nullptr;
  auto s = std::unique_ptr<SoldierScene>(new SoldierScene{std::move(scene).value(), {}, {}});
  s->poses = sample_world(asset, static_cast<int>(*asset.find_clip("Walk")), times).world;
  std::vector<Vec3> extremes;
  for (const auto& pose : s->poses) {
    s->scene.set_pose(pose);
    s->scene.extreme_points(extremes);
  }
  s->camera = render::frame_points(extremes, render::CameraPreset::kAuto,
                                   static_cast<float>(width) / height,
                                   render::guess_orientation(asset.skeleton, s->poses[0]));
  return s;
}

// Stage 1: palette and linear blend skinning of every mesh (positions and normals).
void BM_SoldierSkinForRender(benchmark::State& state) {
  const Asset* asset = soldier();
  if (!asset) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  auto s = make_scene(*asset, 320, 320);
  std::size_t frame = 0;
  for (auto _ : state) {
    s->scene.set_pose(s->poses[frame++ % s->poses.size()]);
    benchmark::ClobberMemory();
  }
  std::size_t vertices = 0;
  for (const auto& m : asset->meshes) vertices += m.vertex_count();
  state.counters["vertices"] = static_cast<double>(vertices);
}
BENCHMARK(BM_SoldierSkinForRender)->Unit(benchmark::kMicrosecond);

// Stage 2: clear and draw one skinned frame (depth test, Gouraud lighting, the base-colour
// texture with trilinear filtering) at N x N; the second argument 0 draws without textures.
void BM_SoldierDraw(benchmark::State& state) {
  const Asset* asset = soldier();
  if (!asset) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  const int size = static_cast<int>(state.range(0));
  render::SceneStyle style;
  style.textures = state.range(1) != 0;
  auto s = make_scene(*asset, size, size, style);
  s->scene.set_pose(s->poses[7]);
  render::Rasterizer rasterizer(size, size);
  for (auto _ : state) {
    s->scene.draw(rasterizer, s->camera);
    benchmark::DoNotOptimize(rasterizer.image().rgb.data());
  }
  std::size_t triangles = 0;
  for (const auto& m : asset->meshes) triangles += m.indices.size() / 3;
  state.counters["triangles"] = static_cast<double>(triangles);
  state.counters["pixels"] = size * size;
  state.counters["fragments"] = static_cast<double>(rasterizer.fragments());
}
BENCHMARK(BM_SoldierDraw)
    ->ArgNames({"size", "textures"})
    ->ArgsProduct({{160, 320, 640}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

// Stage 3: one frame into the GIF (changed rectangle, median cut, LZW).
void BM_GifEncodeFrame(benchmark::State& state) {
  const Asset* asset = soldier();
  if (!asset) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  auto s = make_scene(*asset, 320, 320);
  std::vector<render::Image> frames;
  render::Rasterizer rasterizer(320, 320);
  for (int f = 0; f < 8; ++f) {
    s->scene.set_pose(s->poses[static_cast<std::size_t>(f) * 3]);
    s->scene.draw(rasterizer, s->camera);
    frames.push_back(rasterizer.image());
  }
  render::GifEncoder encoder(320, 320);
  std::size_t frame = 0, bytes = 0;
  for (auto _ : state) {
    encoder.add_frame(frames[frame++ % frames.size()], 4);
    bytes += encoder.take_bytes().size();
  }
  state.counters["bytes_per_frame"] =
      benchmark::Counter(static_cast<double>(bytes), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_GifEncodeFrame)->Unit(benchmark::kMicrosecond);

}  // namespace
