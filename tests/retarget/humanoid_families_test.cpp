// The humanoid profile on the rig families people use, each built by hand with that family's
// joint names and hierarchy (extra twist, share and IK bones included) on one standing body,
// and on the Character Creator captures of ../shared/assets/bvh/cmu_iclone. Then what must be
// refused (a four-legged animal), the errors that name the real cause with a map to complete,
// and joints addressed by path or index when names repeat.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "../support/shared_asset.h"
#include "family_rigs.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/retarget/humanoid.h"
#include "marrow/retarget/retarget_map.h"

namespace marrow {
namespace {

using P = HumanoidPart;
using namespace test;

void expect_family(const Family& f) {
  SCOPED_TRACE(f.label);
  const Skeleton s = rig_of(build(f));
  Result<HumanoidRig> rig = match_humanoid(s, {}, f.label);
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  for (const auto& [part, names] : f.expected) {
    EXPECT_EQ(family_joined(s, (*rig)[part]), names) << to_string(part);
  }
}

TEST(HumanoidFamilies, CharacterCreatorWithItsPelvisBelowTheHipAndShareAndTwistBones) {
  expect_family(character_creator_rig());
}

TEST(HumanoidFamilies, BipedWithThighsOnTheSpineAndClaviclesOnTheNeck) {
  expect_family(biped_rig());
}

TEST(HumanoidFamilies, UnrealMannequinWithTwistAndIkBones) {
  expect_family(unreal_mannequin_rig());
}

TEST(HumanoidFamilies, HumanIkWithRollBonesAndACharacterPrefix) {
  expect_family(human_ik_rig());
}

TEST(HumanoidFamilies, BlenderSidesInAnyPosition) {
  expect_family(blender("Blender .L", ".L", ".R", false));
  expect_family(blender("Blender _L", "_L", "_R", false));
  expect_family(blender("Blender L_", "L_", "R_", true));
  expect_family(blender("Blender Left", "Left", "Right", true));
  expect_family(blender("Blender .Left", ".Left", ".Right", false));
  expect_family(blender("Blender glued", "left", "right", false));
}

TEST(HumanoidFamilies, RigifyDeformBonesSplitInTwoWithAnUnnamedHeadAndHips) {
  expect_family(rigify_rig());
}

TEST(HumanoidFamilies, FeetParentedToTheRootForIkAreMatchedByWhereTheShinsEnd) {
  expect_family(ik_feet_rig());
}

TEST(HumanoidFamilies, PrefixedNamesAndOtherSchemes) {
  // A Maya rig's "null_head"; a .X rig with "B_" names and its thigh called a hip; Maya's
  // AdvancedSkeleton ("_M" for the middle, the upper arm called "Shoulder" below a scapula).
  expect_family({"null_ prefix",
                 {"L", "R"},
                 {{"hips", "Hips_jnt", ""},
                  {"thigh", "{s}_UpLeg_jnt", "hips"},
                  {"shin", "{s}_Leg_jnt", "thigh"},
                  {"foot", "{s}_Foot_jnt", "shin"},
                  {"spine1", "Spine_jnt", "hips"},
                  {"neck", "Neck_jnt", "spine1"},
                  {"head", "null_head", "neck"},
                  {"upper_arm", "{s}_Arm_jnt", "spine1"},
                  {"forearm", "{s}_ForeArm_jnt", "upper_arm"},
                  {"hand", "{s}_Hand_jnt", "forearm"}},
                 {{P::kHips, "Hips_jnt"}, {P::kHead, "null_head"}, {P::kNeck, "Neck_jnt"}}});
  expect_family({".X B_ names",
                 {"Left", "Right"},
                 {{"root", "B_Root_Pelvis_L", ""},
                  {"hips", "B_LowerPelvis", "root"},
                  {"thigh", "B_Hip_{s}", "hips"},
                  {"shin", "B_Knee_{s}", "thigh"},
                  {"foot", "B_Ankle_{s}", "shin"},
                  {"spine1", "B_Spine1", "hips"},
                  {"neck", "B_Neck", "spine1"},
                  {"head", "B_Head", "neck"},
                  {"clavicle", "B_Clavicle_{s}", "spine1"},
                  {"upper_arm", "B_UpperArm_{s}", "clavicle"},
                  {"forearm", "B_Forearm_{s}", "upper_arm"},
                  {"hand", "B_Hand_{s}", "forearm"}},
                 {{P::kHips, "B_LowerPelvis"},
                  {P::kLeftThigh, "B_Hip_Left"},
                  {P::kLeftShin, "B_Knee_Left"},
                  {P::kRightFoot, "B_Ankle_Right"},
                  {P::kHead, "B_Head"}}});
  expect_family({"AdvancedSkeleton",
                 {"L", "R"},
                 {{"hips", "Root_M", ""},
                  {"thigh", "Hip_{s}", "hips"},
                  {"shin", "Knee_{s}", "thigh"},
                  {"foot", "Ankle_{s}", "shin"},
                  {"toe", "Toes_{s}", "foot"},
                  {"spine1", "Spine1_M", "hips"},
                  {"spine2", "Chest_M", "spine1"},
                  {"neck", "Neck_M", "spine2"},
                  {"head", "Head_M", "neck"},
                  {"clavicle", "Scapula_{s}", "spine2"},
                  {"upper_arm", "Shoulder_{s}", "clavicle"},
                  {"forearm", "Elbow_{s}", "upper_arm"},
                  {"hand", "Wrist_{s}", "forearm"}},
                 {{P::kHips, "Root_M"},
                  {P::kSpine, "Spine1_M Chest_M"},
                  {P::kLeftShoulder, "Scapula_L"},
                  {P::kLeftUpperArm, "Shoulder_L"},
                  {P::kLeftForearm, "Elbow_L"},
                  {P::kRightHand, "Wrist_R"},
                  {P::kLeftToe, "Toes_L"}}});
}

// A fox as glTF's sample Fox names it: hips and chest level, four legs to the ground.
std::vector<RigJoint> fox() {
  std::vector<RigJoint> j = {{"b_Root_00", "", {0, 0, 0}},
                             {"b_Hip_01", "b_Root_00", {0, 0.5f, -0.3f}},
                             {"b_Spine01_02", "b_Hip_01", {0, 0.52f, 0}},
                             {"b_Spine02_03", "b_Spine01_02", {0, 0.54f, 0.3f}},
                             {"b_Neck_04", "b_Spine02_03", {0, 0.62f, 0.42f}},
                             {"b_Head_05", "b_Neck_04", {0, 0.72f, 0.55f}},
                             {"b_Tail01_012", "b_Hip_01", {0, 0.5f, -0.45f}},
                             {"b_Tail02_013", "b_Tail01_012", {0, 0.45f, -0.7f}}};
  for (const auto& [side, x] : {std::pair{std::string("Left"), 0.1f}, {"Right", -0.1f}}) {
    j.push_back({"b_" + side + "UpperArm", "b_Spine02_03", {x, 0.45f, 0.3f}});
    j.push_back({"b_" + side + "ForeArm", "b_" + side + "UpperArm", {x, 0.25f, 0.32f}});
    j.push_back({"b_" + side + "Hand", "b_" + side + "ForeArm", {x, 0.02f, 0.3f}});
    j.push_back({"b_" + side + "Leg01", "b_Hip_01", {x, 0.45f, -0.3f}});
    j.push_back({"b_" + side + "Leg02", "b_" + side + "Leg01", {x, 0.25f, -0.25f}});
    j.push_back({"b_" + side + "Foot01", "b_" + side + "Leg02", {x, 0.08f, -0.32f}});
    j.push_back({"b_" + side + "Foot02", "b_" + side + "Foot01", {x, 0.0f, -0.28f}});
  }
  return j;
}

TEST(HumanoidFamilies, AFourLeggedAnimalIsRefusedWithTheReason) {
  const Skeleton s = rig_of(fox());
  for (bool names : {true, false}) {
    HumanoidMatchOptions o;
    o.use_names = names;
    Result<HumanoidRig> rig = match_humanoid(s, o, "fox.glb");
    ASSERT_FALSE(rig.ok());
    const std::string& m = rig.error().message;
    if (names) std::printf("[ data ] %s\n", m.c_str());
    EXPECT_NE(m.find("fox.glb: not a humanoid in this reference pose"), std::string::npos) << m;
    EXPECT_NE(m.find("all four limbs reach the ground"), std::string::npos) << m;
    EXPECT_NE(m.find("spine is not upright"), std::string::npos) << m;
    EXPECT_NE(m.find("\"automatic\": false"), std::string::npos) << m;
  }
}

TEST(HumanoidFamilies, AFailedMatchNamesTheCauseAndPrintsAMapToComplete) {
  // Both legs lack a named foot and end in nothing a shape could read.
  const Skeleton s = rig_of({{"Hips", "", place("hips")},
                             {"LeftUpLeg", "Hips", place("thigh")},
                             {"LeftLeg", "LeftUpLeg", place("shin")},
                             {"RightUpLeg", "Hips", {-0.1f, 0.95f, 0}},
                             {"RightLeg", "RightUpLeg", {-0.1f, 0.52f, 0}},
                             {"Spine", "Hips", place("spine1")},
                             {"Head", "Spine", place("head")}});
  HumanoidMatchOptions o;
  o.map_section = "source";
  Result<HumanoidRig> rig = match_humanoid(s, o, "walk.bvh");
  ASSERT_FALSE(rig.ok());
  const std::string& m = rig.error().message;
  EXPECT_NE(m.find("walk.bvh: no left_foot"), std::string::npos) << m;
  EXPECT_NE(m.find("no joint is named like a left foot"), std::string::npos) << m;
  // The template: the parts found, "?" for the rest, in the section asked for.
  EXPECT_NE(m.find("\"source\": {"), std::string::npos) << m;
  EXPECT_NE(m.find("\"hips\": \"Hips\""), std::string::npos) << m;
  EXPECT_NE(m.find("\"left_thigh\": \"LeftUpLeg\""), std::string::npos) << m;
  EXPECT_NE(m.find("\"left_foot\": \"?\""), std::string::npos) << m;
}

TEST(HumanoidFamilies, JointsAreAddressedByPathOrIndexWhenNamesRepeat) {
  // A mesh node and a joint both called "Torso" (glTF files name nodes freely).
  const Skeleton s = rig_of({{"Body", "", {0, 0, 0}},
                             {"Torso", "Body", {0, 1, 0}},
                             {"Hips", "Body", place("hips")},
                             {"Torso", "Hips", place("spine1")}});
  Result<JointIndex> j = find_joint(s, "Torso", "map.json: target: part 'spine'");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.error().message.find("'Torso' names 2 joints (#1 'Body/Torso', #3 'Hips/Torso')"),
            std::string::npos)
      << j.error().message;
  EXPECT_EQ(find_joint(s, "Hips/Torso", "map").value(), 3u);
  EXPECT_EQ(find_joint(s, "/Body/Torso", "map").value(), 1u);
  EXPECT_EQ(find_joint(s, "#3", "map").value(), 3u);
  EXPECT_NE(find_joint(s, "#4", "map").error().message.find("4 joints (#0 to #3)"),
            std::string::npos);
  EXPECT_NE(find_joint(s, "Body/Hips/Nope", "map").error().message.find("no joint"),
            std::string::npos);
  EXPECT_EQ(joint_reference(s, 3), "Hips/Torso");
  EXPECT_EQ(joint_reference(s, 2), "Hips");
}

// ---- Character Creator captures: ../shared/assets/bvh/cmu_iclone ----

TEST(HumanoidFamilies, CharacterCreatorCapturesAreMatchedByNames) {
  std::string why;
  const Asset* a = shared_asset("bvh/cmu_iclone/002_01.bvh", why);
  if (a == nullptr) GTEST_SKIP() << why;
  // The file's rest pose (every channel zero) does not stand: its offsets are in the rig's bone
  // frames, so the legs point up. The first frame stands.
  Result<HumanoidRig> at_rest = match_humanoid(a->skeleton, {}, "002_01.bvh");
  ASSERT_FALSE(at_rest.ok());
  EXPECT_NE(at_rest.error().message.find("not a humanoid in this reference pose"),
            std::string::npos)
      << at_rest.error().message;
  std::vector<Transform> first(a->skeleton.rest_pose().begin(), a->skeleton.rest_pose().end());
  SamplingCursor cursor(a->clips.front());
  ASSERT_TRUE(sample(a->clips.front(), a->skeleton.rest_pose(), 0, cursor, first));
  HumanoidMatchOptions o;
  o.pose = first;
  Result<HumanoidRig> rig = match_humanoid(a->skeleton, o, "002_01.bvh");
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  const auto name = [&](P p) { return family_joined(a->skeleton, (*rig)[p]); };
  EXPECT_EQ(name(P::kHips), "CC_Base_Hip");
  EXPECT_EQ(name(P::kSpine), "CC_Base_Waist CC_Base_Spine01 CC_Base_Spine02");
  EXPECT_EQ(name(P::kNeck), "CC_Base_NeckTwist01 CC_Base_NeckTwist02");
  EXPECT_EQ(name(P::kHead), "CC_Base_Head");
  EXPECT_EQ(name(P::kLeftThigh), "CC_Base_L_Thigh");
  EXPECT_EQ(name(P::kLeftShin), "CC_Base_L_Calf");
  EXPECT_EQ(name(P::kLeftFoot), "CC_Base_L_Foot");
  EXPECT_EQ(name(P::kLeftToe), "CC_Base_L_ToeBase");
  EXPECT_EQ(name(P::kRightShoulder), "CC_Base_R_Clavicle");
  EXPECT_EQ(name(P::kRightUpperArm), "CC_Base_R_Upperarm");
  EXPECT_EQ(name(P::kRightForearm), "CC_Base_R_Forearm");
  EXPECT_EQ(name(P::kRightHand), "CC_Base_R_Hand");
}

}  // namespace
}  // namespace marrow
