// The Animator's whole per-character frame on Soldier.glb (issue 11): update (time, fades, sync,
// events, root motion) + evaluate (sample, blend) + local-to-model, over a crowd of 100
// characters each at its own phase. One iteration is one frame of all 100; items are
// character-frames.
//  - BM_ControlFrame/players:N/compiled:C: 1, 2 or 3 players blending at once (Walk; Walk + Run;
//    Idle + Walk + Run, phase-synced), compiled clips (C = 1) or exact ones (C = 0).
//  - BM_ControlTransition/kind:K/compiled:C: a transition every 0.3 s, Walk <-> Run, K = 0 a
//    0.25 s smooth cross-fade (two players sampled while it runs), K = 1 a 0.25 s
//    inertialization (one player sampled, and the offsets added); compiled or exact clips.
//  - BM_ControlStateMachine/exit:E: each character runs a StateMachine over Walk and Run whose
//    speed parameter flips every 0.3 s (a 0.25 s fade each way); E = 1 adds an exit-time
//    transition (Run leaves at exit_time 0.5 when slow), so the machine's progress checks run.
//  - BM_ControlCrowdUpdate/threads:T/evaluate:E: 10,000 animators (Walk + Run synced) advanced
//    over T threads of bench/thread_pool.h; E = 1 adds evaluate and local-to-model.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "marrow/control/animator.h"
#include "marrow/control/state_machine.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "thread_pool.h"

#include "shared_asset.h"

namespace {

using namespace marrow;

constexpr std::size_t kCharacters = 100;
constexpr float kFrame = 1.0f / 60.0f;

std::shared_ptr<const ClipSet> soldier_set() {
  static std::shared_ptr<const ClipSet> set = []() -> std::shared_ptr<const ClipSet> {
    std::string why;
    const Asset* asset = test::shared_asset("gltf/Soldier.glb", why);
    if (!asset) return nullptr;
    ClipSetBuilder builder(asset->skeleton);
    for (const Clip& clip : asset->clips) {
      if (!builder.add_clip(clip, {.compile = true}).ok()) return nullptr;
    }
    if (!builder.set_root_motion({.joint = "mixamorig:Hips"}).ok()) return nullptr;
    auto built = builder.build();
    return built ? built.value() : nullptr;
  }();
  return set;
}

struct Character {
  Animator animator;
  std::vector<SoaTransform> local;
  std::vector<Mat4> model;
  PlayerId current;
};

Character make_character(const std::shared_ptr<const ClipSet>& set,
                         const AnimatorOptions& options) {
  Character c{Animator::create(set, options).value(), {}, {}, {}};
  c.local.resize(soa_group_count(set->skeleton().size()));
  c.model.resize(set->skeleton().size());
  return c;
}

// One character-frame: update, evaluate, local-to-model.
void frame(Character& c, AnimatorWorkspace& workspace, const Skeleton& skeleton,
           std::span<AnimationEvent> events) {
  c.animator.update(kFrame, events);
  c.animator.evaluate(workspace, c.local);
  SoaLocalToModelJob job;
  job.skeleton = &skeleton;
  job.local = c.local;
  job.model = c.model;
  job.run();
  benchmark::DoNotOptimize(c.model.data());
}

void BM_ControlFrame(benchmark::State& state) {
  const std::shared_ptr<const ClipSet> set = soldier_set();
  if (!set) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  const int players = static_cast<int>(state.range(0));
  AnimatorOptions options;
  options.sync_groups = {SyncMode::kPhase};
  options.prefer_compiled = state.range(1) != 0;
  const ClipId idle = set->clip_id("Idle").value(), walk = set->clip_id("Walk").value(),
               run = set->clip_id("Run").value();
  std::vector<Character> crowd;
  for (std::size_t i = 0; i < kCharacters; ++i) {
    crowd.push_back(make_character(set, options));
    Animator& a = crowd.back().animator;
    const float offset = 0.0173f * static_cast<float>(i);
    if (players == 1) (void)a.play(walk, {.start_offset = offset});
    if (players == 2) {
      (void)a.play(walk, {.weight = 0.6f, .start_offset = offset, .sync_group = 0});
      (void)a.play(run, {.weight = 0.4f, .sync_group = 0});
    }
    if (players == 3) {
      (void)a.play(idle, {.weight = 0.2f, .start_offset = offset});
      (void)a.play(walk, {.weight = 0.5f, .start_offset = offset, .sync_group = 0});
      (void)a.play(run, {.weight = 0.3f, .sync_group = 0});
    }
  }
  AnimatorWorkspace workspace(*set);
  std::vector<AnimationEvent> events(64);
  for (auto _ : state) {
    for (Character& c : crowd) frame(c, workspace, set->skeleton(), events);
  }
  state.SetItemsProcessed(state.iterations() * kCharacters);
  state.SetLabel(options.prefer_compiled ? "compiled" : "exact");
}
BENCHMARK(BM_ControlFrame)->ArgNames({"players", "compiled"})->ArgsProduct({{1, 2, 3}, {1, 0}});

void BM_ControlStateMachine(benchmark::State& state) {
  const std::shared_ptr<const ClipSet> set = soldier_set();
  if (!set) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  StateMachineDesc desc;
  desc.parameters = {{"speed"}};
  desc.states = {{.name = "Walk", .clip = "Walk"}, {.name = "Run", .clip = "Run"}};
  desc.transitions = {
      {.from = "Walk", .to = "Run", .conditions = {{"speed", CompareOp::kGreater, 2}}},
      {.from = "Run", .to = "Walk", .conditions = {{"speed", CompareOp::kLessEqual, 2}}}};
  if (state.range(0) != 0) {
    desc.transitions[1].exit = ExitKind::kNormalized;
    desc.transitions[1].exit_at = 0.5f;
  }
  auto definition = StateMachineDefinition::create(desc, *set).value();
  std::vector<Character> crowd;
  std::vector<StateMachine> machines;
  for (std::size_t i = 0; i < kCharacters; ++i) {
    crowd.push_back(make_character(set, {}));
    machines.emplace_back(definition);
    (void)machines.back().start(crowd.back().animator);
  }
  AnimatorWorkspace workspace(*set);
  std::vector<AnimationEvent> events(64);
  long frame_index = 0;
  for (auto _ : state) {
    ++frame_index;
    for (std::size_t i = 0; i < kCharacters; ++i) {
      // Each character flips its speed every 18 frames (0.3 s), at its own phase.
      const bool fast = ((frame_index + static_cast<long>(i)) / 18) % 2 == 0;
      machines[i].set_float(0u, fast ? 3.0f : 1.0f);
      machines[i].update(crowd[i].animator, kFrame, events);
      crowd[i].animator.evaluate(workspace, crowd[i].local);
      SoaLocalToModelJob job;
      job.skeleton = &set->skeleton();
      job.local = crowd[i].local;
      job.model = crowd[i].model;
      job.run();
      benchmark::DoNotOptimize(crowd[i].model.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * kCharacters);
}
BENCHMARK(BM_ControlStateMachine)->ArgNames({"exit"})->Arg(0)->Arg(1);

void BM_ControlTransition(benchmark::State& state) {
  const std::shared_ptr<const ClipSet> set = soldier_set();
  if (!set) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  const bool inertialize = state.range(0) != 0;
  AnimatorOptions options;
  options.inertialization = true;
  options.prefer_compiled = state.range(1) != 0;
  const ClipId walk = set->clip_id("Walk").value(), run = set->clip_id("Run").value();
  std::vector<Character> crowd;
  for (std::size_t i = 0; i < kCharacters; ++i) {
    crowd.push_back(make_character(set, options));
    crowd.back().current = crowd.back().animator.play(walk).value();
  }
  AnimatorWorkspace workspace(*set);
  std::vector<AnimationEvent> events(64);
  std::uint64_t n = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < kCharacters; ++i) {
      Character& c = crowd[i];
      // Every 18 frames (0.3 s), each character at its own frame of that cycle.
      if ((n + i) % 18 == 0) {
        const bool to_run = c.animator.info(c.current).clip == walk;
        const PlayerId next = c.animator.play(to_run ? run : walk).value();
        if (inertialize) {
          (void)c.animator.inertialize(c.current, next, 0.25f);
        } else {
          (void)c.animator.cross_fade(c.current, next, 0.25f, FadeCurve::kSmooth);
        }
        c.current = next;
      }
      frame(c, workspace, set->skeleton(), events);
    }
    ++n;
  }
  state.SetItemsProcessed(state.iterations() * kCharacters);
  state.SetLabel(std::string(inertialize ? "inertialization" : "cross-fade") +
                 (options.prefer_compiled ? ", compiled" : ", exact"));
}
BENCHMARK(BM_ControlTransition)->ArgNames({"kind", "compiled"})->ArgsProduct({{0, 1}, {1, 0}});

void BM_ControlCrowdUpdate(benchmark::State& state) {
  const std::shared_ptr<const ClipSet> set = soldier_set();
  if (!set) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  constexpr std::size_t kCrowd = 10000;
  const std::size_t threads = static_cast<std::size_t>(state.range(0));
  const bool evaluate = state.range(1) != 0;
  AnimatorOptions options;
  options.sync_groups = {SyncMode::kPhase};
  const ClipId walk = set->clip_id("Walk").value(), run = set->clip_id("Run").value();
  std::vector<Character> crowd;
  crowd.reserve(kCrowd);
  for (std::size_t i = 0; i < kCrowd; ++i) {
    crowd.push_back(make_character(set, options));
    Animator& a = crowd.back().animator;
    (void)a.play(
        walk,
        {.weight = 0.7f, .start_offset = 0.0173f * static_cast<float>(i % 57), .sync_group = 0});
    (void)a.play(run, {.weight = 0.3f, .sync_group = 0});
  }
  ThreadPool pool(threads);
  // One workspace and event buffer per task: tasks are contiguous slices of the crowd.
  const std::size_t tasks = threads * 8;
  std::vector<AnimatorWorkspace> workspaces;
  std::vector<std::vector<AnimationEvent>> buffers(tasks, std::vector<AnimationEvent>(64));
  for (std::size_t t = 0; t < tasks; ++t) workspaces.emplace_back(*set);
  for (auto _ : state) {
    pool.parallel_for(tasks, [&](std::size_t t) {
      const std::size_t begin = kCrowd * t / tasks, end = kCrowd * (t + 1) / tasks;
      for (std::size_t i = begin; i < end; ++i) {
        if (evaluate) {
          frame(crowd[i], workspaces[t], set->skeleton(), buffers[t]);
        } else {
          crowd[i].animator.update(kFrame, buffers[t]);
        }
      }
    });
  }
  state.SetItemsProcessed(state.iterations() * kCrowd);
  state.counters["animators"] = kCrowd;
}
BENCHMARK(BM_ControlCrowdUpdate)
    ->ArgNames({"threads", "evaluate"})
    ->ArgsProduct({{1, 2}, {0, 1}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
