// Sync groups and blend spaces on hand-made clips: followers placed marker to marker (the expected
// times are worked out from the marker times), leaders chosen by weight, normalized-time sync,
// blend-space weights (1D by hand, 2D by the properties barycentric weights must have).
#include <gtest/gtest.h>

#include <random>

#include "control_test_util.h"

namespace marrow::test {
namespace {

// A "walk" of 1 s with the left foot down at 0.1 and the right at 0.6, and a "run" of 0.5 s with
// them at 0.2 and 0.4.
std::shared_ptr<const ClipSet> gait_set(const Skeleton& skeleton) {
  ClipSetBuilder b(skeleton);
  EXPECT_TRUE(b.add_clip(clock_clip("walk", 1.0f)).ok());
  EXPECT_TRUE(b.add_clip(clock_clip("run", 0.5f)).ok());
  EXPECT_TRUE(b.add_clip(clock_clip("idle", 2.0f)).ok());
  EXPECT_TRUE(b.add_marker("walk", 0.1f, "left").ok());
  EXPECT_TRUE(b.add_marker("walk", 0.6f, "right").ok());
  EXPECT_TRUE(b.add_marker("run", 0.2f, "left").ok());
  EXPECT_TRUE(b.add_marker("run", 0.4f, "right").ok());
  const BlendSampleDesc samples[] = {{"idle", 0, 0, false}, {"walk", 1}, {"run", 2}};
  EXPECT_TRUE(b.add_blend_space_1d("locomotion", samples).ok());
  return b.build().value();
}

TEST(ControlSync, AFollowerSitsAtTheLeadersFractionBetweenMatchingMarkers) {
  Skeleton skeleton = clock_skeleton();
  auto set = gait_set(skeleton);
  Animator animator = make_animator(set, {.sync_groups = {SyncMode::kMarkers}});
  const PlayerId walk = animator.play(0, {.sync_group = 0}).value();
  const PlayerId run = animator.play(1, {.weight = 0.5f, .sync_group = 0}).value();
  // Walk at 0.35 is halfway from left (0.1) to right (0.6): run halfway from 0.2 to 0.4.
  animator.update(0.35f);
  EXPECT_TRUE(animator.info(run).follower);
  EXPECT_NEAR(animator.info(run).time, 0.3f, 1e-5f);
  // Walk at 0.85 is halfway from right (0.6) to the next left (1.1): run from 0.4 to 0.7, i.e.
  // 0.55, which wraps to 0.05.
  animator.update(0.5f);
  EXPECT_NEAR(animator.info(run).time, 0.05f, 1e-5f);
  EXPECT_EQ(animator.info(run).passes, 1u);
  // A hitch of three walk cycles (two steps each) is three run cycles: the follower loops as often.
  animator.update(3.0f);
  EXPECT_NEAR(animator.info(walk).time, 0.85f, 1e-4f);
  EXPECT_NEAR(animator.info(run).time, 0.05f, 1e-4f);
  EXPECT_EQ(animator.info(run).passes, 4u);
  // The heavier player leads: now run does, and walk follows its markers.
  ASSERT_TRUE(animator.set_weight(run, 2));
  animator.update(0.125f);  // run 0.05 -> 0.175: between right (0.4 - 0.5) and left (0.2)
  EXPECT_TRUE(animator.info(walk).follower);
  EXPECT_FALSE(animator.info(run).follower);
  const float f = (0.175f + 0.1f) / 0.3f;  // from run's right at -0.1 to left at 0.2
  EXPECT_NEAR(animator.info(walk).time, std::fmod(0.6f + f * 0.5f, 1.0f), 1e-4f);
  // A follower's time cannot be set; the leader's can.
  EXPECT_FALSE(animator.set_time(walk, 0.5f).ok());
  ASSERT_TRUE(animator.set_time(run, 0.3f).ok());  // halfway left -> right
  EXPECT_NEAR(animator.info(walk).time, 0.35f, 1e-5f);
}

TEST(ControlSync, ANewPlayerJoinsInPhase) {
  Skeleton skeleton = clock_skeleton();
  auto set = gait_set(skeleton);
  Animator animator = make_animator(set, {.sync_groups = {SyncMode::kMarkers}});
  ASSERT_TRUE(animator.play(0, {.sync_group = 0}).ok());
  animator.update(0.35f);
  const PlayerId run = animator.play(1, {.fade_in = 0.5f, .sync_group = 0}).value();
  EXPECT_NEAR(animator.info(run).time, 0.3f, 1e-5f);
}

TEST(ControlSync, PhaseGroupsAlignNormalizedTime) {
  Skeleton skeleton = clock_skeleton();
  auto set = gait_set(skeleton);
  Animator animator = make_animator(set, {.sync_groups = {SyncMode::kPhase}});
  ASSERT_TRUE(animator.play(2, {.sync_group = 0}).ok());  // idle has no markers: fine for phase
  const PlayerId run = animator.play(1, {.weight = 0.1f, .sync_group = 0}).value();
  animator.update(0.5f);  // idle at 0.5 of 2 s: a quarter
  EXPECT_NEAR(animator.info(run).time, 0.125f, 1e-5f);
}

TEST(ControlSync, AClipWithoutMarkersCannotJoinAMarkerGroup) {
  Skeleton skeleton = clock_skeleton();
  auto set = gait_set(skeleton);
  Animator animator = make_animator(set, {.sync_groups = {SyncMode::kMarkers}});
  Result<PlayerId> idle = animator.play(2, {.sync_group = 0});
  ASSERT_FALSE(idle.ok());
  EXPECT_NE(idle.error().message.find("no sync markers"), std::string::npos);
  EXPECT_NE(idle.error().message.find("'idle'"), std::string::npos);
}

TEST(ControlBlendSpace, OneDimensionalWeightsAreLinearBetweenNeighboursAndClampOutside) {
  Skeleton skeleton = clock_skeleton();
  auto set = gait_set(skeleton);
  const BlendSpace& space = set->blend_space(0);
  float w[3];
  const auto weights = [&](float x) {
    space.weights(x, 0, w);
    return std::vector<float>(w, w + 3);
  };
  EXPECT_EQ(weights(0.25f), (std::vector<float>{0.75f, 0.25f, 0}));
  EXPECT_EQ(weights(1.5f), (std::vector<float>{0, 0.5f, 0.5f}));
  EXPECT_EQ(weights(1.0f), (std::vector<float>{0, 1, 0}));
  EXPECT_EQ(weights(7.0f), (std::vector<float>{0, 0, 1}));
  EXPECT_EQ(weights(-3.0f), (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(weights(NAN), (std::vector<float>{1, 0, 0}));  // NaN reads as 0
  EXPECT_EQ(space.sync_mode(),
            SyncMode::kMarkers);  // idle does not sync; walk and run have markers
}

TEST(ControlBlendSpace, TwoDimensionalWeightsAreBarycentricInADelaunayTriangulation) {
  // A ring of eight directions at two speeds and the origin (idle): a direction x speed space.
  std::vector<BlendSample> samples{{0, 0, 0, true}};
  for (int ring = 1; ring <= 2; ++ring) {
    for (int k = 0; k < 8; ++k) {
      const float a = k * 3.14159265f / 4;
      samples.push_back({0, ring * std::cos(a), ring * 1.5f * std::sin(a), true});
    }
  }
  const BlendSpace space = BlendSpace::make_2d("moves", samples).value();
  const std::span<const std::uint32_t> tris = space.triangles();
  ASSERT_GT(tris.size(), 0u);
  // Delaunay: no sample lies strictly inside a triangle's circumcircle.
  for (std::size_t t = 0; t < tris.size(); t += 3) {
    const BlendSample &a = samples[tris[t]], &b = samples[tris[t + 1]], &c = samples[tris[t + 2]];
    for (const BlendSample& d : samples) {
      const double ax = a.x - d.x, ay = a.y - d.y, bx = b.x - d.x, by = b.y - d.y;
      const double cx = c.x - d.x, cy = c.y - d.y;
      const double det = (ax * ax + ay * ay) * (bx * cy - cx * by) -
                         (bx * bx + by * by) * (ax * cy - cx * ay) +
                         (cx * cx + cy * cy) * (ax * by - bx * ay);
      EXPECT_LE(det, 1e-9) << "triangle " << t / 3;
    }
  }
  std::mt19937 random(3);
  std::uniform_real_distribution<float> u(-2.5f, 2.5f);
  std::vector<float> w(samples.size());
  for (int i = 0; i < 500; ++i) {
    const float x = u(random), y = u(random) * 1.5f;
    const BlendSpace::Point p = space.weights(x, y, w);
    double sum = 0, wx = 0, wy = 0;
    int nonzero = 0;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      EXPECT_GE(w[k], 0);
      sum += w[k], wx += w[k] * samples[k].x, wy += w[k] * samples[k].y;
      nonzero += w[k] > 0;
    }
    EXPECT_NEAR(sum, 1, 1e-6);
    EXPECT_LE(nonzero, 3);
    // The weights reproduce the point used: the parameter itself inside, its clamp outside.
    EXPECT_NEAR(wx, p.x, 1e-5);
    EXPECT_NEAR(wy, p.y, 1e-5);
    const bool inside = p.x == x && p.y == y;
    if (!inside) {
      // Clamped points lie on the hull, no farther out than the outer ring's corners.
      EXPECT_LE(std::hypot(p.x, p.y / 1.5f), 2.0f + 1e-4f);
    }
  }
  // At a sample, that sample alone.
  space.weights(samples[3].x, samples[3].y, w);
  EXPECT_NEAR(w[3], 1, 1e-6f);
}

TEST(ControlBlendSpace, DegenerateSpacesAreErrors) {
  EXPECT_FALSE(BlendSpace::make_2d("line", {{0, 0, 0}, {0, 1, 1}, {0, 2, 2}}).ok());
  EXPECT_FALSE(BlendSpace::make_2d("two", {{0, 0, 0}, {0, 1, 1}}).ok());
  EXPECT_FALSE(BlendSpace::make_1d("same", {{0, 1, 0}, {1, 1, 0}}).ok());
  EXPECT_FALSE(BlendSpace::make_1d("nan", {{0, NAN, 0}, {1, 1, 0}}).ok());
  Skeleton skeleton = clock_skeleton();
  ClipSetBuilder b(skeleton);
  ASSERT_TRUE(b.add_clip(clock_clip("walk", 1)).ok());
  const BlendSampleDesc missing[] = {{"walk", 0}, {"jog", 1}};
  Status s = b.add_blend_space_1d("x", missing);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("'jog'"), std::string::npos);
}

TEST(ControlBlendSpace, APlayedSpaceBlendsItsSamplesInStep) {
  Skeleton skeleton = clock_skeleton();
  auto set = gait_set(skeleton);
  Animator animator = make_animator(set);
  AnimatorWorkspace workspace(*set);
  const PlayerId space = animator.play_blend_space(0, {.blend_x = 1.25f}).value();
  EXPECT_EQ(animator.player_count(), 1u);
  animator.update(0.35f);
  // walk 0.75, run 0.25: walk leads; run at 0.3 (halfway between its feet, like walk at 0.35).
  const float reading = clock_reading(animator, workspace);
  EXPECT_NEAR(reading, 0.75f * 0.35f + 0.25f * 0.3f, 1e-5f);
  EXPECT_NEAR(animator.info(space).time, 0.35f, 1e-5f);
  // Past 1.5, run leads.
  EXPECT_TRUE(animator.set_blend_parameter(space, 1.75f));
  animator.update(0.1f);
  const float run_time = animator.info(space).time;  // the leader's: run moved 0.1
  EXPECT_NEAR(run_time, 0.4f, 1e-4f);
  EXPECT_FALSE(animator.set_blend_parameter(space, NAN));
  EXPECT_TRUE(animator.stop(space));
  EXPECT_EQ(animator.player_count(), 0u);
}

}  // namespace
}  // namespace marrow::test
