// The per-frame work of a crowd on Soldier.glb, exact clips against compiled ones (issue 13):
// 100 characters, each at its own time offset, advanced at 60 Hz. One iteration is one frame of
// all 100 characters; items are character-frames. Each character owns its pose buffers, as a game's
// would (the clip data is shared).
//  - BM_Crowd_Walk/exact:0|1, sample only: the exact sampler with a cursor per character into a
//    local pose (AoS), or the compiled sampler into a SoA local pose.
//  - BM_Crowd_WalkModel: the same plus local-to-model (scalar / SIMD).
//  - BM_Crowd_Blend3: Idle, Walk and Run at 0.2 / 0.5 / 0.3, blended, then local-to-model.
//  - BM_Crowd40k: 40,000 characters, two layers each, on one or two threads (issue 13's goal: a
//    frame of all of them within 1/60 s on this machine's two cores).
// range(1) picks the SIMD level for the compiled path (0 scalar .. 3 AVX-512), skipped where the
// machine lacks it.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <vector>

#include "crowd_walk.h"
#include "thread_pool.h"

#include "marrow/clip/compiled_clip.h"
#include "marrow/clip/compiled_sampling.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/math/simd.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/soa_blend.h"

#include "shared_asset.h"

namespace {

using namespace marrow;

constexpr std::size_t kCharacters = 100;
constexpr float kFrame = 1.0f / 60.0f;

struct Soldier {
  const Asset* asset = nullptr;
  std::vector<CompiledClip> compiled;  // Idle, Walk, Run
  std::vector<const Clip*> exact;
};

const Soldier* soldier() {
  static std::unique_ptr<Soldier> s = []() -> std::unique_ptr<Soldier> {
    std::string why;
    auto s = std::make_unique<Soldier>();
    s->asset = test::shared_asset("gltf/Soldier.glb", why);
    if (!s->asset) return nullptr;
    for (const char* name : {"Idle", "Walk", "Run"}) {
      const Clip& clip = s->asset->clips[*s->asset->find_clip(name)];
      s->exact.push_back(&clip);
      s->compiled.push_back(CompiledClip::compile(clip, s->asset->skeleton).value());
    }
    return s;
  }();
  return s.get();
}

bool use_level(benchmark::State& state, int arg) {
  const SimdLevel level = static_cast<SimdLevel>(arg);
  if (!set_simd_level(level)) {
    state.SkipWithError("this machine cannot run that SIMD level");
    return false;
  }
  state.SetLabel(std::string(to_string(level)));
  return true;
}

// Time of character c at frame f: each starts at its own offset in the clip.
float time_of(std::size_t c, std::uint64_t frame, float duration) {
  return wrap_time(static_cast<float>(c) * 0.173f + frame * kFrame, duration, WrapMode::kLoop);
}

struct ExactCharacter {
  std::vector<SamplingCursor> cursors;
  std::vector<std::vector<Transform>> layers;
  std::vector<Transform> local;
  std::vector<Mat4> model;
};

struct CompiledCharacter {
  std::vector<std::vector<SoaTransform>> layers;
  std::vector<SoaTransform> local;
  std::vector<Mat4> model;
};

// The three jobs of a compiled frame, set up for one skeleton (clip, layers and poses per call).
struct FrameJobs {
  explicit FrameJobs(const Skeleton& skeleton) {
    sample.rest_pose = skeleton.soa_rest_pose();
    blend.joint_count = skeleton.size();
    blend.rest_pose = skeleton.soa_rest_pose();
    to_model.skeleton = &skeleton;
  }
  CompiledSamplingJob sample;
  SoaBlendJob blend;
  SoaLocalToModelJob to_model;
};

// range(0): 0 sample only, 1 sample + local-to-model. range(1): -1 exact, else the SIMD level.
void BM_Crowd_Walk(benchmark::State& state) {
  const Soldier* s = soldier();
  if (!s) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  const bool model = state.range(0) != 0;
  const Skeleton& skeleton = s->asset->skeleton;
  const std::size_t n = skeleton.size();
  std::uint64_t frame = 0;
  if (state.range(1) < 0) {
    const Clip& walk = *s->exact[1];
    std::vector<ExactCharacter> crowd(kCharacters);
    for (ExactCharacter& c : crowd) {
      c.cursors.emplace_back(walk);
      c.local.resize(n);
      c.model.resize(n);
    }
    state.SetLabel("exact");
    for (auto _ : state) {
      for (std::size_t i = 0; i < kCharacters; ++i) {
        ExactCharacter& c = crowd[i];
        sample(walk, skeleton.rest_pose(), time_of(i, frame, walk.duration()), c.cursors[0],
               c.local);
        if (model) local_to_model(skeleton, c.local, c.model);
        benchmark::DoNotOptimize(c.local.data());
        benchmark::DoNotOptimize(c.model.data());
      }
      ++frame;
    }
  } else {
    if (!use_level(state, static_cast<int>(state.range(1)))) return;
    bench::CrowdWalk crowd(skeleton, s->compiled[1], kCharacters, model);
    for (auto _ : state) {
      crowd.run_frame(frame++, [](const SoaTransform* local, const Mat4* matrices) {
        benchmark::DoNotOptimize(local);
        benchmark::DoNotOptimize(matrices);
      });
    }
    set_simd_level(detected_simd_level());
  }
  state.SetItemsProcessed(state.iterations() * kCharacters);
}
BENCHMARK(BM_Crowd_Walk)->ArgNames({"model", "level"})->ArgsProduct({{0, 1}, {-1, 0, 1, 2, 3}});

// Idle + Walk + Run at 0.2 / 0.5 / 0.3, blended, then local-to-model.
void BM_Crowd_Blend3(benchmark::State& state) {
  const Soldier* s = soldier();
  if (!s) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  const Skeleton& skeleton = s->asset->skeleton;
  const std::size_t n = skeleton.size();
  const float weights[3] = {0.2f, 0.5f, 0.3f};
  std::uint64_t frame = 0;
  if (state.range(0) < 0) {
    std::vector<ExactCharacter> crowd(kCharacters);
    for (ExactCharacter& c : crowd) {
      for (int k = 0; k < 3; ++k) {
        c.cursors.emplace_back(*s->exact[k]);
        c.layers.emplace_back(n);
      }
      c.local.resize(n);
      c.model.resize(n);
    }
    state.SetLabel("exact");
    for (auto _ : state) {
      for (std::size_t i = 0; i < kCharacters; ++i) {
        ExactCharacter& c = crowd[i];
        for (int k = 0; k < 3; ++k) {
          const Clip& clip = *s->exact[k];
          sample(clip, skeleton.rest_pose(), time_of(i, frame, clip.duration()), c.cursors[k],
                 c.layers[k]);
        }
        const BlendLayer layers[] = {{c.layers[0], weights[0], {}},
                                     {c.layers[1], weights[1], {}},
                                     {c.layers[2], weights[2], {}}};
        BlendJob blend;
        blend.rest_pose = skeleton.rest_pose();
        blend.layers = layers;
        blend.output = c.local;
        blend.run();
        local_to_model(skeleton, c.local, c.model);
        benchmark::DoNotOptimize(c.model.data());
      }
      ++frame;
    }
  } else {
    if (!use_level(state, static_cast<int>(state.range(0)))) return;
    std::vector<CompiledCharacter> crowd(kCharacters);
    for (CompiledCharacter& c : crowd) {
      for (int k = 0; k < 3; ++k) c.layers.emplace_back(soa_group_count(n));
      c.local.resize(soa_group_count(n));
      c.model.resize(n);
    }
    FrameJobs jobs(skeleton);
    CompiledSamplingJob& sample_job = jobs.sample;
    SoaBlendJob& blend = jobs.blend;
    SoaLocalToModelJob& model_job = jobs.to_model;
    for (auto _ : state) {
      for (std::size_t i = 0; i < kCharacters; ++i) {
        CompiledCharacter& c = crowd[i];
        for (int k = 0; k < 3; ++k) {
          sample_job.clip = &s->compiled[k];
          sample_job.time = time_of(i, frame, s->compiled[k].duration());
          sample_job.output = c.layers[k];
          sample_job.run();
        }
        const SoaBlendLayer layers[] = {{c.layers[0], weights[0], {}},
                                        {c.layers[1], weights[1], {}},
                                        {c.layers[2], weights[2], {}}};
        blend.layers = layers;
        blend.output = c.local;
        blend.run();
        model_job.local = c.local;
        model_job.model = c.model;
        model_job.run();
        benchmark::DoNotOptimize(c.model.data());
      }
      ++frame;
    }
    set_simd_level(detected_simd_level());
  }
  state.SetItemsProcessed(state.iterations() * kCharacters);
}
BENCHMARK(BM_Crowd_Blend3)->ArgName("level")->DenseRange(-1, 3);

// 40,000 characters, each blending Walk and Run (the two layers of a walk-to-run locomotion blend,
// at a weight of its own, both clips at the same phase so the feet stay in step), then
// local-to-model into model matrices it owns (174 MB for the crowd: far out of cache, as a real
// crowd's are). Layer and blended poses are scratch per thread; compiled clips carry no
// per-character state (their sampling contexts hold hints for exact-key tracks only, and Walk and
// Run have none). range(0) threads, the calling one included, each taking an equal slice. One
// iteration is one frame of the whole crowd (its wall-clock time is the Time column);
// `characters_at_60Hz` is how many characters that rate would fit in 1/60 s.
void BM_Crowd40k(benchmark::State& state) {
  const Soldier* s = soldier();
  if (!s) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  constexpr std::size_t kCrowd = 40000;
  const Skeleton& skeleton = s->asset->skeleton;
  const std::size_t n = skeleton.size(), groups = soa_group_count(n);
  const CompiledClip& walk = s->compiled[1];
  const CompiledClip& run = s->compiled[2];
  std::vector<Mat4> model(kCrowd * n);
  std::vector<float> run_weight(kCrowd);
  for (std::size_t c = 0; c < kCrowd; ++c) {
    run_weight[c] = 0.5f + 0.5f * std::sin(static_cast<float>(c) * 0.37f);
  }
  struct Scratch {
    std::vector<SoaTransform> walk, run, local;
    std::vector<Mat4> model;
  };
  // range(1) = 1 writes every character's model matrices into one per-thread buffer instead:
  // not what a game can do, but it shows what the crowd's memory traffic costs.
  const bool shared_model = state.range(1) != 0;
  // range(2) = 1 streams the model matrices out (SoaLocalToModelJob::streaming).
  const bool streaming = state.range(2) != 0;
  const std::size_t threads = static_cast<std::size_t>(state.range(0));
  std::vector<Scratch> scratch(threads);
  ThreadPool pool(threads);
  std::uint64_t frame = 0;
  for (Scratch& m : scratch) {
    m.walk.resize(groups);
    m.run.resize(groups);
    m.local.resize(groups);
    m.model.resize(n);
  }
  // Thread i updates the i-th slice of the crowd with scratch i (equal work per character).
  auto update = [&](std::size_t slice) {
    Scratch* const mine = &scratch[slice];
    const std::size_t first = slice * kCrowd / threads, last = (slice + 1) * kCrowd / threads;
    FrameJobs jobs(skeleton);
    CompiledSamplingJob& sample_job = jobs.sample;
    SoaBlendJob& blend = jobs.blend;
    SoaLocalToModelJob& model_job = jobs.to_model;
    model_job.streaming = streaming;
    for (std::size_t c = first; c < last; ++c) {
      const float phase = std::fmod(static_cast<float>(c) * 0.173f + frame * kFrame, 1.0f);
      sample_job.clip = &walk;
      sample_job.time = phase * walk.duration();
      sample_job.output = mine->walk;
      sample_job.run();
      sample_job.clip = &run;
      sample_job.time = phase * run.duration();
      sample_job.output = mine->run;
      sample_job.run();
      const SoaBlendLayer layers[] = {{mine->walk, 1.0f - run_weight[c], {}},
                                      {mine->run, run_weight[c], {}}};
      blend.layers = layers;
      blend.output = mine->local;
      blend.run();
      model_job.local = mine->local;
      model_job.model = shared_model ? std::span(mine->model) : std::span(model).subspan(c * n, n);
      model_job.run();
    }
  };
  for (auto _ : state) {
    pool.parallel_for(threads, update);
    benchmark::DoNotOptimize(model.data());
    ++frame;
  }
  state.SetItemsProcessed(state.iterations() * kCrowd);
  state.counters["characters_at_60Hz"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kCrowd / 60.0, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(to_string(active_simd_level())));
}
BENCHMARK(BM_Crowd40k)
    ->ArgNames({"threads", "shared_model", "streaming"})
    ->ArgsProduct({{1, 2}, {0, 1}, {0, 1}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// One compiled clip sampled whole, pose after pose at 60 Hz (forward playback), in each of the
// compiler's two quantizations: range(0) pack 0 (every group at 8 or 16 bits per component, or
// floats) or 1 (the default: each joint its own bits, rotations without w; kPacked);
// range(1) the clip: 0 Soldier's Walk (68 joints), 1 CMU 007_01 on Character Creator's rig (142
// joints, 60 fps). Items are poses; `bytes` is the compiled clip's size.
void BM_CompiledFormat(benchmark::State& state) {
  const bool pack = state.range(0) != 0;
  const bool cmu = state.range(1) != 0;
  std::string why;
  const Asset* asset =
      test::shared_asset(cmu ? "bvh/cmu_iclone/007_01.bvh" : "gltf/Soldier.glb", why);
  if (!asset) return state.SkipWithError(why.c_str());
  const Clip& clip = cmu ? asset->clips[0] : asset->clips[*asset->find_clip("Walk")];
  CompileOptions options;
  options.pack = pack;
  Result<CompiledClip> compiled = CompiledClip::compile(clip, asset->skeleton, options);
  if (!compiled) return state.SkipWithError(compiled.error().message.c_str());
  std::vector<SoaTransform> pose(soa_group_count(asset->skeleton.size()));
  CompiledSamplingJob job;
  job.clip = &*compiled;
  job.rest_pose = asset->skeleton.soa_rest_pose();
  job.output = pose;
  std::uint64_t frame = 0;
  for (auto _ : state) {
    job.time = std::fmod(static_cast<float>(frame++) * kFrame, compiled->duration());
    job.run();
    benchmark::DoNotOptimize(pose.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["bytes"] = static_cast<double>(compiled->size_bytes());
  state.SetLabel(std::string(to_string(active_simd_level())));
}
BENCHMARK(BM_CompiledFormat)->ArgNames({"pack", "cmu"})->ArgsProduct({{0, 1}, {0, 1}});

}  // namespace
