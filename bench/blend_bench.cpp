// Issue 4's blend stack on Soldier.glb, per character-frame: three normal layers (Idle, Walk,
// Run), one override layer on the left arm (TPose), one additive layer (Run against its own
// first frame). Compare with BM_SoldierWalk_SampleAndLocalToModel (one clip, no blend).
#include <benchmark/benchmark.h>

#include <memory>

#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/pose/additive.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"

#include "shared_asset.h"

namespace {

struct Stack {
  const marrow::Asset* asset = nullptr;
  std::vector<const marrow::Clip*> clips;  // idle, walk, run, tpose (override), additive
  marrow::Clip additive;
  std::vector<float> arm_mask;
};

const Stack* stack() {
  static std::unique_ptr<Stack> s = []() -> std::unique_ptr<Stack> {
    std::string why;
    const marrow::Asset* soldier = marrow::test::shared_asset("gltf/Soldier.glb", why);
    if (!soldier) return nullptr;
    auto s = std::make_unique<Stack>();
    s->asset = soldier;
    const auto& a = *s->asset;
    const marrow::Clip& run = a.clips[*a.find_clip("Run")];
    auto reference = marrow::sample_reference_pose(a.skeleton, run, 0.0f);
    auto additive = marrow::make_additive_clip(run, a.skeleton, *reference);
    auto mask = marrow::mask_from_subtree(a.skeleton, "mixamorig:LeftArm");
    if (!reference || !additive || !mask) return nullptr;
    s->additive = std::move(additive).value();
    s->arm_mask = std::move(mask).value();
    for (const char* name : {"Idle", "Walk", "Run", "TPose"})
      s->clips.push_back(&a.clips[*a.find_clip(name)]);
    s->clips.push_back(&s->additive);
    return s;
  }();
  return s.get();
}

// range(0): 1 = sample + blend + local-to-model; 0 = the blend job alone on sampled poses.
void BM_SoldierBlendStack(benchmark::State& state) {
  const Stack* s = stack();
  if (!s) {
    state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
    return;
  }
  const marrow::Skeleton& skeleton = s->asset->skeleton;
  const std::size_t n = skeleton.size();
  std::vector<std::vector<marrow::Transform>> poses(5, std::vector<marrow::Transform>(n));
  std::vector<marrow::SamplingCursor> cursors(5);
  for (int i = 0; i < 5; ++i) cursors[i].bind(*s->clips[i]);
  const std::vector<marrow::Transform> identity(n);
  std::vector<marrow::Transform> out(n);
  std::vector<marrow::Mat4> model(n);
  const marrow::BlendLayer normal[] = {
      {poses[0], 0.2f, {}}, {poses[1], 0.5f, {}}, {poses[2], 0.3f, {}}};
  const marrow::BlendLayer overrides[] = {{poses[3], 0.8f, s->arm_mask}};
  const marrow::BlendLayer additives[] = {{poses[4], 0.5f, {}}};
  marrow::BlendJob job;
  job.rest_pose = skeleton.rest_pose();
  job.layers = normal;
  job.overrides = overrides;
  job.additives = additives;
  job.output = out;
  const bool full = state.range(0) != 0;
  float time = 0;
  auto sample_all = [&] {
    for (int i = 0; i < 5; ++i) {
      const marrow::Clip& clip = *s->clips[i];
      const auto rest =
          i == 4 ? std::span<const marrow::Transform>(identity) : skeleton.rest_pose();
      marrow::sample(clip, rest, marrow::wrap_time(time, clip.duration(), marrow::WrapMode::kLoop),
                     cursors[i], poses[i]);
    }
  };
  sample_all();
  for (auto _ : state) {
    time += 1.0f / 60.0f;
    if (full) sample_all();
    job.run();
    if (full) marrow::local_to_model(skeleton, out, model);
    benchmark::DoNotOptimize(out.data());
    benchmark::DoNotOptimize(model.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SoldierBlendStack)->ArgName("sample_and_hierarchy")->Arg(0)->Arg(1);

}  // namespace
