// Sampling + local-to-model for one character, per frame, on Soldier.glb's Walk.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"

#include "shared_asset.h"

namespace {

const marrow::Asset* soldier() {
  std::string why;
  return marrow::test::shared_asset("gltf/Soldier.glb", why);
}

// One frame of one character: the clip at the next 60 Hz time, then its model-space pose.
void BM_SoldierWalk_SampleAndLocalToModel(benchmark::State& state) {
  const marrow::Asset* asset = soldier();
  if (!asset) {
    state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
    return;
  }
  const marrow::Clip& clip = asset->clips[*asset->find_clip("Walk")];
  const marrow::Skeleton& skeleton = asset->skeleton;
  std::vector<marrow::Transform> local(skeleton.size());
  std::vector<marrow::Mat4> model(skeleton.size());
  marrow::SamplingCursor cursor(clip);
  float time = 0;
  const bool with_hierarchy = state.range(0) != 0;
  for (auto _ : state) {
    time += 1.0f / 60.0f;
    const float t = marrow::wrap_time(time, clip.duration(), marrow::WrapMode::kLoop);
    marrow::sample(clip, skeleton.rest_pose(), t, cursor, local);
    if (with_hierarchy) marrow::local_to_model(skeleton, local, model);
    benchmark::DoNotOptimize(local.data());
    benchmark::DoNotOptimize(model.data());
  }
  state.counters["joints"] = static_cast<double>(skeleton.size());
  state.counters["tracks"] = static_cast<double>(clip.tracks().size());
  state.SetItemsProcessed(state.iterations());  // items = character-frames
}
BENCHMARK(BM_SoldierWalk_SampleAndLocalToModel)->ArgName("local_to_model")->Arg(0)->Arg(1);

// Random seeks: every frame jumps, so every track pays a binary search.
void BM_SoldierWalk_RandomSeek(benchmark::State& state) {
  const marrow::Asset* asset = soldier();
  if (!asset) {
    state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
    return;
  }
  const marrow::Clip& clip = asset->clips[*asset->find_clip("Walk")];
  std::vector<marrow::Transform> local(asset->skeleton.size());
  marrow::SamplingCursor cursor(clip);
  std::uint32_t seed = 12345;
  for (auto _ : state) {
    seed = seed * 1664525u + 1013904223u;
    const float t = clip.duration() * static_cast<float>(seed >> 8) / static_cast<float>(1u << 24);
    marrow::sample(clip, asset->skeleton.rest_pose(), t, cursor, local);
    benchmark::DoNotOptimize(local.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SoldierWalk_RandomSeek);

// wrap_time over 1,024 player times from -3 to +3 durations, per mode; the last argument 1 uses a
// duration past half the largest float (times within +-1.3 of it, below the largest float), the
// double-precision branch the glb fuzz finding added (docs/reliability.md). Items are calls.
void BM_WrapTime(benchmark::State& state) {
  const auto mode = static_cast<marrow::WrapMode>(state.range(0));
  const bool huge = state.range(1) != 0;
  const float duration = huge ? 2.5e38f : 1.0667f, span = huge ? 1.3f : 3.0f;
  std::vector<float> times(1024);
  for (std::size_t i = 0; i < times.size(); ++i)
    times[i] = duration * span * (-1.0f + 2.0f * static_cast<float>(i) / 1023.0f);
  for (auto _ : state) {
    float sum = 0;
    for (float t : times) sum += marrow::wrap_time(t, duration, mode);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(times.size()));
}
BENCHMARK(BM_WrapTime)->ArgsProduct({{0, 1, 2}, {0, 1}});

}  // namespace
