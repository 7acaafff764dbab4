// Events, loops and finishes: the expected sequences are worked out by hand from the rules in
// docs/control.md ("Time and events"): a cue fires when the playhead leaves it or reaches it at a
// boundary, once per crossing.
#include <gtest/gtest.h>

#include <random>

#include "control_test_util.h"

namespace marrow::test {
namespace {

const std::vector<std::pair<float, std::string>> kEvents = {
    {0.0f, "start"}, {0.25f, "quarter"}, {0.5f, "half"}, {1.0f, "end"}};

struct EventsFixture {
  Skeleton skeleton = clock_skeleton();
  std::shared_ptr<const ClipSet> set = make_set(skeleton, {clock_clip("A", 1.0f, kEvents)});
  Animator animator = make_animator(set);
};

TEST(ControlEvents, LoopFiresEachEventOncePerPassAndBothSeamEventsAtTheSeam) {
  // Steps of 3/8 s are exact in binary, so no event sits a rounding error off a step's end.
  EventsFixture f;
  ASSERT_TRUE(f.animator.play(0, {.wrap = WrapMode::kLoop}).ok());
  expect_fired(step(f.animator, 0.375f), {ev("start", 0), ev("quarter", 0.25f)});
  expect_fired(step(f.animator, 0.375f), {ev("half", 0.125f)});
  // 0.75 -> 1.125: the pass ends at 1.0 (end), the seam (looped), the next pass starts (start).
  expect_fired(step(f.animator, 0.375f), {ev("end", 0.25f), looped(0.25f), ev("start", 0.25f)});
  // 0.125 -> 0.5: "half" sits at the open end and waits for the next update.
  expect_fired(step(f.animator, 0.375f), {ev("quarter", 0.125f)});
  expect_fired(step(f.animator, 0.125f), {ev("half", 0)});
}

TEST(ControlEvents, AHitchPassesEveryLoopAndEventExactlyOnceInOrder) {
  EventsFixture f;
  ASSERT_TRUE(f.animator.play(0).ok());
  std::vector<Fired> expected;
  for (int pass = 0; pass < 3; ++pass) {
    const float t = static_cast<float>(pass);
    expected.insert(expected.end(), {ev("start", t), ev("quarter", t + 0.25f), ev("half", t + 0.5f),
                                     ev("end", t + 1), looped(t + 1)});
  }
  expected.insert(expected.end(), {ev("start", 3), ev("quarter", 3.25f)});
  const std::vector<Fired> actual = step(f.animator, 3.35f);
  expect_fired(actual, expected);
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].pass, static_cast<std::uint32_t>(i / 5)) << i;
  }
  EXPECT_EQ(f.animator.info(f.animator.player(0)).passes, 3u);
}

TEST(ControlEvents, BackwardsPlayStartsAtTheEndAndFiresInReverse) {
  EventsFixture f;
  ASSERT_TRUE(f.animator.play(0, {.time_scale = -1}).ok());
  expect_fired(step(f.animator, 0.3f), {ev("end", 0)});
  expect_fired(step(f.animator, 0.3f), {ev("half", 0.2f)});
  expect_fired(step(f.animator, 0.3f), {ev("quarter", 0.15f)});
  // 0.1 -> -0.2: reaches 0 (start), the seam, and goes on from the end (end).
  expect_fired(step(f.animator, 0.3f), {ev("start", 0.1f), looped(0.1f), ev("end", 0.1f)});
}

TEST(ControlEvents, PingPongFiresTheTurningPointOnce) {
  EventsFixture f;
  ASSERT_TRUE(f.animator.play(0, {.wrap = WrapMode::kPingPong}).ok());
  expect_fired(step(f.animator, 0.375f), {ev("start", 0), ev("quarter", 0.25f)});
  expect_fired(step(f.animator, 0.375f), {ev("half", 0.125f)});
  expect_fired(step(f.animator, 0.375f), {ev("end", 0.25f), looped(0.25f)});  // turns at 1.0
  expect_fired(step(f.animator, 0.375f), {});                                 // 0.875 -> 0.5
  expect_fired(step(f.animator, 0.375f), {ev("half", 0), ev("quarter", 0.25f)});
  expect_fired(step(f.animator, 0.375f), {ev("start", 0.125f), looped(0.125f)});  // turns at 0
  expect_fired(step(f.animator, 0.375f), {ev("quarter", 0), ev("half", 0.25f)});
}

TEST(ControlEvents, ClampFinishesOnceAtTheEndAndFiresTheEndEvent) {
  EventsFixture f;
  ASSERT_TRUE(f.animator.play(0, {.wrap = WrapMode::kClamp}).ok());
  expect_fired(step(f.animator, 0.6f), {ev("start", 0), ev("quarter", 0.25f), ev("half", 0.5f)});
  expect_fired(step(f.animator, 0.6f), {ev("end", 0.4f), finished(0.4f)});
  expect_fired(step(f.animator, 0.6f), {});
  EXPECT_TRUE(f.animator.info(f.animator.player(0)).finished);
  // Reversing leaves the end without firing it again, and finishes at 0.
  ASSERT_TRUE(f.animator.set_time_scale(f.animator.player(0), -1));
  expect_fired(step(f.animator, 0.6f), {ev("half", 0.5f)});
  expect_fired(step(f.animator, 0.6f), {ev("quarter", 0.15f), ev("start", 0.4f), finished(0.4f)});
}

TEST(ControlEvents, RepetitionsCountPassesAndFinishAtTheLastBoundary) {
  EventsFixture f;
  ASSERT_TRUE(f.animator.play(0, {.repetitions = 2}).ok());
  expect_fired(step(f.animator, 0.7f), {ev("start", 0), ev("quarter", 0.25f), ev("half", 0.5f)});
  expect_fired(step(f.animator, 0.7f),
               {ev("end", 0.3f), looped(0.3f), ev("start", 0.3f), ev("quarter", 0.55f)});
  expect_fired(step(f.animator, 0.7f), {ev("half", 0.1f), ev("end", 0.6f), finished(0.6f)});
  expect_fired(step(f.animator, 0.7f), {});
}

TEST(ControlEvents, PingPongRepetitionsCountEachDirection) {
  EventsFixture f;
  ASSERT_TRUE(f.animator.play(0, {.wrap = WrapMode::kPingPong, .repetitions = 2}).ok());
  // Forward pass, turn, backward pass to 0 and finish: one big update.
  expect_fired(step(f.animator, 5.0f),
               {ev("start", 0), ev("quarter", 0.25f), ev("half", 0.5f), ev("end", 1), looped(1),
                ev("half", 1.5f), ev("quarter", 1.75f), ev("start", 2), finished(2)});
}

TEST(ControlEvents, StartOffsetStartsMidClipAndCountsThePartialPass) {
  EventsFixture f;
  ASSERT_TRUE(f.animator.play(0, {.repetitions = 1, .start_offset = 0.4f}).ok());
  expect_fired(step(f.animator, 1.0f), {ev("half", 0.1f), ev("end", 0.6f), finished(0.6f)});
}

TEST(ControlEvents, EventsOfSeveralPlayersComeInTimeOrder) {
  Skeleton skeleton = clock_skeleton();
  auto set =
      make_set(skeleton, {clock_clip("A", 1, {{0.5f, "a"}}), clock_clip("B", 1, {{0.4f, "b"}})});
  Animator animator = make_animator(set);
  ASSERT_TRUE(animator.play(0).ok());
  ASSERT_TRUE(animator.play(1, {.time_scale = 2}).ok());
  // A reaches 0.5 at 0.5 s and its seam at 1 s; B (twice as fast) 0.4 at 0.2 and 0.7 s, seams at
  // 0.5 and 1 s. Ties go in player order.
  expect_fired(step(animator, 1.0f), {ev("b", 0.2f), ev("a", 0.5f), looped(0.5f), ev("b", 0.7f),
                                      looped(1.0f), looped(1.0f)});
}

TEST(ControlEvents, SplittingAnUpdateNeverChangesWhatFires) {
  // However 7.3 s of play is cut into updates, the same events fire in the same order: each once
  // per crossing, for every wrap mode and direction.
  for (WrapMode wrap : {WrapMode::kLoop, WrapMode::kPingPong, WrapMode::kClamp}) {
    for (float scale : {1.0f, -1.3f}) {
      EventsFixture one;
      ASSERT_TRUE(one.animator.play(0, {.time_scale = scale, .wrap = wrap}).ok());
      std::vector<AnimationEvent> buffer(256);
      const UpdateResult r = one.animator.update(7.3f, buffer);
      std::vector<std::string> expected;
      for (std::size_t i = 0; i < r.events_written; ++i) {
        expected.push_back(std::string(to_string(buffer[i].type)) + std::string(buffer[i].name) +
                           std::to_string(buffer[i].pass));
      }
      std::mt19937 random(7);
      EventsFixture split;
      ASSERT_TRUE(split.animator.play(0, {.time_scale = scale, .wrap = wrap}).ok());
      std::vector<std::string> actual;
      float left = 7.3f;
      while (left > 0) {
        const float dt = std::min(left, std::uniform_real_distribution<float>(0, 0.7f)(random));
        left -= dt;
        const UpdateResult s = split.animator.update(dt, buffer);
        for (std::size_t i = 0; i < s.events_written; ++i) {
          actual.push_back(std::string(to_string(buffer[i].type)) + std::string(buffer[i].name) +
                           std::to_string(buffer[i].pass));
        }
      }
      EXPECT_EQ(actual, expected) << "wrap " << static_cast<int>(wrap) << " scale " << scale;
    }
  }
}

TEST(ControlEvents, EventsFromTheSetAndFromTheFileFireTogether) {
  Skeleton skeleton = clock_skeleton();
  ClipSetBuilder b(skeleton);
  ASSERT_TRUE(b.add_clip(clock_clip("A", 1, {{0.5f, "from file"}})).ok());
  ASSERT_TRUE(b.add_event("A", 0.3f, "in code").ok());
  EXPECT_FALSE(b.add_event("A", 1.5f, "late").ok());
  EXPECT_FALSE(b.add_event("B", 0.5f, "nowhere").ok());
  auto set = b.build().value();
  Animator animator = make_animator(set);
  ASSERT_TRUE(animator.play(0).ok());
  expect_fired(step(animator, 0.6f), {ev("in code", 0.3f), ev("from file", 0.5f)});
}

TEST(ControlEvents, ACallbackSeesEveryEventAndMayStartPlayers) {
  EventsFixture f;
  ASSERT_TRUE(f.animator.play(0).ok());
  struct Seen {
    Animator* animator;
    int count = 0;
    bool nested_refused = false;
  } seen{&f.animator};
  const UpdateResult r = f.animator.update(
      2.5f,
      [](const AnimationEvent& e, void* user) {
        Seen& s = *static_cast<Seen*>(user);
        ++s.count;
        if (e.type == EventType::kLooped) {
          s.nested_refused = s.animator->update(0.1f).refused;
          (void)s.animator->play(0, {.weight = 0.5f});
        }
      },
      &seen);
  EXPECT_EQ(r.events, static_cast<std::size_t>(seen.count));
  EXPECT_EQ(seen.count, 4 * 2 + 2 + 2);  // two passes, two seams, start and quarter of the third
  EXPECT_TRUE(seen.nested_refused);
  EXPECT_EQ(f.animator.player_count(), 3u);  // one started per seam
}

TEST(ControlEvents, AShortBufferGetsTheFirstEventsAndTheCountOfAll) {
  EventsFixture f;
  ASSERT_TRUE(f.animator.play(0).ok());
  std::vector<AnimationEvent> buffer(3);
  const UpdateResult r = f.animator.update(2.1f, buffer);
  EXPECT_EQ(r.events, 11u);  // two passes of 4 and their seams, then "start" of the third
  EXPECT_EQ(r.events_written, 3u);
  EXPECT_EQ(buffer[2].name, "half");
}

TEST(ControlEvents, MarkersFireAsEventsOnlyWhenAsked) {
  Skeleton skeleton = clock_skeleton();
  ClipSetBuilder b(skeleton);
  ASSERT_TRUE(b.add_clip(clock_clip("A", 1)).ok());
  ASSERT_TRUE(b.add_marker("A", 0.2f, "foot").ok());
  auto set = b.build().value();
  Animator quiet = make_animator(set);
  Animator loud = make_animator(set, {.marker_events = true});
  ASSERT_TRUE(quiet.play(0).ok());
  ASSERT_TRUE(loud.play(0).ok());
  expect_fired(step(quiet, 0.5f), {});
  const std::vector<Fired> f = step(loud, 0.5f);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].type, EventType::kMarker);
  EXPECT_EQ(f[0].name, "foot");
}

TEST(ControlEvents, AZeroLengthClipFiresItsEventsAndFinishesOnce) {
  Skeleton skeleton = clock_skeleton();
  auto set = make_set(skeleton, {clock_clip("pose", 0, {{0, "shown"}})});
  Animator animator = make_animator(set);
  ASSERT_TRUE(animator.play(0).ok());
  expect_fired(step(animator, 0.1f), {ev("shown", 0), finished(0)});
  expect_fired(step(animator, 0.1f), {});
}

TEST(ControlEvents, HugeUpdatesAreBoundedAndCountWhatTheySkip) {
  Skeleton skeleton = clock_skeleton();
  auto set = make_set(skeleton, {clock_clip("blink", 0.001f, {{0.0005f, "tick"}})});
  Animator animator = make_animator(set);
  ASSERT_TRUE(animator.play(0, {.time_scale = 1000}).ok());
  const UpdateResult r = animator.update(kMaxDeltaTime);  // 3.6e9 loops asked for
  EXPECT_GT(r.skipped_crossings, 0u);
  EXPECT_LE(r.events, 3u * kMaxCrossingsPerUpdate + 3);
  const UpdateResult bad = animator.update(std::numeric_limits<float>::infinity());
  EXPECT_TRUE(bad.dt_clamped);
  EXPECT_EQ(bad.events, 0u);
  EXPECT_TRUE(animator.update(std::nanf("")).dt_clamped);
  EXPECT_TRUE(animator.update(-1).dt_clamped);
}

}  // namespace
}  // namespace marrow::test
