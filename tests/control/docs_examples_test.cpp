// The code blocks of docs/control.md, compiled and run in the order the doc gives them (later
// blocks use what earlier ones made), in ../shared/assets/gltf so "Soldier.glb" resolves. Each
// block's outcome is checked after it against what the doc says it does.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "marrow/clip/sampling.h"
#include "marrow/control/animator.h"
#include "marrow/control/clip_set.h"
#include "marrow/control/state_machine.h"
#include "marrow/io/animation_script.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "marrow/skin/morph.h"

namespace {

namespace fs = std::filesystem;

class InAssets {
 public:
  explicit InAssets(const fs::path& dir) : previous_(fs::current_path()) { fs::current_path(dir); }
  ~InAssets() { fs::current_path(previous_); }

 private:
  fs::path previous_;
};

TEST(ControlDocs, TheDocsBlocksCompileAndDoWhatTheySay) {
  const fs::path dir = marrow::test::shared_asset_dir() / "gltf";
  if (!fs::exists(dir / "Soldier.glb")) GTEST_SKIP() << dir << " lacks Soldier.glb";
  InAssets here(dir);

#include "control_setup.inc"
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(set->clip_count(), 4u);
  EXPECT_NE(set->compiled(set->clip_id("Walk").value()), nullptr);
  EXPECT_TRUE(set->has_root_motion());

#include "control_play.inc"
  EXPECT_EQ(animator.info(walking).passes, 1u);  // 90 frames: 1.5 s of a 1 s loop
  EXPECT_NEAR(animator.info(walking).time, 0.5f, 1e-4f);

#include "control_events.inc"
  EXPECT_EQ(steps, 1);
  EXPECT_EQ(second.events, 2u);  // "step" and the seam

#include "control_cross_fade.inc"
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_NEAR(halfway, 0.5f, 1e-5f);
  EXPECT_NEAR(animator.effective_weight(walking), 0.5f, 1e-5f);

#include "control_layers.inc"
  ASSERT_TRUE(legs.ok());
  EXPECT_NEAR(waving.effective_weight(arm), 1, 1e-6f);

#include "control_sync.inc"
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_TRUE(feet.info(run_player).follower);
  EXPECT_NEAR(feet.info(run_player).time, 0.05f + 0.5f * 0.33f, 1e-4f);

#include "control_foot_markers.inc"
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  for (const char* gait : {"Walk", "Run"}) {
    const std::span<const marrow::SyncMarker> m = stepped->markers(stepped->clip_id(gait).value());
    ASSERT_EQ(m.size(), 2u) << gait;  // one footfall per foot per cycle
    EXPECT_EQ(m[0].name, "foot_left_down");
    EXPECT_EQ(m[1].name, "foot_right_down");
  }

#include "control_blend_space.inc"
  // At x = 3 only Run has weight: the space's time is Run's (weights are checked in sync_test).
  EXPECT_NEAR(mover.info(moving).duration, set->duration(set->clip_id("Run").value()), 1e-6f);
  for (const marrow::SoaTransform& g : local) {
    for (std::size_t l = 0; l < marrow::kSoaWidth; ++l) EXPECT_TRUE(marrow::is_finite(g.get(l)));
  }

#include "control_root_motion.inc"
  ASSERT_TRUE(walked.ok());
  EXPECT_NEAR(world.translation.x, 10 * 0.000514541f, 2e-5f);
  EXPECT_NEAR(world.translation.z, 10 * -0.00102028f, 2e-5f);

#include "control_inertialization.inc"
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_FALSE(switcher.is_playing(idle));

#include "control_state_machine.inc"
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(machine.current_state_name(), "Move");

#include "control_morph_weights.inc"
  {
    // One player at full weight gives its clip's weights exactly (the exact sampler with a
    // fresh cursor says what they are), except the slots driven by hand: slot 1 set, slot 0
    // halfway (0.25 of 0.5 s) from the clip's weight at 1.25 s to 1.
    ASSERT_TRUE(added.ok()) << added.error().message;
    ASSERT_TRUE(square.ok());
    ASSERT_EQ(weights.size(), 2u);
    std::vector<float> expected(2);
    marrow::SamplingCursor cursor(cube.clips[0]);
    ASSERT_TRUE(
        marrow::sample_weights(cube.clips[0], layout.default_weights(), 1.25f, cursor, expected));
    EXPECT_NEAR(weights[0], 0.5f * expected[0] + 0.5f * 1.0f, 1e-6f);
    EXPECT_EQ(weights[1], 0.25f);
    EXPECT_NE(expected[0] + expected[1], 0.0f) << "the clip animates the cube at 1 s";
  }
}

}  // namespace

// docs/motion_matching.md's blocks, run where the CMU takes are.
#include <unistd.h>

#include "marrow/control/motion_matcher.h"
#include "marrow/io/motion_database_archive.h"
#include "shared_asset.h"

namespace {

TEST(MotionMatchingDocs, TheDocsBlocksCompileAndDoWhatTheySay) {
  using namespace marrow;
  const fs::path dir = marrow::test::shared_asset_dir() / "bvh" / "cmu_iclone";
  if (!fs::exists(dir / "007_01.bvh")) GTEST_SKIP() << dir << " lacks the CMU takes";
  InAssets here(dir);

#include "motion_matching_build.inc"
  ASSERT_TRUE(database.ok()) << database.error().message;
  EXPECT_EQ((*database)->dims(), 27u);

#include "motion_matching_run.inc"
  // Two seconds asked at 1.3 m/s along +Z, from standing: well over a metre along +Z, little
  // across, facing +Z.
  EXPECT_GT(world.translation.z, 120);
  EXPECT_LT(std::abs(world.translation.x), 40);
  EXPECT_LT(std::abs(matcher.yaw()), 0.5f);

  // The save block writes where the test may: a scratch folder, not ../shared.
  const fs::path scratch =
      fs::temp_directory_path() / ("marrow_motion_docs_" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  {
    InAssets there(scratch);
#include "motion_matching_save.inc"
    ASSERT_TRUE(written.ok()) << written.error().message;
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(a.frame, 100u);
    EXPECT_EQ(b.frame, a.frame);
    EXPECT_EQ(b.distance, a.distance);
  }
  fs::remove_all(scratch);

#include "motion_matching_machine.inc"
  ASSERT_TRUE(started.ok()) << started.error().message;
  EXPECT_EQ(machine.current_state_name(), "jump");
  EXPECT_FALSE(mover.searching());
  EXPECT_EQ(mover.animator().info(mover.player()).clip, moves->clip_set().find_clip("002_04"));
}

}  // namespace
