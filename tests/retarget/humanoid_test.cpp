// The humanoid profile: names of every scheme marrow meets, the hierarchy's shape where names
// fail, the shared assets (glTF, BVH, FBX, Collada), and the skeletons that are not humanoids.
#include "marrow/retarget/humanoid.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>

#include "../support/shared_asset.h"
#include "humanoid_builder.h"
#include "marrow/io/asset.h"

namespace marrow {
namespace {

using P = HumanoidPart;
using test::build_humanoid;
using test::BuiltHumanoid;
using test::HumanoidSpec;
using test::Naming;

// The parts a built humanoid should match to.
std::array<std::vector<JointIndex>, kHumanoidPartCount> expected_parts(const BuiltHumanoid& h) {
  std::array<std::vector<JointIndex>, kHumanoidPartCount> e;
  const auto put = [&e](P p, std::vector<JointIndex> j) { e[static_cast<std::size_t>(p)] = j; };
  put(P::kHips, {h.hips});
  put(P::kSpine, h.spine);
  put(P::kNeck, h.neck);
  put(P::kHead, {h.head});
  for (int side = 0; side < 2; ++side) {
    const bool l = side == 0;
    put(l ? P::kLeftShoulder : P::kRightShoulder, {h.shoulder[side]});
    put(l ? P::kLeftUpperArm : P::kRightUpperArm, {h.upper_arm[side]});
    put(l ? P::kLeftForearm : P::kRightForearm, {h.forearm[side]});
    put(l ? P::kLeftHand : P::kRightHand, {h.hand[side]});
    put(l ? P::kLeftThigh : P::kRightThigh, {h.thigh[side]});
    put(l ? P::kLeftShin : P::kRightShin, {h.shin[side]});
    put(l ? P::kLeftFoot : P::kRightFoot, {h.foot[side]});
    put(l ? P::kLeftToe : P::kRightToe, {h.toe[side]});
  }
  return e;
}

void expect_parts(const HumanoidRig& rig, const BuiltHumanoid& h, const std::string& what) {
  const auto e = expected_parts(h);
  for (std::size_t p = 0; p < kHumanoidPartCount; ++p) {
    EXPECT_EQ(rig.parts[p], e[p]) << what << ": " << to_string(static_cast<P>(p));
  }
}

TEST(Humanoid, EveryNamingSchemeIsMatchedByNames) {
  for (Naming n : {Naming::kMixamo, Naming::kCmu, Naming::kBiped}) {
    HumanoidSpec spec;
    spec.naming = n;
    spec.armature_scale = n == Naming::kBiped ? 1.0f : 0.0f;  // "Bip01" above "Bip01 Pelvis"
    const BuiltHumanoid h = build_humanoid(spec);
    Result<HumanoidRig> rig = match_humanoid(h.skeleton);
    ASSERT_TRUE(rig.ok()) << rig.error().message;
    expect_parts(*rig, h, h.skeleton.name(h.hips));
    EXPECT_EQ(rig->found_by[static_cast<std::size_t>(P::kLeftForearm)], PartSource::kName);
  }
}

TEST(Humanoid, WithoutNamesTheShapeFindsTheSameParts) {
  for (const auto& [spine, neck, frames] :
       {std::tuple{3, 1, test::Frames::kIdentity}, std::tuple{2, 2, test::Frames::kTwisted},
        std::tuple{4, 0, test::Frames::kAlongBones}}) {
    HumanoidSpec spec;
    spec.naming = Naming::kNumbered;  // "j0", "j1"...: nothing to read
    spec.spine_joints = spine;
    spec.neck_joints = neck;
    spec.frames = frames;
    spec.yaw_degrees = 90;  // facing +x: left and right come from the feet, not from +z
    const BuiltHumanoid h = build_humanoid(spec);
    Result<HumanoidRig> rig = match_humanoid(h.skeleton);
    ASSERT_TRUE(rig.ok()) << rig.error().message;
    expect_parts(*rig, h, "numbered, spine " + std::to_string(spine));
    EXPECT_EQ(rig->found_by[static_cast<std::size_t>(P::kLeftForearm)], PartSource::kShape);
  }
}

TEST(Humanoid, ExplicitPartsWinAndBadOnesAreErrors) {
  const BuiltHumanoid h = build_humanoid({});
  HumanoidMatchOptions o;
  // The hand's child (a finger) named as the hand: explicit parts are taken as given.
  o.explicit_parts = {{P::kLeftHand, {"mixamorig:LeftHandMiddle4"}}};
  Result<HumanoidRig> rig = match_humanoid(h.skeleton, o);
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  EXPECT_EQ(rig->joint(P::kLeftHand), h.hand_end[0]);
  EXPECT_EQ(rig->found_by[static_cast<std::size_t>(P::kLeftHand)], PartSource::kExplicit);

  o.explicit_parts = {{P::kSpine, {"mixamorig:Spine", "mixamorig:Spine2"}}};  // skips Spine1
  rig = match_humanoid(h.skeleton, o, "map.json: source");
  ASSERT_FALSE(rig.ok());
  EXPECT_NE(rig.error().message.find("map.json: source"), std::string::npos);
  EXPECT_NE(rig.error().message.find("not the child of 'mixamorig:Spine'"), std::string::npos);

  o.explicit_parts = {{P::kHead, {"mixamorig:Head", "mixamorig:Neck"}}};
  rig = match_humanoid(h.skeleton, o);
  ASSERT_FALSE(rig.ok());
  EXPECT_NE(rig.error().message.find("exactly one joint"), std::string::npos);

  // A joint given to two parts.
  o.explicit_parts = {{P::kLeftHand, {"mixamorig:LeftForeArm"}},
                      {P::kRightHand, {"mixamorig:LeftForeArm"}}};
  rig = match_humanoid(h.skeleton, o);
  ASSERT_FALSE(rig.ok());
  EXPECT_NE(rig.error().message.find("' is both left_"), std::string::npos) << rig.error().message;
}

TEST(Humanoid, UnmappedJointsAreListed) {
  const BuiltHumanoid h = build_humanoid({});
  const HumanoidRig rig = match_humanoid(h.skeleton).value();
  std::vector<std::string> names;
  for (JointIndex j : unmapped_joints(h.skeleton, rig)) names.push_back(h.skeleton.name(j));
  const std::vector<std::string> expected = {"mixamorig:HeadTop_End", "mixamorig:LeftHandMiddle4",
                                             "mixamorig:LeftToe_End", "mixamorig:RightHandMiddle4",
                                             "mixamorig:RightToe_End"};
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, expected);
}

// ---- the shared assets ----

using test::shared_asset;

struct AssetCase {
  const char* file;
  // Expected joint names per part ("" = missing); chains as "A B C".
  std::map<P, std::string> parts;
};

std::string joined(const Skeleton& s, const std::vector<JointIndex>& joints) {
  std::string out;
  for (JointIndex j : joints) out += (out.empty() ? "" : " ") + s.name(j);
  return out;
}

void expect_asset_parts(const AssetCase& c, bool use_names) {
  std::string why;
  const Asset* a = shared_asset(c.file, why);
  if (a == nullptr) GTEST_SKIP() << why;
  HumanoidMatchOptions o;
  o.use_names = use_names;
  Result<HumanoidRig> rig = match_humanoid(a->skeleton, o, c.file);
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  for (const auto& [part, names] : c.parts) {
    EXPECT_EQ(joined(a->skeleton, (*rig)[part]), names) << c.file << ": " << to_string(part);
  }
}

const AssetCase kMixamo = {"gltf/Xbot.glb",
                           {{P::kHips, "mixamorig:Hips"},
                            {P::kSpine, "mixamorig:Spine mixamorig:Spine1 mixamorig:Spine2"},
                            {P::kNeck, "mixamorig:Neck"},
                            {P::kHead, "mixamorig:Head"},
                            {P::kLeftShoulder, "mixamorig:LeftShoulder"},
                            {P::kLeftUpperArm, "mixamorig:LeftArm"},
                            {P::kRightForearm, "mixamorig:RightForeArm"},
                            {P::kRightHand, "mixamorig:RightHand"},
                            {P::kLeftThigh, "mixamorig:LeftUpLeg"},
                            {P::kLeftShin, "mixamorig:LeftLeg"},
                            {P::kRightFoot, "mixamorig:RightFoot"},
                            {P::kRightToe, "mixamorig:RightToeBase"}}};

const AssetCase kCmu = {"bvh/01_01.bvh",
                        {{P::kHips, "Hips"},
                         {P::kSpine, "LowerBack Spine Spine1"},
                         {P::kNeck, "Neck Neck1"},
                         {P::kHead, "Head"},
                         {P::kLeftShoulder, "LeftShoulder"},
                         {P::kLeftUpperArm, "LeftArm"},
                         {P::kLeftForearm, "LeftForeArm"},
                         {P::kLeftHand, "LeftHand"},
                         {P::kRightThigh, "RightUpLeg"},
                         {P::kRightShin, "RightLeg"},
                         {P::kRightFoot, "RightFoot"},
                         {P::kLeftToe, "LeftToeBase"}}};

TEST(HumanoidAssets, MixamoNamesAreMatched) {
  expect_asset_parts(kMixamo, true);
}
TEST(HumanoidAssets, MixamoShapeGivesTheSameParts) {
  expect_asset_parts(kMixamo, false);
}
TEST(HumanoidAssets, CmuBvhNamesAreMatched) {
  expect_asset_parts(kCmu, true);
}
TEST(HumanoidAssets, CmuBvhShapeGivesTheSameParts) {
  // The clavicle (3.6) is longer than the forearm (3.5): the hand is found where the fingers
  // branch, not by bone lengths.
  expect_asset_parts(kCmu, false);
}

TEST(HumanoidAssets, BvhExportsWithCollarHipAndKneeNamesAreMatched) {
  // Boxing_Toes.bvh: LeftCollar -> LeftShoulder -> LeftElbow -> LeftWrist, LeftHip -> LeftKnee
  // -> LeftAnkle -> LeftToes. Its "LeftShoulder" is an upper arm, since the collar is above it.
  const AssetCase c = {"bvh/Boxing_Toes.bvh",
                       {{P::kHips, "Hips"},
                        {P::kSpine, "Ab Chest"},
                        {P::kNeck, "Neck"},
                        {P::kLeftShoulder, "LeftCollar"},
                        {P::kLeftUpperArm, "LeftShoulder"},
                        {P::kLeftForearm, "LeftElbow"},
                        {P::kLeftHand, "LeftWrist"},
                        {P::kLeftThigh, "LeftHip"},
                        {P::kLeftShin, "LeftKnee"},
                        {P::kLeftFoot, "LeftAnkle"},
                        {P::kLeftToe, "LeftToes"}}};
  expect_asset_parts(c, true);
  expect_asset_parts(c, false);
}

TEST(HumanoidAssets, ProAnimationBankBipedNamesAreMatchedInFbxAndCollada) {
  // A Biped renamed: "Hips" (Bip01) -> "Pelvis" -> "Spine" with the thighs hanging from the
  // spine. The hips is the deepest hips-named joint above both thighs: Pelvis.
  const std::map<P, std::string> parts = {
      {P::kHips, "Pelvis"},         {P::kSpine, "Spine Spine1 Spine2 Spine3"},
      {P::kNeck, "Neck"},           {P::kHead, "Head"},
      {P::kLeftHand, "Lefthand"},   {P::kRightHand, "RightHand"},
      {P::kLeftThigh, "LeftUpLeg"}, {P::kLeftToe, "LeftFootThumb1"},
      {P::kRightFoot, "RightFoot"}};
  expect_asset_parts({"fbx/walk.fbx", parts}, true);
  expect_asset_parts({"fbx/arnaud.fbx", parts}, true);
  // The Collada skeleton holds a second, "... 1" control rig: the first complete one is taken.
  expect_asset_parts({"collada/pab/skeleton.dae", parts}, true);
}

TEST(HumanoidAssets, AnUnnamedGltfHumanoidIsMatchedByShape) {
  // cesium_man.gltf names no node. Its model space is y-up with the toes along +x (so left is
  // -z): the legs are nodes 7-9 (z < 0, left) and 3-5 (right), the arms 16-18 (left) and 13-15.
  std::string why;
  const Asset* a = shared_asset("gltf/cesium_man.gltf", why);
  if (a == nullptr) GTEST_SKIP() << why;
  Result<HumanoidRig> rig = match_humanoid(a->skeleton);
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  const auto node = [&](P p) { return a->source_index[rig->joint(p)]; };
  EXPECT_EQ(node(P::kHips), 2);
  EXPECT_EQ(node(P::kLeftThigh), 7);
  EXPECT_EQ(node(P::kLeftShin), 8);
  EXPECT_EQ(node(P::kLeftFoot), 9);
  EXPECT_EQ(node(P::kRightThigh), 3);
  EXPECT_EQ(node(P::kRightFoot), 5);
  EXPECT_EQ(node(P::kLeftUpperArm), 16);
  EXPECT_EQ(node(P::kLeftHand), 18);
  EXPECT_EQ(node(P::kRightUpperArm), 13);
  EXPECT_EQ(node(P::kHead), 19);
  EXPECT_FALSE(rig->has(P::kLeftToe));  // node 10 is a leaf after the ankle
  EXPECT_EQ(rig->found_by[static_cast<std::size_t>(P::kHips)], PartSource::kShape);
}

TEST(HumanoidAssets, AQuadrupedIsNoHumanoid) {
  // Testwuson.X: a pelvis with two hind legs and a tail, a chest with two fore legs and a neck
  // without a head: no hips with a spine holding arms.
  std::string why;
  const Asset* a = shared_asset("x/Testwuson.X", why);
  if (a == nullptr) GTEST_SKIP() << why;
  Result<HumanoidRig> rig = match_humanoid(a->skeleton, {}, "Testwuson.X");
  ASSERT_FALSE(rig.ok());
  EXPECT_NE(rig.error().message.find("Testwuson.X: no hips"), std::string::npos);
}

}  // namespace
}  // namespace marrow
