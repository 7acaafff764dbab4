// The demo's procedural character: a valid skinned asset whose weights hand over smoothly at
// the joints, whose walk and run loop seamlessly with the feet in the same phase at the same
// normalized time (what the demo's cross-fade relies on), and whose wave moves the right arm
// only.
#include <gtest/gtest.h>

#include <cmath>

#include "marrow/clip/sampling.h"
#include "marrow/demo/demo_character.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/skinning.h"

using namespace marrow;

namespace {

std::vector<Mat4> pose_at(const Asset& asset, const Clip& clip, float t) {
  std::vector<Transform> local(asset.skeleton.size());
  std::vector<Mat4> model(asset.skeleton.size());
  SamplingCursor cursor(clip);
  sample(clip, asset.skeleton.rest_pose(), t, cursor, local);
  local_to_model(asset.skeleton, local, model);
  return model;
}

float z_of(const Asset& asset, const std::vector<Mat4>& model, const char* joint) {
  return model[*asset.skeleton.find(joint)].translation().z;
}

}  // namespace

TEST(DemoCharacter, IsAValidSkinnedAsset) {
  const Asset asset = demo::make_demo_character();
  EXPECT_EQ(asset.skeleton.size(), 21u);
  ASSERT_EQ(asset.meshes.size(), 1u);
  ASSERT_EQ(asset.skins.size(), 1u);
  const SkinnedMesh& mesh = asset.meshes[0];
  Result<SkinningMesh> prepared = SkinningMesh::build(mesh, asset.skins[0].joints.size());
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  // Weights sum to 1 on every vertex, strongest first.
  for (std::size_t v = 0; v + 1 < mesh.influence_offsets.size(); ++v) {
    float sum = 0, previous = 2;
    for (std::uint32_t k = mesh.influence_offsets[v]; k < mesh.influence_offsets[v + 1]; ++k) {
      sum += mesh.influence_weights[k];
      EXPECT_LE(mesh.influence_weights[k], previous);
      previous = mesh.influence_weights[k];
    }
    ASSERT_NEAR(sum, 1, 1e-6f) << "vertex " << v;
  }
  // In the rest pose, skinning gives the bind mesh back (inverse binds match the rest pose).
  std::vector<Mat4> model(asset.skeleton.size()), palette(asset.skins[0].joints.size());
  local_to_model(asset.skeleton, asset.skeleton.rest_pose(), model);
  ASSERT_TRUE(compute_skinning_palette(asset.skins[0], model, palette));
  std::vector<Vec3> out(mesh.vertex_count());
  ASSERT_TRUE(skin(*prepared, palette, SkinningMethod::kLinear, {out, {}, {}}));
  for (std::size_t v = 0; v < out.size(); ++v) {
    ASSERT_NEAR(length(out[v] - mesh.positions[v]), 0, 1e-5f) << v;
  }
}

TEST(DemoCharacter, ElbowVerticesBlendHalfAndHalf) {
  // Capsule vertices on the ring through the left elbow (the forearm joint) belong half to the
  // upper arm and half to the forearm, from whichever capsule they come.
  const Asset asset = demo::make_demo_character();
  const SkinnedMesh& mesh = asset.meshes[0];
  std::vector<Mat4> rest(asset.skeleton.size());
  local_to_model(asset.skeleton, asset.skeleton.rest_pose(), rest);
  const JointIndex upper = *asset.skeleton.find("l_upper_arm");
  const JointIndex fore = *asset.skeleton.find("l_forearm");
  const Vec3 elbow = rest[fore].translation();
  int ring = 0;
  for (std::size_t v = 0; v + 1 < mesh.influence_offsets.size(); ++v) {
    const Vec3 p = mesh.positions[v];
    // On the elbow's horizontal plane, within the arm capsules' radius.
    if (std::fabs(p.y - elbow.y) > 1e-5f || length(p - elbow) > 0.06f) continue;
    float w_upper = 0, w_fore = 0;
    for (std::uint32_t k = mesh.influence_offsets[v]; k < mesh.influence_offsets[v + 1]; ++k) {
      if (mesh.influence_joints[k] == upper) w_upper += mesh.influence_weights[k];
      if (mesh.influence_joints[k] == fore) w_fore += mesh.influence_weights[k];
    }
    EXPECT_NEAR(w_upper, 0.5f, 1e-5f) << v;
    EXPECT_NEAR(w_fore, 0.5f, 1e-5f) << v;
    ++ring;
  }
  EXPECT_GE(ring, 14);  // at least one full ring of a capsule
}

TEST(DemoCharacter, GaitsLoopAndShareTheirFootPhase) {
  const Asset asset = demo::make_demo_character();
  for (int c : {demo::kDemoWalk, demo::kDemoRun}) {
    const Clip& clip = asset.clips[static_cast<std::size_t>(c)];
    SCOPED_TRACE(clip.name());
    // Seamless loop: the end pose is the start pose.
    const auto start = pose_at(asset, clip, 0), end = pose_at(asset, clip, clip.duration());
    for (std::size_t j = 0; j < start.size(); ++j) {
      EXPECT_NEAR(length(start[j].translation() - end[j].translation()), 0, 1e-5f) << j;
    }
    // Normalized time 0: left foot ahead (+Z, the way the character faces); 0.5: right foot.
    const auto half = pose_at(asset, clip, clip.duration() / 2);
    EXPECT_GT(z_of(asset, start, "l_foot"), z_of(asset, start, "r_foot") + 0.2f);
    EXPECT_GT(z_of(asset, half, "r_foot"), z_of(asset, half, "l_foot") + 0.2f);
  }
}

TEST(DemoCharacter, WaveMovesTheRightArmOnly) {
  const Asset asset = demo::make_demo_character();
  const Clip& wave = asset.clips[demo::kDemoWave];
  const JointIndex shoulder = *asset.skeleton.find("r_shoulder");
  for (const Track& track : wave.tracks()) {
    EXPECT_TRUE(asset.skeleton.is_descendant(track.joint, shoulder))
        << asset.skeleton.name(track.joint);
  }
  // The hand is raised above the head.
  const auto model = pose_at(asset, wave, 0.25f);
  EXPECT_GT(model[*asset.skeleton.find("r_hand")].translation().y,
            model[*asset.skeleton.find("head")].translation().y);
}
