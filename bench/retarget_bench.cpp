// Retargeting (issue 16): one frame of Soldier.glb's Walk (68 joints, 52 animated) onto Xbot.glb
// (68 joints) through RetargetJob, with and without sampling the source; and retarget_clip, the
// setup-time conversion of the whole clip, for scale.
#include <benchmark/benchmark.h>

#include <memory>

#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/retarget/retargeter.h"

#include "retarget_fixtures.h"
#include "shared_asset.h"

namespace {

using namespace marrow;

struct Pair {
  const Asset* soldier = nullptr;
  const Asset* xbot = nullptr;
  const Clip* walk = nullptr;
  std::unique_ptr<Retargeter> retargeter;
};

const Pair* pair() {
  static std::unique_ptr<Pair> p = []() -> std::unique_ptr<Pair> {
    std::string why;
    auto p = std::make_unique<Pair>();
    p->soldier = test::shared_asset("gltf/Soldier.glb", why);
    p->xbot = test::shared_asset("gltf/Xbot.glb", why);
    if (!p->soldier || !p->xbot) return nullptr;
    p->walk = &p->soldier->clips[*p->soldier->find_clip("Walk")];
    Result<Retargeter> r = test::retargeter_posed_by(*p->soldier, "TPose", *p->xbot);
    if (!r) return nullptr;
    p->retargeter = std::make_unique<Retargeter>(std::move(r).value());
    return p;
  }();
  return p.get();
}

// range(0): 1 = sample the source clip then retarget; 0 = RetargetJob alone on sampled poses.
void BM_RetargetFrame(benchmark::State& state) {
  const Pair* p = pair();
  if (!p) {
    state.SkipWithError("Soldier.glb or Xbot.glb is absent from ../shared/assets/gltf");
    return;
  }
  const Skeleton& ss = p->soldier->skeleton;
  const bool with_sampling = state.range(0) != 0;
  std::vector<std::vector<Transform>> poses;
  SamplingCursor cursor(*p->walk);
  for (int f = 0; f < 60; ++f) {
    std::vector<Transform> pose(ss.size());
    (void)sample(*p->walk, ss.rest_pose(), p->walk->duration() * f / 60.0f, cursor, pose);
    poses.push_back(std::move(pose));
  }
  cursor.rewind();
  RetargetContext context(*p->retargeter);
  std::vector<Transform> source(ss.size()), target(p->xbot->skeleton.size());
  RetargetJob job;
  job.retargeter = p->retargeter.get();
  job.context = &context;
  job.target_pose = target;
  std::size_t f = 0;
  float time = 0;
  for (auto _ : state) {
    if (with_sampling) {
      (void)sample(*p->walk, ss.rest_pose(), wrap_time(time, p->walk->duration(), WrapMode::kLoop),
                   cursor, source);
      time += 1.0f / 60;
      job.source_pose = source;
    } else {
      job.source_pose = poses[f++ % 60];
    }
    benchmark::DoNotOptimize(job.run());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_RetargetFrame)->Arg(0)->Arg(1)->ArgName("sample");

void BM_RetargetClip(benchmark::State& state) {
  const Pair* p = pair();
  if (!p) {
    state.SkipWithError("Soldier.glb or Xbot.glb is absent from ../shared/assets/gltf");
    return;
  }
  for (auto _ : state) {
    Result<Clip> c = retarget_clip(*p->retargeter, *p->walk);
    benchmark::DoNotOptimize(c.ok());
  }
}
BENCHMARK(BM_RetargetClip)->Unit(benchmark::kMicrosecond);

}  // namespace
