// Motion matching (issue 33, docs/motion_matching.md) on the CMU database the tests use
// (../shared/assets/bvh/cmu_iclone: 20 takes of walks, a jog, turns, backward and sideways
// dribbles on Character Creator's rig).
//  - BM_MotionSearch/mode:M/frames:F/start:S: one query, M = 0 brute force, M = 1 the box tree.
//    F = 0 is the CMU database; F = 1000000 is it tiled with noise (each copy's floats moved by a
//    normal draw of 0.05 normalized units) to a million frames. Queries are the ones the controller
//    asked while it ran the test course, cycled. start:1 gives the search the frame the
//    controller was playing at each query, as MotionMatcher does (same answers, a bound from the
//    outset); start:0 searches without it.
//  - BM_MotionSearchApproximate/leaves:L/frames:F: the box tree stopped after L leaves (32
//    frames each); `recall` is the share of the course's queries whose answer is the exact
//    frame, `distance_ratio` the mean of the answer's distance over the exact one's.
//  - BM_MotionMatchingCrowd/threads:T: 1,000 characters matching at 10 Hz (searches staggered
//    over the six frames of each tenth of a second) and animated at 60 Hz: per character-frame
//    the matcher's update (springs, the search when due, the inertialized switch), evaluate
//    (sample compiled clips, inertialize) and local-to-model, over T threads. One iteration is one
//    60 Hz frame of all 1,000: it must stay under 16.7 ms.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include "cmu_fixtures.h"
#include "marrow/control/motion_course.h"
#include "marrow/control/motion_matcher.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "thread_pool.h"

namespace {

using namespace marrow;

struct Cmu {
  std::shared_ptr<const MotionDatabase> database, tiled;
  std::vector<std::vector<float>> queries;
  std::vector<std::uint32_t> playing;  // per query, the frame the controller was playing
};

// The queries of one run of the course, as the controller made them, and the frames it played
// when it made them (what it gives the search as its start).
void course_queries(Cmu& c) {
  MotionMatcher matcher = MotionMatcher::create(c.database).value();
  for (const MotionCourseStep& step : standard_motion_course(*c.database, 130, 250)) {
    for (int f = 0; f < static_cast<int>(step.duration * 60); ++f) {
      matcher.set_input(step.velocity, step.yaw);
      const std::uint32_t playing = matcher.current_frame();
      if (matcher.update(1.0f / 60).searched) {
        c.queries.emplace_back(matcher.last_query().begin(), matcher.last_query().end());
        c.playing.push_back(playing);
      }
    }
  }
}

std::shared_ptr<const MotionDatabase> tile(const MotionDatabase& db, std::size_t frames) {
  std::mt19937 rng(11);
  std::normal_distribution<float> noise(0, 0.05f);
  std::vector<float> rows;
  rows.reserve(frames * db.dims());
  for (std::size_t f = 0; f < frames; ++f) {
    for (float v : db.features(static_cast<std::uint32_t>(f % db.frame_count())))
      rows.push_back(v + (f < db.frame_count() ? 0 : noise(rng)));
  }
  return MotionDatabase::from_features(db.dims(), rows, /*normalize=*/false).value();
}

const Cmu* cmu() {
  static const std::unique_ptr<Cmu> data = []() -> std::unique_ptr<Cmu> {
    auto c = std::make_unique<Cmu>();
    std::string why;
    const std::vector<const Asset*> takes = test::cmu_locomotion_takes(why);
    if (takes.empty()) return nullptr;
    const std::vector<MotionClipDesc> clips = test::cmu_locomotion_clips(takes);
    MotionSchema schema = test::cmu_locomotion_schema();
    schema.compile_clips = true;
    Result<std::shared_ptr<const MotionDatabase>> db =
        MotionDatabase::build(takes[0]->skeleton, clips, schema);
    if (!db) return nullptr;
    c->database = *db;
    course_queries(*c);
    return c;
  }();
  return data.get();
}

void BM_MotionSearch(benchmark::State& state) {
  const Cmu* data = cmu();
  if (!data) return state.SkipWithError("../shared/assets/bvh/cmu_iclone is absent");
  const auto mode =
      state.range(0) == 0 ? MotionSearchMode::kBruteForce : MotionSearchMode::kBoxTree;
  static std::shared_ptr<const MotionDatabase> tiled;
  if (state.range(1) != 0 && !tiled) tiled = tile(*data->database, 1000000);
  const MotionDatabase& db = state.range(1) == 0 ? *data->database : *tiled;
  const bool start = state.range(2) != 0;
  std::size_t next = 0, compared = 0, boxes = 0;
  for (auto _ : state) {
    const MotionMatch m =
        db.search(data->queries[next], mode, 0, start ? data->playing[next] : kNoMotionFrame);
    benchmark::DoNotOptimize(m.frame);
    compared += m.frames_compared;
    boxes += m.boxes_tested;
    next = next + 1 == data->queries.size() ? 0 : next + 1;
  }
  state.counters["frames"] = static_cast<double>(db.searchable_count());
  state.counters["compared"] =
      static_cast<double>(compared) / static_cast<double>(state.iterations());
  state.counters["boxes"] = static_cast<double>(boxes) / static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MotionSearch)
    ->ArgNames({"mode", "frames", "start"})
    ->Args({0, 0, 0})
    ->Args({1, 0, 0})
    ->Args({1, 0, 1})
    ->Args({0, 1000000, 0})
    ->Args({1, 1000000, 0})
    ->Args({1, 1000000, 1})
    ->Unit(benchmark::kMicrosecond);

void BM_MotionSearchApproximate(benchmark::State& state) {
  const Cmu* data = cmu();
  if (!data) return state.SkipWithError("../shared/assets/bvh/cmu_iclone is absent");
  static std::shared_ptr<const MotionDatabase> tiled;
  if (state.range(1) != 0 && !tiled) tiled = tile(*data->database, 1000000);
  const MotionDatabase& db = state.range(1) == 0 ? *data->database : *tiled;
  const auto budget = static_cast<std::uint32_t>(state.range(0));
  double hits = 0, ratio = 0;
  for (const std::vector<float>& q : data->queries) {
    const MotionMatch exact = db.search(q),
                      approximate = db.search(q, MotionSearchMode::kBoxTree, budget);
    hits += approximate.frame == exact.frame ? 1 : 0;
    ratio += exact.distance > 0 ? approximate.distance / exact.distance : 1;
  }
  std::size_t next = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        db.search(data->queries[next], MotionSearchMode::kBoxTree, budget).frame);
    next = next + 1 == data->queries.size() ? 0 : next + 1;
  }
  const auto queries = static_cast<double>(data->queries.size());
  state.counters["recall"] = hits / queries;
  state.counters["distance_ratio"] = ratio / queries;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MotionSearchApproximate)
    ->ArgNames({"leaves", "frames"})
    ->Args({4, 0})
    ->Args({8, 1000000})
    ->Args({16, 1000000})
    ->Args({32, 1000000})
    ->Unit(benchmark::kMicrosecond);

struct Matching {
  MotionMatcher matcher;
  std::vector<SoaTransform> local;
  std::vector<Mat4> model;
};

void BM_MotionMatchingCrowd(benchmark::State& state) {
  const Cmu* data = cmu();
  if (!data) return state.SkipWithError("../shared/assets/bvh/cmu_iclone is absent");
  constexpr std::size_t kCrowd = 1000;
  constexpr float kFrame = 1.0f / 60;
  const std::shared_ptr<const MotionDatabase>& db = data->database;
  const Skeleton& skeleton = db->skeleton();
  std::vector<Matching> crowd;
  crowd.reserve(kCrowd);
  const std::vector<MotionCourseStep> steps = standard_motion_course(*db, 130, 250);
  for (std::size_t i = 0; i < kCrowd; ++i) {
    crowd.push_back({MotionMatcher::create(db).value(),
                     std::vector<SoaTransform>(soa_group_count(skeleton.size())),
                     std::vector<Mat4>(skeleton.size())});
    const MotionCourseStep& s = steps[i % steps.size()];
    crowd.back().matcher.set_input(s.velocity, s.yaw);
    for (std::size_t f = 0; f < i % 6; ++f) crowd.back().matcher.update(kFrame);  // stagger
  }
  ThreadPool pool(static_cast<std::size_t>(state.range(0)));
  const std::size_t tasks = pool.size() * 8;
  std::vector<AnimatorWorkspace> workspaces;
  for (std::size_t t = 0; t < tasks; ++t) workspaces.emplace_back(db->clip_set(), 4);
  std::size_t frame = 0;
  for (auto _ : state) {
    pool.parallel_for(tasks, [&](std::size_t task) {
      for (std::size_t i = task * kCrowd / tasks; i < (task + 1) * kCrowd / tasks; ++i) {
        Matching& c = crowd[i];
        // Every character turns its stick a quarter turn every 2 s, at its own phase.
        const float yaw = std::numbers::pi_v<float> / 2 * static_cast<float>((frame + i) / 120 % 4);
        c.matcher.set_input(Vec3{std::sin(yaw), 0, std::cos(yaw)} * 130, yaw);
        c.matcher.update(kFrame);
        c.matcher.evaluate(workspaces[task], c.local);
        SoaLocalToModelJob{&skeleton, c.local, c.model}.run();
      }
    });
    ++frame;
  }
  state.SetItemsProcessed(state.iterations() * kCrowd);
}
BENCHMARK(BM_MotionMatchingCrowd)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
