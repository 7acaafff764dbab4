// The code blocks of docs/retargeting.md and docs/ik.md, compiled and run in the order the docs
// give them (later blocks use what earlier ones made), in ../shared/assets/gltf so the file
// names in the docs resolve. Each block's outcome is checked after it.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "marrow/clip/sampling.h"
#include "marrow/ik/aim_ik.h"
#include "marrow/ik/foot_contacts.h"
#include "marrow/ik/foot_planting.h"
#include "marrow/ik/two_bone_ik.h"
#include "marrow/io/asset.h"
#include "marrow/io/retarget_map_json.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/retarget/retargeter.h"
#include "shared_asset.h"

namespace {

namespace fs = std::filesystem;

// Runs the test body in the assets folder and comes back.
class InAssets {
 public:
  explicit InAssets(const fs::path& dir) : previous_(fs::current_path()) { fs::current_path(dir); }
  ~InAssets() { fs::current_path(previous_); }

 private:
  fs::path previous_;
};

TEST(DocsExamples, RetargetingAndIkBlocksCompileAndRun) {
  const fs::path dir = marrow::test::shared_asset_dir() / "gltf";
  if (!fs::exists(dir / "Soldier.glb") || !fs::exists(dir / "Xbot.glb")) {
    GTEST_SKIP() << dir << " lacks Soldier.glb or Xbot.glb";
  }
  InAssets here(dir);

#include "retarget_clip.inc"
  ASSERT_TRUE(soldier.ok() && xbot.ok() && map.ok() && retargeter.ok());
  ASSERT_EQ(xbot->clips.back().name(), "Walk");
  EXPECT_EQ(xbot->clips.back().joint_count(), xbot->skeleton.size());

#include "retarget_frame.inc"
  EXPECT_TRUE(ok);
  for (const marrow::Transform& t : target_pose) EXPECT_TRUE(marrow::is_finite(t));

#include "retarget_map_json.inc"
  ASSERT_TRUE(explicit_map.ok());
  EXPECT_EQ(
      explicit_map->target_rig.found_by[static_cast<std::size_t>(marrow::HumanoidPart::kLeftToe)],
      marrow::PartSource::kExplicit);

#include "ik_two_bone.inc"
  EXPECT_TRUE(reached);
  EXPECT_LT(marrow::length(model[ankle].translation() - leg.target), 1e-4f);

#include "ik_aim.inc"
  marrow::local_to_model(skeleton, local, model);
  const marrow::Vec3 nose = marrow::transform_vector(model[look.joint], {0, 0, 1});
  const marrow::Vec3 to = look.target - model[look.joint].translation();
  EXPECT_LT(std::atan2(marrow::length(marrow::cross(nose, to)), marrow::dot(nose, to)), 1e-4f);

#include "ik_foot_planting.inc"
  ASSERT_TRUE(contacts.ok());
  EXPECT_EQ(contacts->feet.size(), 2u);
  for (const marrow::Transform& x : local) EXPECT_TRUE(marrow::is_finite(x));
  EXPECT_TRUE(planted.reached[0] || legs[0].contact == 0);
}

}  // namespace
