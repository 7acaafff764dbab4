// Players: time, speed, ticks per second, wrap, fades, cross-fades, warps, weights, layers and
// bad input. The clock clips' "clock" joint sits at x = clip time, so a pose says which time was
// sampled; expected values are computed by hand from the definitions.
#include <gtest/gtest.h>

#include <cmath>

#include "control_test_util.h"
#include "marrow/pose/mask.h"

namespace marrow::test {
namespace {

struct PlayersFixture {
  Skeleton skeleton = clock_skeleton();
  std::shared_ptr<const ClipSet> set =
      make_set(skeleton, {clock_clip("two", 2.0f), clock_clip("ten", 10.0f)});
  Animator animator = make_animator(set);
  AnimatorWorkspace workspace{*set};
};

TEST(ControlPlayers, TimeAdvancesByDtTimesTheTimeScale) {
  PlayersFixture f;
  const PlayerId p = f.animator.play(0).value();
  f.animator.update(0.5f);
  EXPECT_FLOAT_EQ(clock_reading(f.animator, f.workspace), 0.5f);
  EXPECT_TRUE(f.animator.set_time_scale(p, 2));
  f.animator.update(0.25f);
  EXPECT_FLOAT_EQ(clock_reading(f.animator, f.workspace), 1.0f);
  EXPECT_TRUE(f.animator.set_time(p, 1.5f).ok());
  EXPECT_FLOAT_EQ(clock_reading(f.animator, f.workspace), 1.5f);
  f.animator.update(0.5f);  // 1.5 + 1.0 wraps to 0.5
  EXPECT_FLOAT_EQ(clock_reading(f.animator, f.workspace), 0.5f);
  EXPECT_EQ(f.animator.info(p).passes, 1u);
}

TEST(ControlPlayers, PausedPlayersHoldTheirTimeWhileTheirFadesGoOn) {
  PlayersFixture f;
  const PlayerId p = f.animator.play(0, {.fade_in = 1}).value();
  f.animator.update(0.25f);
  EXPECT_TRUE(f.animator.set_paused(p, true));
  f.animator.update(0.5f);
  EXPECT_FLOAT_EQ(f.animator.info(p).time, 0.25f);
  EXPECT_FLOAT_EQ(f.animator.info(p).fade, 0.75f);
  EXPECT_TRUE(f.animator.info(p).paused);
}

TEST(ControlPlayers, NegativeTimeScaleStartsFromTheEndMinusTheOffset) {
  PlayersFixture f;
  const PlayerId p = f.animator.play(0, {.time_scale = -1, .start_offset = 0.5f}).value();
  EXPECT_FLOAT_EQ(f.animator.info(p).time, 1.5f);
  f.animator.update(0.25f);
  EXPECT_FLOAT_EQ(clock_reading(f.animator, f.workspace), 1.25f);
}

TEST(ControlPlayers, TicksPerSecondOverrideScalesAClipThatCountsTicks) {
  Skeleton skeleton = clock_skeleton();
  ClipBuilder b("ticks");
  b.set_ticks_per_second(4800);
  const float times[] = {0, 2}, values[] = {0, 1, 0, 2, 1, 0};
  ASSERT_TRUE(b.add_track(1, "clock", TrackTarget::kTranslation, Interpolation::kLinear, times,
                          values, "ticks")
                  .ok());
  auto set = make_set(skeleton, {b.build(3, "ticks").value(), clock_clip("seconds", 2)});
  Animator animator = make_animator(set);
  AnimatorWorkspace workspace(*set);
  // The clip's 2 s are 9600 ticks; counted at 9600 ticks per second they last 1 s.
  const PlayerId p = animator.play(0, {.ticks_per_second = 9600}).value();
  animator.update(0.25f);
  EXPECT_FLOAT_EQ(clock_reading(animator, workspace), 0.5f);
  EXPECT_TRUE(animator.set_ticks_per_second(p, 2400));  // half speed
  animator.update(0.5f);
  EXPECT_FLOAT_EQ(clock_reading(animator, workspace), 0.75f);
  EXPECT_FALSE(animator.set_ticks_per_second(p, -1));  // back to the clip's own rate
  animator.update(0.25f);
  EXPECT_FLOAT_EQ(clock_reading(animator, workspace), 1.0f);
  // A clip that counts seconds has no ticks to override: its rate stays.
  animator.stop_all();
  ASSERT_TRUE(animator.play(1, {.ticks_per_second = 9600}).ok());
  animator.update(0.25f);
  EXPECT_FLOAT_EQ(clock_reading(animator, workspace), 0.25f);
}

TEST(ControlPlayers, LinearAndSmoothFadesFollowTheirCurves) {
  PlayersFixture f;
  const PlayerId a = f.animator.play(0, {.weight = 0.5f, .fade_in = 1}).value();
  const PlayerId b = f.animator.play(1, {.fade_in = 1, .fade_curve = FadeCurve::kSmooth}).value();
  EXPECT_FLOAT_EQ(f.animator.effective_weight(a), 0);
  f.animator.update(0.25f);
  EXPECT_FLOAT_EQ(f.animator.info(a).fade, 0.25f);
  EXPECT_FLOAT_EQ(f.animator.effective_weight(a), 0.125f);  // weight 0.5 x fade 0.25
  // Smooth: 3u^2 - 2u^3 at u = 1/4 is 3/16 - 2/64 = 0.15625.
  EXPECT_FLOAT_EQ(f.animator.info(b).fade, 0.15625f);
  f.animator.update(1);
  EXPECT_FLOAT_EQ(f.animator.info(a).fade, 1);
  EXPECT_FLOAT_EQ(f.animator.info(b).fade, 1);
}

TEST(ControlPlayers, CrossFadeWeightsSumToOneAndTheOldPlayerStops) {
  PlayersFixture f;
  const PlayerId a = f.animator.play(0).value();
  f.animator.update(0.1f);
  const PlayerId b = f.animator.play(1).value();
  ASSERT_TRUE(f.animator.cross_fade(a, b, 1.0f, FadeCurve::kSmooth).ok());
  for (int i = 1; i <= 3; ++i) {
    f.animator.update(0.25f);
    const float u = 0.25f * i, s = u * u * (3 - 2 * u);
    EXPECT_NEAR(f.animator.effective_weight(a), 1 - s, 1e-6f);
    EXPECT_NEAR(f.animator.effective_weight(b), s, 1e-6f);
  }
  f.animator.update(0.25f);
  EXPECT_FALSE(f.animator.is_playing(a));
  EXPECT_FLOAT_EQ(f.animator.effective_weight(b), 1);
}

TEST(ControlPlayers, AFadeThatInterruptsAFadeStartsWhereItWas) {
  PlayersFixture f;
  const PlayerId a = f.animator.play(0).value();
  ASSERT_TRUE(f.animator.fade_out(a, 1.0f).ok());
  f.animator.update(0.375f);
  EXPECT_FLOAT_EQ(f.animator.info(a).fade, 0.625f);
  ASSERT_TRUE(f.animator.fade_in(a, 0.5f).ok());
  f.animator.update(0.25f);  // halfway from 0.625 to 1
  EXPECT_FLOAT_EQ(f.animator.info(a).fade, 0.8125f);
  // Cross-fading back and forth: both go on from their current factors.
  const PlayerId b = f.animator.play(1).value();
  ASSERT_TRUE(f.animator.cross_fade(a, b, 1.0f).ok());
  f.animator.update(0.5f);
  EXPECT_FLOAT_EQ(f.animator.info(a).fade, 0.40625f);  // 0.8125 halfway to 0
  EXPECT_FLOAT_EQ(f.animator.info(b).fade, 0.5f);      // b was fresh: from 0
  ASSERT_TRUE(f.animator.cross_fade(b, a, 1.0f).ok());
  f.animator.update(0.5f);
  EXPECT_FLOAT_EQ(f.animator.info(a).fade, 0.703125f);  // 0.40625 halfway to 1
  EXPECT_FLOAT_EQ(f.animator.info(b).fade, 0.25f);      // 0.5 halfway to 0
}

TEST(ControlPlayers, WarpRampsTheTimeScaleAndIntegratesItExactly) {
  PlayersFixture f;
  const PlayerId p = f.animator.play(1, {.wrap = WrapMode::kClamp}).value();
  ASSERT_TRUE(f.animator.warp(p, 3, 1).ok());
  for (int i = 0; i < 4; ++i) f.animator.update(0.25f);
  // The scale goes 1 -> 3 over 1 s: the clip moved by the ramp's area, (1 + 3) / 2 = 2 s.
  EXPECT_NEAR(clock_reading(f.animator, f.workspace), 2.0f, 1e-5f);
  EXPECT_FLOAT_EQ(f.animator.info(p).time_scale, 3);
  f.animator.update(0.5f);
  EXPECT_NEAR(clock_reading(f.animator, f.workspace), 3.5f, 1e-5f);
  // A warp past its end within one update: half ramp (3 -> 1 over 0.5 s: 1 s), then 0.5 s at 1.
  ASSERT_TRUE(f.animator.warp(p, 1, 0.5f).ok());
  f.animator.update(1.0f);
  EXPECT_NEAR(clock_reading(f.animator, f.workspace), 5.0f, 1e-5f);
}

TEST(ControlPlayers, WeightsBlendThePosesOfNormalLayers) {
  PlayersFixture f;
  const PlayerId a = f.animator.play(0, {.weight = 0.25f, .start_offset = 0.2f}).value();
  ASSERT_TRUE(f.animator.play(1, {.weight = 0.75f, .start_offset = 0.6f}).ok());
  EXPECT_NEAR(clock_reading(f.animator, f.workspace), 0.25f * 0.2f + 0.75f * 0.6f, 1e-6f);
  // NaN is ignored, a negative weight clamps to 0.
  EXPECT_FALSE(f.animator.set_weight(a, std::nanf("")));
  EXPECT_FLOAT_EQ(f.animator.info(a).weight, 0.25f);
  EXPECT_FALSE(f.animator.set_weight(a, -2));
  EXPECT_FLOAT_EQ(f.animator.info(a).weight, 0);
  EXPECT_NEAR(clock_reading(f.animator, f.workspace), 0.6f, 1e-6f);
}

TEST(ControlPlayers, AnOverrideLayerReplacesItsMaskedJointsByItsWeight) {
  Skeleton skeleton = clock_skeleton();
  ClipBuilder b("lift");
  const float times[] = {0}, values[] = {5, 1, 0};
  ASSERT_TRUE(b.add_track(2, "tip", TrackTarget::kTranslation, Interpolation::kLinear, times,
                          values, "lift")
                  .ok());
  ClipSetBuilder builder(skeleton);
  ASSERT_TRUE(builder.add_clip(clock_clip("base", 2)).ok());
  ASSERT_TRUE(builder.add_clip(b.build(3, "lift").value()).ok());
  ASSERT_TRUE(builder.add_mask("tip only", mask_from_names(skeleton, {"tip"}).value()).ok());
  auto set = builder.build().value();
  AnimatorOptions options;
  options.layers = {{"base"}, {"upper", LayerMode::kOverride, 1, set->mask_id("tip only").value()}};
  Animator animator = make_animator(set, options);
  AnimatorWorkspace workspace(*set);
  ASSERT_TRUE(animator.play(0, {.start_offset = 0.5f}).ok());
  const PlayerId lift = animator.play(1, {.layer = 1, .weight = 0.5f}).value();
  std::vector<Transform> pose(3);
  ASSERT_TRUE(animator.evaluate(workspace, std::span<Transform>(pose)));
  EXPECT_FLOAT_EQ(pose[1].translation.x, 0.5f);  // outside the mask: the base layer's
  EXPECT_FLOAT_EQ(pose[2].translation.x, 2.5f);  // lerp(0, 5, 0.5)
  EXPECT_TRUE(animator.set_layer_weight(1, 0.5f));
  ASSERT_TRUE(animator.evaluate(workspace, std::span<Transform>(pose)));
  EXPECT_FLOAT_EQ(pose[2].translation.x, 1.25f);  // weight 0.5 x layer 0.5
  ASSERT_TRUE(animator.set_weight(lift, 1));
  ASSERT_TRUE(animator.evaluate(workspace, std::span<Transform>(pose)));
  EXPECT_FLOAT_EQ(pose[2].translation.x, 2.5f);
}

TEST(ControlPlayers, StaleIdsReachNothing) {
  PlayersFixture f;
  const PlayerId a = f.animator.play(0).value();
  EXPECT_TRUE(f.animator.stop(a));
  const PlayerId b = f.animator.play(1).value();  // the same slot, a new generation
  EXPECT_NE(a, b);
  EXPECT_FALSE(f.animator.is_playing(a));
  EXPECT_FALSE(f.animator.set_weight(a, 0.5f));
  EXPECT_FALSE(f.animator.stop(a));
  EXPECT_FALSE(f.animator.set_time(a, 0).ok());
  EXPECT_FALSE(f.animator.fade_out(a, 1).ok());
  EXPECT_FALSE(f.animator.info(a).active);
  EXPECT_TRUE(f.animator.is_playing(b));
}

TEST(ControlPlayers, BadInputIsAClearErrorOrADocumentedClamp) {
  PlayersFixture f;
  const auto message = [](const auto& r) { return r.ok() ? std::string() : r.error().message; };
  EXPECT_NE(message(f.animator.play(7)).find("not in the clip set"), std::string::npos);
  EXPECT_NE(message(f.animator.play(0, {.layer = 3})).find("layer 3"), std::string::npos);
  EXPECT_NE(message(f.animator.play(0, {.weight = -1})).find("weight"), std::string::npos);
  EXPECT_NE(message(f.animator.play(0, {.time_scale = INFINITY})).find("time scale"),
            std::string::npos);
  EXPECT_NE(message(f.animator.play(0, {.start_offset = NAN})).find("start offset"),
            std::string::npos);
  EXPECT_NE(message(f.animator.play(0, {.fade_in = -1})).find("fade-in"), std::string::npos);
  EXPECT_NE(message(f.animator.play(0, {.sync_group = 0})).find("sync group 0"), std::string::npos);
  const PlayerId p = f.animator.play(0).value();
  EXPECT_NE(message(f.animator.fade_out(p, -1)).find("negative"), std::string::npos);
  EXPECT_NE(message(f.animator.warp(p, 1, NAN)).find("duration"), std::string::npos);
  EXPECT_NE(message(f.animator.set_time(p, NAN)).find("not finite"), std::string::npos);
  EXPECT_NE(message(f.animator.inertialize(p, p, 1)).find("inertialization"), std::string::npos);
  EXPECT_FALSE(f.animator.set_time_scale(p, NAN));
  EXPECT_FLOAT_EQ(f.animator.info(p).time_scale, 1);
  for (int i = 1; i < 8; ++i) ASSERT_TRUE(f.animator.play(1).ok());
  EXPECT_NE(message(f.animator.play(1)).find("all 8 players are in use"), std::string::npos);
  // Nothing turns into NaN in the pose.
  f.animator.update(NAN);
  f.animator.update(1e30f);
  std::vector<Transform> pose(3);
  ASSERT_TRUE(f.animator.evaluate(f.workspace, std::span<Transform>(pose)));
  for (const Transform& t : pose) EXPECT_TRUE(is_finite(t));
  // A workspace made for fewer players is refused, not overrun.
  AnimatorWorkspace small(*f.set, 2);
  EXPECT_FALSE(f.animator.evaluate(small, std::span<Transform>(pose)));
  EXPECT_FALSE(Animator::create(nullptr).ok());
  EXPECT_FALSE(Animator::create(f.set, {.max_players = 0}).ok());
  EXPECT_FALSE(Animator::create(f.set, {.layers = {{"x", LayerMode::kNormal, 1, 5}}}).ok());
}

TEST(ControlPlayers, AdditiveClipsPlayOnlyOnAdditiveLayers) {
  Skeleton skeleton = clock_skeleton();
  ClipSetBuilder b(skeleton);
  ASSERT_TRUE(b.add_clip(clock_clip("base", 2)).ok());
  ASSERT_TRUE(b.add_clip(clock_clip("delta", 2), {.additive = true}).ok());
  auto set = b.build().value();
  AnimatorOptions options;
  options.layers = {{"base"}, {"add", LayerMode::kAdditive, 1}};
  Animator animator = make_animator(set, options);
  AnimatorWorkspace workspace(*set);
  EXPECT_FALSE(animator.play(1, {.layer = 0}).ok());
  EXPECT_FALSE(animator.play(0, {.layer = 1}).ok());
  ASSERT_TRUE(animator.play(0, {.start_offset = 0.5f}).ok());
  const PlayerId d = animator.play(1, {.layer = 1, .weight = 0.5f, .start_offset = 1}).value();
  // The delta clip's clock translation is (t, 1, 0) as a difference: half of (1, 1, 0) added.
  std::vector<Transform> pose(3);
  ASSERT_TRUE(animator.evaluate(workspace, std::span<Transform>(pose)));
  EXPECT_FLOAT_EQ(pose[1].translation.x, 0.5f + 0.5f);
  EXPECT_FLOAT_EQ(pose[1].translation.y, 1 + 0.5f);
  EXPECT_TRUE(animator.stop(d));
}

TEST(ControlPlayers, CompiledAndExactPlaybackAgreeWithinTheCompileBound) {
  Skeleton skeleton = clock_skeleton();
  auto exact = make_set(skeleton, {clock_clip("two", 2.0f)});
  auto compiled = make_set(skeleton, {clock_clip("two", 2.0f)}, {.compile = true});
  ASSERT_NE(compiled->compiled(0), nullptr);
  Animator a = make_animator(exact), b = make_animator(compiled);
  AnimatorWorkspace wa(*exact), wb(*compiled);
  ASSERT_TRUE(a.play(0).ok());
  ASSERT_TRUE(b.play(0).ok());
  for (int i = 0; i < 20; ++i) {
    a.update(0.137f);
    b.update(0.137f);
    EXPECT_NEAR(clock_reading(a, wa), clock_reading(b, wb),
                compiled->compiled(0)->report().bound + 1e-6f);
  }
}

}  // namespace
}  // namespace marrow::test
