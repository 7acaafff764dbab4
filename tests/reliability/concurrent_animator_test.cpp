// Animators on several threads over one shared ClipSet (docs/reliability.md, "Threads"): the
// set is immutable and shared, each animator belongs to one thread. Under ThreadSanitizer this
// is the test that the sharing has no race; in the normal builds it also checks that every
// thread's animators end where a single-threaded run of the same commands ends.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "marrow/control/animator.h"
#include "marrow/control/clip_set.h"
#include "marrow/io/asset.h"
#include "shared_asset.h"

namespace marrow {
namespace {

const std::string kSoldier = marrow::test::shared_asset_path("gltf/Soldier.glb");

// One animator's life: walk, cross-fade to run, fade a second clip in, over `frames` updates.
// Returns the sum of the local pose's translations at the end, and counts the events.
struct Outcome {
  double checksum = 0;
  std::size_t events = 0;
};

Outcome drive(const std::shared_ptr<const ClipSet>& set, int index, int frames) {
  Outcome outcome;
  Animator animator = Animator::create(set).value();
  AnimatorWorkspace workspace(*set);
  std::vector<Transform> local(set->skeleton().size());
  std::vector<AnimationEvent> events(32);
  const ClipId walk = set->clip_id("Walk").value();
  const ClipId run = set->clip_id("Run").value();
  const PlayerId a = animator.play(walk, {}).value();
  // Each animator starts at its own offset, so threads do not all do the same thing.
  (void)animator.set_time(a, 0.013f * static_cast<float>(index));
  PlayerId b;
  for (int f = 0; f < frames; ++f) {
    if (f == frames / 3) {
      b = animator.play(run, {.weight = 1}).value();
      EXPECT_TRUE(animator.cross_fade(a, b, 0.25f).ok());
    }
    outcome.events += animator.update(1.0f / 60, events).events_written;
    EXPECT_TRUE(animator.evaluate(workspace, local));
  }
  for (const Transform& t : local) {
    outcome.checksum += t.translation.x + t.translation.y + t.translation.z;
  }
  return outcome;
}

TEST(ConcurrentAnimators, EightThreadsShareOneClipSetAndMatchASingleThread) {
  if (!std::filesystem::exists(kSoldier)) GTEST_SKIP() << kSoldier << " is absent";
  const Asset asset = load_asset(kSoldier).value();
  ClipSetBuilder builder(asset.skeleton);
  for (const Clip& clip : asset.clips) ASSERT_TRUE(builder.add_clip(clip).ok());
  const std::shared_ptr<const ClipSet> set = builder.build().value();

  constexpr int kThreads = 8, kPerThread = 4, kFrames = 90;
  std::vector<Outcome> expected(kThreads * kPerThread);
  for (int i = 0; i < kThreads * kPerThread; ++i) expected[i] = drive(set, i, kFrames);

  std::vector<Outcome> got(kThreads * kPerThread);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kPerThread; ++k) {
        const int i = t * kPerThread + k;
        got[i] = drive(set, i, kFrames);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kThreads * kPerThread; ++i) {
    EXPECT_EQ(got[i].events, expected[i].events) << i;
    EXPECT_EQ(got[i].checksum, expected[i].checksum) << i;
    EXPECT_TRUE(std::isfinite(got[i].checksum)) << i;
  }
}

}  // namespace
}  // namespace marrow
