// Morph-target weights driven by the Animator: by clips through the layer stack, by hand, with
// masks selecting slots through the nodes their meshes hang from. Expected values are worked
// out by hand from the clips' keys, the fades and BlendJob's rules (pose/blend.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "allocation_meter.h"
#include "control_test_util.h"
#include "marrow/io/asset.h"
#include "marrow/skin/morph.h"
#include "shared_asset.h"

namespace marrow::test {
namespace {

// Mesh "face" on node 1 (clock) with two targets, defaults 0.3 and 0; mesh "mouth" on node 2
// (tip) with one target, default 0.5. MorphLayout gives node 1 slots 0-1 and node 2 slot 2, so
// the defaults are (0.3, 0, 0.5).
std::vector<SkinnedMesh> face_meshes() {
  std::vector<SkinnedMesh> meshes(2);
  meshes[0].name = "face";
  meshes[0].node = 1;
  meshes[0].morph_targets.resize(2);
  meshes[0].morph_targets[0].name = "brow";
  meshes[0].morph_targets[1].name = "jaw";
  meshes[0].default_morph_weights = {0.3f, 0.0f};
  meshes[1].name = "mouth";
  meshes[1].node = 2;
  meshes[1].morph_targets.resize(1);
  meshes[1].morph_targets[0].name = "smile";
  meshes[1].default_morph_weights = {0.5f};
  return meshes;
}

// A clock clip of `duration` plus one LINEAR weight track on `node` driving `values.size() / 2`
// slots from `first`: the first half of `values` at time 0, the second at `duration`.
Clip weight_clip(const std::string& name, float duration, JointIndex node, std::uint32_t first,
                 std::vector<float> values) {
  ClipBuilder b(name);
  const float times[] = {0, duration};
  const float clock[] = {0, 1, 0, duration, 1, 0};
  EXPECT_TRUE(
      b.add_track(1, "clock", TrackTarget::kTranslation, Interpolation::kLinear, times, clock, name)
          .ok());
  const auto count = static_cast<std::uint32_t>(values.size() / 2);
  EXPECT_TRUE(b.add_weight_track(node, node == 1 ? "clock" : "tip", first, count,
                                 Interpolation::kLinear, times, values, name)
                  .ok());
  Result<Clip> clip = b.build(3, name);
  EXPECT_TRUE(clip.ok()) << (clip.ok() ? "" : clip.error().message);
  return std::move(clip).value();
}

struct Face {
  std::shared_ptr<const ClipSet> set;
  MaskId tip_only = kNoId;
};

// "Face": slots 0-1 from (0, 0) to (1, 0.5) over 1 s. "Smile": slot 2 from 0 to 1 over 1 s.
// "Body": no weight track. Mask "tip only": joint weights (0, 0, 1).
Face face_set(bool with_layout = true) {
  ClipSetBuilder b(clock_skeleton());
  if (with_layout) {
    EXPECT_TRUE(b.set_morph_layout(MorphLayout::build(face_meshes())).ok());
  }
  EXPECT_TRUE(b.add_clip(weight_clip("Face", 1, 1, 0, {0, 0, 1, 0.5f})).ok());
  EXPECT_TRUE(b.add_clip(weight_clip("Smile", 1, 2, 2, {0, 1})).ok());
  EXPECT_TRUE(b.add_clip(clock_clip("Body", 1)).ok());
  EXPECT_TRUE(b.add_mask("tip only", {0, 0, 1}).ok());
  Result<std::shared_ptr<const ClipSet>> set = b.build();
  EXPECT_TRUE(set.ok()) << (set.ok() ? "" : set.error().message);
  Face f{std::move(set).value()};
  f.tip_only = f.set->mask_id("tip only").value();
  return f;
}

std::vector<float> weights_of(const Animator& a, AnimatorWorkspace& ws) {
  std::vector<float> w(a.clip_set().morph_weight_count(), -1.0f);
  EXPECT_TRUE(a.evaluate_morph_weights(ws, w));
  return w;
}

void expect_weights(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-6f) << "slot " << k;
}

TEST(MorphWeights, TheSetTakesTheLayoutsDefaultsAndMasksSelectSlotsByNode) {
  const Face f = face_set();
  ASSERT_EQ(f.set->morph_weight_count(), 3u);
  expect_weights({f.set->default_morph_weights().begin(), f.set->default_morph_weights().end()},
                 {0.3f, 0.0f, 0.5f});
  // Node 1's slots (0, 1) take the mask's 0 at joint 1; node 2's slot 2 its 1 at joint 2.
  const std::span<const float> m = f.set->morph_mask(f.tip_only);
  expect_weights({m.begin(), m.end()}, {0, 0, 1});
}

TEST(MorphWeights, WithoutALayoutTheArrayIsWhatTheClipsDriveAtZero) {
  const Face f = face_set(false);
  ASSERT_EQ(f.set->morph_weight_count(), 3u);  // Smile drives slot 2
  expect_weights({f.set->default_morph_weights().begin(), f.set->default_morph_weights().end()},
                 {0, 0, 0});
  const std::span<const float> m = f.set->morph_mask(f.tip_only);
  expect_weights({m.begin(), m.end()}, {1, 1, 1});
}

TEST(MorphWeights, AClipDrivingMoreSlotsThanTheCharacterHasIsAnError) {
  ClipSetBuilder b(clock_skeleton());
  std::vector<SkinnedMesh> meshes = face_meshes();
  meshes.pop_back();  // two slots only
  ASSERT_TRUE(b.set_morph_layout(MorphLayout::build(meshes)).ok());
  ASSERT_TRUE(b.add_clip(weight_clip("Smile", 1, 2, 2, {0, 1})).ok());
  Result<std::shared_ptr<const ClipSet>> set = b.build();
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.error().message.find("Smile"), std::string::npos) << set.error().message;
  EXPECT_NE(set.error().message.find("drives 3 morph weights, the character has 2"),
            std::string::npos)
      << set.error().message;
}

TEST(MorphWeights, OnePlayerGivesItsClipsWeightsAndTheDefaultsElsewhere) {
  const Face f = face_set();
  Animator a = make_animator(f.set);
  AnimatorWorkspace ws(*f.set);
  // Nothing playing: the defaults.
  expect_weights(weights_of(a, ws), {0.3f, 0.0f, 0.5f});
  ASSERT_TRUE(a.play(f.set->clip_id("Face").value()).ok());
  a.update(0.25f);
  // Face at 0.25 s: slot 0 = 0.25, slot 1 = 0.125; slot 2 is not Face's: its default 0.5.
  expect_weights(weights_of(a, ws), {0.25f, 0.125f, 0.5f});
}

TEST(MorphWeights, ACrossFadeAveragesByTheFadeWeights) {
  const Face f = face_set();
  Animator a = make_animator(f.set);
  AnimatorWorkspace ws(*f.set);
  const PlayerId face = a.play(f.set->clip_id("Face").value()).value();
  a.update(0.25f);
  const PlayerId body = a.play(f.set->clip_id("Body").value()).value();
  ASSERT_TRUE(a.cross_fade(face, body, 1.0f, FadeCurve::kLinear).ok());
  a.update(0.5f);
  // Face at 0.75 s with fade 0.5: (0.75, 0.375, 0.5); Body (the defaults) with fade 0.5.
  // slot 0: 0.5 * 0.75 + 0.5 * 0.3 = 0.525; slot 1: 0.5 * 0.375 = 0.1875; slot 2: 0.5.
  expect_weights(weights_of(a, ws), {0.525f, 0.1875f, 0.5f});
}

TEST(MorphWeights, AWeightSetByHandWinsUntilReleased) {
  const Face f = face_set();
  Animator a = make_animator(f.set);
  AnimatorWorkspace ws(*f.set);
  ASSERT_TRUE(a.play(f.set->clip_id("Face").value()).ok());
  a.update(0.25f);
  EXPECT_TRUE(a.set_morph_weight(1, 0.9f));
  expect_weights(weights_of(a, ws), {0.25f, 0.9f, 0.5f});
  EXPECT_TRUE(a.release_morph_weight(1));
  expect_weights(weights_of(a, ws), {0.25f, 0.125f, 0.5f});
  // Bad input changes nothing.
  EXPECT_FALSE(a.set_morph_weight(3, 1.0f));
  EXPECT_FALSE(a.set_morph_weight(0, std::numeric_limits<float>::quiet_NaN()));
  EXPECT_FALSE(a.set_morph_weight(0, std::numeric_limits<float>::infinity()));
  EXPECT_FALSE(a.release_morph_weight(3));
  expect_weights(weights_of(a, ws), {0.25f, 0.125f, 0.5f});
  EXPECT_TRUE(a.set_morph_weight(0, 2.0f));  // weights are plain numbers, never clamped
  EXPECT_TRUE(a.set_morph_weight(2, 0.0f));
  a.release_morph_weights();
  expect_weights(weights_of(a, ws), {0.25f, 0.125f, 0.5f});
}

// Fades by hand, worked out by hand: Face drives slot 0 as t (1 s clip, clamped after), slot 1
// as t / 2; slot 2 shows its default 0.5 (Face has no track there).
TEST(MorphWeights, FadesByHandMoveLinearlyFromWhatIsShownAndBack) {
  const Face f = face_set();
  Animator a = make_animator(f.set);
  AnimatorWorkspace ws(*f.set);
  ASSERT_TRUE(a.play(f.set->clip_id("Face").value(), PlayOptions{.wrap = WrapMode::kClamp}).ok());
  // Slot 2: from its default 0.5 to 1.5 over 1 s; a quarter of the way after 0.25 s.
  EXPECT_TRUE(a.fade_morph_weight(2, 1.5f, 1.0f));
  a.update(0.0f);  // no time passes: the fade is still to come
  expect_weights(weights_of(a, ws), {0.0f, 0.0f, 0.5f});
  a.update(0.25f);
  expect_weights(weights_of(a, ws), {0.25f, 0.125f, 0.75f});
  a.update(1.0f);  // past the end: held at 1.5
  expect_weights(weights_of(a, ws), {1.0f, 0.5f, 1.5f});
  // From the weight held (1.5) to 0.5 over 2 s: 1.0 after 1 s.
  EXPECT_TRUE(a.fade_morph_weight(2, 0.5f, 2.0f));
  a.update(1.0f);
  expect_weights(weights_of(a, ws), {1.0f, 0.5f, 1.0f});
  // Released over 1 s from the 1.0 shown: the default 0.5 takes over linearly.
  EXPECT_TRUE(a.release_morph_weight(2, 1.0f));
  a.update(0.0f);  // a release that has not begun holds the weight shown
  expect_weights(weights_of(a, ws), {1.0f, 0.5f, 1.0f});
  a.update(0.5f);
  expect_weights(weights_of(a, ws), {1.0f, 0.5f, 0.75f});
  a.update(0.5f);
  expect_weights(weights_of(a, ws), {1.0f, 0.5f, 0.5f});
  a.update(1.0f);  // released: back to the default for good
  expect_weights(weights_of(a, ws), {1.0f, 0.5f, 0.5f});
}

// A fade part way in from the clips, sent to another weight, goes on from the mix shown: no
// jump. Slot 1 follows Face (t / 2); fading to 1 over 1 s, after 0.5 s it shows
// 0.5 * 0.25 + 0.5 * 1 = 0.625. Redirected to 0 over 0.5 s, the held weight moves from 1 to 0
// as the amount goes from 0.5 to 1: the shown weight starts at 0.625 and ends at 0.
TEST(MorphWeights, ARedirectedFadeContinuesFromTheMixShown) {
  const Face f = face_set();
  Animator a = make_animator(f.set);
  AnimatorWorkspace ws(*f.set);
  ASSERT_TRUE(a.play(f.set->clip_id("Face").value(), PlayOptions{.wrap = WrapMode::kClamp}).ok());
  EXPECT_TRUE(a.fade_morph_weight(1, 1.0f, 1.0f));
  a.update(0.5f);
  expect_weights(weights_of(a, ws), {0.5f, 0.625f, 0.5f});
  EXPECT_TRUE(a.fade_morph_weight(1, 0.0f, 0.5f));
  expect_weights(weights_of(a, ws), {0.5f, 0.625f, 0.5f});
  // After 0.25 s: amount 0.75, held 0.5, clip 0.375: 0.25 * 0.375 + 0.75 * 0.5 = 0.46875.
  a.update(0.25f);
  expect_weights(weights_of(a, ws), {0.75f, 0.46875f, 0.5f});
  a.update(0.25f);
  expect_weights(weights_of(a, ws), {1.0f, 0.0f, 0.5f});
  // Bad input changes nothing.
  EXPECT_FALSE(a.fade_morph_weight(3, 1.0f, 1.0f));
  EXPECT_FALSE(a.fade_morph_weight(0, 1.0f, -1.0f));
  EXPECT_FALSE(a.fade_morph_weight(0, std::numeric_limits<float>::quiet_NaN(), 1.0f));
  EXPECT_FALSE(a.release_morph_weight(0, std::numeric_limits<float>::infinity()));
  expect_weights(weights_of(a, ws), {1.0f, 0.0f, 0.5f});
}

TEST(MorphWeights, AMaskedOverrideLayerMovesOnlyTheSlotsOfItsNodes) {
  const Face f = face_set();
  AnimatorOptions options;
  options.layers = {LayerDesc{"base"}, LayerDesc{"mouth", LayerMode::kOverride, 1.0f, f.tip_only}};
  Animator a = make_animator(f.set, options);
  AnimatorWorkspace ws(*f.set);
  ASSERT_TRUE(a.play(f.set->clip_id("Body").value()).ok());
  PlayOptions on_mouth;
  on_mouth.layer = 1;
  on_mouth.start_offset = 0.25f;
  ASSERT_TRUE(a.play(f.set->clip_id("Smile").value(), on_mouth).ok());
  // Face on the masked layer too: it animates slots 0 and 1, which the mask leaves out.
  ASSERT_TRUE(a.play(f.set->clip_id("Face").value(), on_mouth).ok());
  a.update(0);
  // Base: Body's defaults (0.3, 0, 0.5). Override on slot 2: Smile at 0.25 s gives 0.25 and
  // Face the default 0.5, each at weight 1: average 0.375, summed weight 2 >= 1, so 0.375
  // replaces the base. Slots 0 and 1 have mask 0: the base stays.
  expect_weights(weights_of(a, ws), {0.3f, 0.0f, 0.375f});
}

TEST(MorphWeights, EvaluatingAllocatesNothingAndRefusesShortOutput) {
  const Face f = face_set();
  Animator a = make_animator(f.set);
  AnimatorWorkspace ws(*f.set);
  const PlayerId face = a.play(f.set->clip_id("Face").value()).value();
  const PlayerId body = a.play(f.set->clip_id("Body").value()).value();
  ASSERT_TRUE(a.cross_fade(face, body, 1.0f).ok());
  std::vector<float> w(3), shorter(2, -1.0f);
  {
    AllocationMeter meter;
    for (int i = 0; i < 10; ++i) {
      a.update(0.05f);
      a.set_morph_weight(2, 0.1f * static_cast<float>(i));
      EXPECT_TRUE(a.evaluate_morph_weights(ws, w));
    }
    EXPECT_EQ(meter.count(), 0u);
  }
  EXPECT_FALSE(a.evaluate_morph_weights(ws, shorter));
  EXPECT_EQ(shorter[0], -1.0f);
  AnimatorWorkspace unreserved;
  EXPECT_FALSE(a.evaluate_morph_weights(unreserved, w));
}

// A whole face frame on a real file: the Animator's weights (a cross-fade, one slot by hand) into
// MorphJob. After the set-up nothing allocates, and the morphed positions are the definition's
// (apply_morphs_reference, straight from the mesh) for those weights.
TEST(MorphWeights, AFaceFrameFromAnimatorToMorphedVerticesAllocatesNothing) {
  const std::string path = shared_asset_path("gltf/morph/AnimatedMorphCube.gltf");
  Result<Asset> cube = load_asset(path);
  if (!cube) GTEST_SKIP() << path << ": " << cube.error().message;
  const MorphLayout layout = MorphLayout::build(cube->meshes);
  ClipSetBuilder b(cube->skeleton);
  ASSERT_TRUE(b.set_morph_layout(layout).ok());
  ASSERT_TRUE(b.add_clip(cube->clips[0]).ok());
  const std::shared_ptr<const ClipSet> set = b.build().value();
  Animator a = make_animator(set);
  AnimatorWorkspace ws(*set);
  const SkinnedMesh& mesh = cube->meshes[0];
  Result<MorphMesh> morph = MorphMesh::build(mesh);
  ASSERT_TRUE(morph.ok()) << morph.error().message;
  MorphedVertices morphed = MorphedVertices::create(*morph);
  std::vector<float> weights(set->morph_weight_count());
  ASSERT_TRUE(a.play(0).ok());
  a.update(0.3f);
  {
    AllocationMeter meter;
    for (int frame = 0; frame < 30; ++frame) {
      a.update(1.0f / 30.0f);
      if (frame == 10) a.set_morph_weight(1, 0.75f);
      ASSERT_TRUE(a.evaluate_morph_weights(ws, weights));
      ASSERT_TRUE((MorphJob{&*morph, layout.weights_of(mesh, weights), &morphed}.run()));
    }
    EXPECT_EQ(meter.count(), 0u);
  }
  EXPECT_EQ(weights[1], 0.75f);
  std::vector<Vec3> expected(mesh.positions.size());
  ASSERT_TRUE(apply_morphs_reference(mesh, layout.weights_of(mesh, weights), expected));
  ASSERT_GE(morphed.positions.size(), expected.size());  // the SIMD kernel pads by one
  for (std::size_t v = 0; v < expected.size(); ++v) {
    EXPECT_NEAR(morphed.positions[v].x, expected[v].x, 1e-5f) << v;
    EXPECT_NEAR(morphed.positions[v].y, expected[v].y, 1e-5f) << v;
    EXPECT_NEAR(morphed.positions[v].z, expected[v].z, 1e-5f) << v;
  }
}

}  // namespace
}  // namespace marrow::test
