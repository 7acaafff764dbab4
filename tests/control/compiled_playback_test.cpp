// The Animator over compiled clips against the same Animator over the exact clips, on Soldier.glb:
// what the compiled path shows stays within the compile error bound (compiled_clip.h: the
// model-space distance of each joint and of virtual vertices at `distance` along its axes) of
// what the exact path shows, for one clip at arbitrary times and through a synced cross-fade
// with a masked override layer on top.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "control_test_util.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "shared_asset.h"

namespace marrow::test {
namespace {

class CompiledPlayback : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = shared_asset_path("gltf/Soldier.glb");
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
    Result<Asset> asset = load_asset(path);
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    ClipSetBuilder b(asset->skeleton);
    for (const Clip& clip : asset->clips) ASSERT_TRUE(b.add_clip(clip, {.compile = true}).ok());
    for (const char* clip : {"Walk", "Run"}) {
      ASSERT_TRUE(b.add_detected_foot_markers(
                       clip, "mixamorig:LeftFoot", "mixamorig:RightFoot",
                       {.left_toe = "mixamorig:LeftToeBase", .right_toe = "mixamorig:RightToeBase"})
                      .ok());
    }
    ASSERT_TRUE(
        b.add_mask("arm", mask_from_subtree(asset->skeleton, "mixamorig:RightShoulder").value())
            .ok());
    set_ = b.build().value();
    for (ClipId c = 0; c < set_->clip_count(); ++c) {
      ASSERT_NE(set_->compiled(c), nullptr) << set_->clip(c).name();
      bound_ = std::max(bound_, set_->compiled(c)->report().bound);
      distance_ = set_->compiled(c)->report().distance;
    }
  }

  AnimatorOptions options(bool compiled) const {
    AnimatorOptions o;
    o.prefer_compiled = compiled;
    o.layers = {{"base"}, {"arm", LayerMode::kOverride, 1, set_->mask_id("arm").value()}};
    o.sync_groups = {SyncMode::kMarkers};
    return o;
  }

  // The largest model-space distance between the two animators' joints and virtual vertices.
  float distance(Animator& a, Animator& b) {
    const Skeleton& skeleton = set_->skeleton();
    std::vector<Transform> la(skeleton.size()), lb(skeleton.size());
    std::vector<Mat4> ma(skeleton.size()), mb(skeleton.size());
    EXPECT_TRUE(a.evaluate(workspace_a_, std::span<Transform>(la)));
    EXPECT_TRUE(b.evaluate(workspace_b_, std::span<Transform>(lb)));
    EXPECT_TRUE(local_to_model(skeleton, la, ma));
    EXPECT_TRUE(local_to_model(skeleton, lb, mb));
    float worst = 0;
    for (std::size_t j = 0; j < skeleton.size(); ++j) {
      const Vec3 points[4] = {{0, 0, 0}, {distance_, 0, 0}, {0, distance_, 0}, {0, 0, distance_}};
      for (const Vec3& p : points) {
        worst = std::max(worst, length(transform_point(ma[j], p) - transform_point(mb[j], p)));
      }
    }
    return worst;
  }

  std::shared_ptr<const ClipSet> set_;
  AnimatorWorkspace workspace_a_, workspace_b_;
  float bound_ = 0, distance_ = 0;
};

TEST_F(CompiledPlayback, OneClipAtAnyTimeStaysWithinTheCompileBound) {
  workspace_a_.reserve(*set_, 8);
  workspace_b_.reserve(*set_, 8);
  float worst = 0;
  for (const char* name : {"Walk", "Run", "Idle"}) {
    Animator exact = make_animator(set_, options(false));
    Animator compiled = make_animator(set_, options(true));
    const ClipId clip = set_->clip_id(name).value();
    ASSERT_TRUE(exact.play(clip).ok());
    ASSERT_TRUE(compiled.play(clip).ok());
    // Steps that fall between keys and frames alike, over more than two loops.
    for (int i = 0; i < 300; ++i) {
      const float dt = 0.0071f * static_cast<float>(1 + i % 5);
      exact.update(dt);
      compiled.update(dt);
      const float d = distance(exact, compiled);
      EXPECT_LE(d, set_->compiled(clip)->report().bound) << name << " at update " << i;
      worst = std::max(worst, d);
    }
  }
  std::cout << "compiled against exact Animator, one clip: largest distance " << worst
            << " model units, bound " << bound_ << "\n";
  EXPECT_GT(worst, 0) << "the compiled animator showed the exact clips";
}

TEST_F(CompiledPlayback, ASyncedCrossFadeUnderAMaskedLayerStaysWithinTheCompileBound) {
  workspace_a_.reserve(*set_, 8);
  workspace_b_.reserve(*set_, 8);
  Animator exact = make_animator(set_, options(false));
  Animator compiled = make_animator(set_, options(true));
  const ClipId walk = set_->clip_id("Walk").value(), run = set_->clip_id("Run").value();
  const ClipId idle = set_->clip_id("Idle").value();
  float worst = 0;
  // The same calls on both: walk, a synced cross-fade to run, idle on the arm layer.
  PlayerId walking[2], running[2];
  Animator* animators[2] = {&exact, &compiled};
  for (int k = 0; k < 2; ++k) {
    walking[k] = animators[k]->play(walk, {.sync_group = 0}).value();
  }
  for (int i = 0; i < 240; ++i) {
    for (int k = 0; k < 2; ++k) {
      Animator& a = *animators[k];
      if (i == 40) {
        running[k] = a.play(run, {.sync_group = 0}).value();
        ASSERT_TRUE(a.cross_fade(walking[k], running[k], 1.0f, FadeCurve::kSmooth).ok());
      }
      if (i == 100) {
        ASSERT_TRUE(a.play(idle, {.layer = 1, .weight = 0.7f, .fade_in = 0.3f}).ok());
      }
      a.update(1.0f / 60);
    }
    const float d = distance(exact, compiled);
    // Each clip is within its bound; a local-space blend of them is not bound by it as a
    // theorem (rotation errors compound down the chain), but the blend is held to it all the same.
    EXPECT_LE(d, bound_) << "at update " << i;
    worst = std::max(worst, d);
  }
  std::cout << "compiled against exact Animator, cross-fade under an override layer: largest "
            << "distance " << worst << " model units, bound " << bound_ << "\n";
  EXPECT_GT(worst, 0) << "the compiled animator showed the exact clips";
}

}  // namespace
}  // namespace marrow::test
