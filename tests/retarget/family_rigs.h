// Humanoid rigs of the families people use, built by hand with each family's joint names and
// hierarchy (extra twist, share and IK bones included) on one standing body (y up, facing +z,
// the character's left at +x, 1.8 tall), with the parts the profile should find.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "marrow/retarget/humanoid.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::test {

using P = HumanoidPart;

// A joint of a hand-built rig: its name, its parent's name ("" for a root) and where it stands in
// model space (y up, facing +z, the character's left at +x; 1.8 tall).
struct RigJoint {
  std::string name, parent;
  Vec3 at;
};

inline Skeleton rig_of(const std::vector<RigJoint>& joints) {
  std::vector<JointDesc> descs;
  std::map<std::string, int> index;
  for (const RigJoint& j : joints) {
    JointDesc d;
    d.name = j.name;
    d.parent = j.parent.empty() ? -1 : index.at(j.parent);
    const Vec3 parent_at = j.parent.empty() ? Vec3{0, 0, 0} : joints[index.at(j.parent)].at;
    d.rest.translation = j.at - parent_at;
    index[j.name] = static_cast<int>(descs.size());
    descs.push_back(d);
  }
  Result<Skeleton> s = Skeleton::build(descs, "hand-built rig");
  EXPECT_TRUE(s.ok()) << s.error().message;
  return std::move(s).value();
}

// Where each role stands on the left side (x > 0); the right side mirrors x.
inline Vec3 place(const std::string& role) {
  static const std::map<std::string, Vec3> at = {{"root", {0, 0, 0}},
                                                 {"hips", {0, 1.0f, 0}},
                                                 {"pelvis", {0, 0.98f, 0}},
                                                 {"spine0", {0, 1.1f, 0}},
                                                 {"spine1", {0, 1.25f, 0}},
                                                 {"spine2", {0, 1.38f, 0}},
                                                 {"neck", {0, 1.5f, 0}},
                                                 {"neck2", {0, 1.55f, 0}},
                                                 {"head", {0, 1.6f, 0}},
                                                 {"head_end", {0, 1.8f, 0}},
                                                 {"jaw", {0, 1.6f, 0.08f}},
                                                 {"clavicle", {0.03f, 1.45f, 0}},
                                                 {"upper_arm", {0.15f, 1.45f, 0}},
                                                 {"upper_arm2", {0.29f, 1.45f, 0}},
                                                 {"forearm", {0.43f, 1.45f, 0}},
                                                 {"forearm2", {0.55f, 1.45f, 0}},
                                                 {"hand", {0.68f, 1.45f, 0}},
                                                 {"finger", {0.75f, 1.45f, 0}},
                                                 {"finger2", {0.79f, 1.45f, 0}},
                                                 {"thigh", {0.1f, 0.95f, 0}},
                                                 {"thigh2", {0.1f, 0.73f, 0}},
                                                 {"shin", {0.1f, 0.52f, 0}},
                                                 {"shin2", {0.1f, 0.31f, 0}},
                                                 {"foot", {0.1f, 0.1f, 0}},
                                                 {"toe", {0.1f, 0.02f, 0.12f}},
                                                 {"toe_end", {0.1f, 0.02f, 0.18f}},
                                                 {"pelvis_side", {0.08f, 0.95f, -0.05f}},
                                                 {"breast", {0.1f, 1.3f, 0.1f}}};
  return at.at(role);
}

// A family's rig as rows "role name parent-role": a name or parent with "{s}" is built once per
// side with the side's word (sides[0] left, sides[1] right).
struct Row {
  std::string role, name, parent;
};
struct Family {
  std::string label;
  std::string sides[2];
  std::vector<Row> rows;
  std::map<P, std::string> expected;  // part -> joint names ("A B" for chains, "" for missing)
};

inline std::vector<RigJoint> build(const Family& f) {
  std::vector<RigJoint> out;
  const auto fill = [](std::string s, const std::string& side) {
    for (std::size_t at; (at = s.find("{s}")) != std::string::npos;) s.replace(at, 3, side);
    return s;
  };
  std::map<std::string, std::string> name_of;  // role (with side suffix) -> name
  for (const Row& r : f.rows) {
    const bool sided = r.name.find("{s}") != std::string::npos;
    for (int side = 0; side < (sided ? 2 : 1); ++side) {
      const std::string suffix = sided ? (side == 0 ? "#l" : "#r") : "";
      Vec3 at = place(r.role);
      if (side == 1) at.x = -at.x;
      std::string parent;
      if (!r.parent.empty()) {
        parent =
            name_of.count(r.parent + suffix) ? name_of.at(r.parent + suffix) : name_of.at(r.parent);
      }
      const std::string name = fill(r.name, f.sides[side]);
      name_of[r.role + suffix] = name;
      out.push_back({name, parent, at});
    }
  }
  return out;
}

inline std::string family_joined(const Skeleton& s, const std::vector<JointIndex>& joints) {
  std::string out;
  for (JointIndex j : joints) out += (out.empty() ? "" : " ") + s.name(j);
  return out;
}

// A plain Blender armature in one of the side conventions people use.
inline Family blender(const std::string& label, const std::string& left, const std::string& right,
                      bool side_first) {
  const auto n = [&](const std::string& word) { return side_first ? "{s}" + word : word + "{s}"; };
  return {label,
          {left, right},
          {{"root", "Armature", ""},
           {"hips", "hips", "root"},
           {"thigh", n("thigh"), "hips"},
           {"shin", n("shin"), "thigh"},
           {"foot", n("foot"), "shin"},
           {"toe", n("toe"), "foot"},
           {"spine1", "spine", "hips"},
           {"spine2", "chest", "spine1"},
           {"neck", "neck", "spine2"},
           {"head", "head", "neck"},
           {"clavicle", n("shoulder"), "spine2"},
           {"upper_arm", n("upper_arm"), "clavicle"},
           {"forearm", n("forearm"), "upper_arm"},
           {"hand", n("hand"), "forearm"}},
          {{P::kHips, "hips"},
           {P::kSpine, "spine chest"},
           {P::kHead, "head"},
           {P::kLeftThigh, side_first ? left + "thigh" : "thigh" + left},
           {P::kRightFoot, side_first ? right + "foot" : "foot" + right},
           {P::kLeftUpperArm, side_first ? left + "upper_arm" : "upper_arm" + left},
           {P::kRightHand, side_first ? right + "hand" : "hand" + right}}};
}

// CC_Base_Hip holds the pelvis (which holds only the legs) and the waist; twist and share
// bones hang beside every limb bone, toes below the toe base.
inline Family character_creator_rig() {
  return {"Character Creator",
          {"L", "R"},
          {{"hips", "CC_Base_Hip", ""},
           {"pelvis", "CC_Base_Pelvis", "hips"},
           {"thigh", "CC_Base_{s}_Thigh", "pelvis"},
           {"shin", "CC_Base_{s}_Calf", "thigh"},
           {"foot", "CC_Base_{s}_Foot", "shin"},
           {"toe", "CC_Base_{s}_ToeBaseShareBone", "foot"},
           {"toe", "CC_Base_{s}_ToeBase", "foot"},
           {"toe_end", "CC_Base_{s}_BigToe1", "toe"},
           {"shin2", "CC_Base_{s}_CalfTwist01", "shin"},
           {"shin", "CC_Base_{s}_KneeShareBone", "shin"},
           {"thigh2", "CC_Base_{s}_ThighTwist01", "thigh"},
           {"spine0", "CC_Base_Waist", "hips"},
           {"spine1", "CC_Base_Spine01", "spine0"},
           {"spine2", "CC_Base_Spine02", "spine1"},
           {"neck", "CC_Base_NeckTwist01", "spine2"},
           {"neck2", "CC_Base_NeckTwist02", "neck"},
           {"head", "CC_Base_Head", "neck2"},
           {"jaw", "CC_Base_JawRoot", "head"},
           {"clavicle", "CC_Base_{s}_Clavicle", "spine2"},
           {"upper_arm", "CC_Base_{s}_Upperarm", "clavicle"},
           {"forearm", "CC_Base_{s}_Forearm", "upper_arm"},
           {"forearm2", "CC_Base_{s}_ForearmTwist01", "forearm"},
           {"hand", "CC_Base_{s}_Hand", "forearm"},
           {"forearm", "CC_Base_{s}_ElbowShareBone", "forearm"},
           {"finger", "CC_Base_{s}_Mid1", "hand"},
           {"upper_arm2", "CC_Base_{s}_UpperarmTwist01", "upper_arm"},
           {"breast", "CC_Base_{s}_RibsTwist", "spine2"}},
          {{P::kHips, "CC_Base_Hip"},
           {P::kSpine, "CC_Base_Waist CC_Base_Spine01 CC_Base_Spine02"},
           {P::kNeck, "CC_Base_NeckTwist01 CC_Base_NeckTwist02"},
           {P::kHead, "CC_Base_Head"},
           {P::kLeftShoulder, "CC_Base_L_Clavicle"},
           {P::kLeftUpperArm, "CC_Base_L_Upperarm"},
           {P::kLeftForearm, "CC_Base_L_Forearm"},
           {P::kLeftHand, "CC_Base_L_Hand"},
           {P::kRightHand, "CC_Base_R_Hand"},
           {P::kLeftThigh, "CC_Base_L_Thigh"},
           {P::kLeftShin, "CC_Base_L_Calf"},
           {P::kLeftFoot, "CC_Base_L_Foot"},
           {P::kLeftToe, "CC_Base_L_ToeBase"},
           {P::kRightToe, "CC_Base_R_ToeBase"}}};
}

inline Family biped_rig() {
  return {"3ds Max Biped",
          {"L", "R"},
          {{"root", "Bip01", ""},
           {"hips", "Bip01 Pelvis", "root"},
           {"spine0", "Bip01 Spine", "hips"},
           {"thigh", "Bip01 {s} Thigh", "spine0"},
           {"shin", "Bip01 {s} Calf", "thigh"},
           {"foot", "Bip01 {s} Foot", "shin"},
           {"toe", "Bip01 {s} Toe0", "foot"},
           {"toe_end", "Bip01 {s} Toe0Nub", "toe"},
           {"spine1", "Bip01 Spine1", "spine0"},
           {"neck", "Bip01 Neck", "spine1"},
           {"head", "Bip01 Head", "neck"},
           {"head_end", "Bip01 HeadNub", "head"},
           {"clavicle", "Bip01 {s} Clavicle", "neck"},
           {"upper_arm", "Bip01 {s} UpperArm", "clavicle"},
           {"upper_arm2", "Bip01 {s} UpArmTwist", "upper_arm"},
           {"forearm", "Bip01 {s} Forearm", "upper_arm"},
           {"forearm2", "Bip01 {s} ForeTwist", "forearm"},
           {"hand", "Bip01 {s} Hand", "forearm"},
           {"finger", "Bip01 {s} Finger0", "hand"},
           {"finger2", "Bip01 {s} Finger0Nub", "finger"}},
          {{P::kHips, "Bip01 Pelvis"},
           {P::kSpine, "Bip01 Spine Bip01 Spine1"},
           {P::kNeck, "Bip01 Neck"},
           {P::kHead, "Bip01 Head"},
           {P::kLeftShoulder, "Bip01 L Clavicle"},
           {P::kLeftUpperArm, "Bip01 L UpperArm"},
           {P::kLeftForearm, "Bip01 L Forearm"},
           {P::kRightHand, "Bip01 R Hand"},
           {P::kLeftThigh, "Bip01 L Thigh"},
           {P::kRightShin, "Bip01 R Calf"},
           {P::kLeftToe, "Bip01 L Toe0"}}};
}

inline Family unreal_mannequin_rig() {
  return {"Unreal mannequin",
          {"l", "r"},
          {{"root", "root", ""},
           {"hips", "pelvis", "root"},
           {"spine0", "spine_01", "hips"},
           {"spine1", "spine_02", "spine0"},
           {"spine2", "spine_03", "spine1"},
           {"clavicle", "clavicle_{s}", "spine2"},
           {"upper_arm", "upperarm_{s}", "clavicle"},
           {"forearm", "lowerarm_{s}", "upper_arm"},
           {"hand", "hand_{s}", "forearm"},
           {"finger", "index_01_{s}", "hand"},
           {"forearm2", "lowerarm_twist_01_{s}", "forearm"},
           {"upper_arm2", "upperarm_twist_01_{s}", "upper_arm"},
           {"neck", "neck_01", "spine2"},
           {"head", "head", "neck"},
           {"thigh", "thigh_{s}", "hips"},
           {"shin", "calf_{s}", "thigh"},
           {"shin2", "calf_twist_01_{s}", "shin"},
           {"foot", "foot_{s}", "shin"},
           {"toe", "ball_{s}", "foot"},
           {"thigh2", "thigh_twist_01_{s}", "thigh"},
           {"foot", "ik_foot_{s}", "root"},
           {"hand", "ik_hand_{s}", "root"}},
          {{P::kHips, "pelvis"},
           {P::kSpine, "spine_01 spine_02 spine_03"},
           {P::kNeck, "neck_01"},
           {P::kHead, "head"},
           {P::kLeftShoulder, "clavicle_l"},
           {P::kLeftUpperArm, "upperarm_l"},
           {P::kLeftForearm, "lowerarm_l"},
           {P::kLeftHand, "hand_l"},
           {P::kRightThigh, "thigh_r"},
           {P::kRightShin, "calf_r"},
           {P::kRightFoot, "foot_r"},
           {P::kRightToe, "ball_r"}}};
}

inline Family human_ik_rig() {
  return {"HumanIK",
          {"Left", "Right"},
          {{"root", "Character1_Reference", ""},
           {"hips", "Character1_Hips", "root"},
           {"thigh", "Character1_{s}UpLeg", "hips"},
           {"shin", "Character1_{s}Leg", "thigh"},
           {"foot", "Character1_{s}Foot", "shin"},
           {"toe", "Character1_{s}ToeBase", "foot"},
           {"thigh2", "Character1_{s}UpLegRoll", "thigh"},
           {"shin2", "Character1_{s}LegRoll", "shin"},
           {"spine0", "Character1_Spine", "hips"},
           {"spine1", "Character1_Spine1", "spine0"},
           {"neck", "Character1_Neck", "spine1"},
           {"head", "Character1_Head", "neck"},
           {"clavicle", "Character1_{s}Shoulder", "spine1"},
           {"upper_arm", "Character1_{s}Arm", "clavicle"},
           {"upper_arm2", "Character1_{s}ArmRoll", "upper_arm"},
           {"forearm", "Character1_{s}ForeArm", "upper_arm"},
           {"forearm2", "Character1_{s}ForeArmRoll", "forearm"},
           {"hand", "Character1_{s}Hand", "forearm"},
           {"finger", "Character1_{s}HandThumb1", "hand"}},
          {{P::kHips, "Character1_Hips"},
           {P::kSpine, "Character1_Spine Character1_Spine1"},
           {P::kLeftShoulder, "Character1_LeftShoulder"},
           {P::kLeftUpperArm, "Character1_LeftArm"},
           {P::kLeftForearm, "Character1_LeftForeArm"},
           {P::kLeftHand, "Character1_LeftHand"},
           {P::kRightThigh, "Character1_RightUpLeg"},
           {P::kRightShin, "Character1_RightLeg"},
           {P::kRightToe, "Character1_RightToeBase"}}};
}

// Rigify names the hips "spine" and the head "spine.006"; thighs, shins, upper arms and
// forearms are split in two (".001"); "pelvis.L" is a side bone of the hips.
inline Family rigify_rig() {
  return {"Rigify",
          {".L", ".R"},
          {{"hips", "DEF-spine", ""},
           {"pelvis_side", "DEF-pelvis{s}", "hips"},
           {"thigh", "DEF-thigh{s}", "hips"},
           {"thigh2", "DEF-thigh{s}.001", "thigh"},
           {"shin", "DEF-shin{s}", "thigh2"},
           {"shin2", "DEF-shin{s}.001", "shin"},
           {"foot", "DEF-foot{s}", "shin2"},
           {"toe", "DEF-toe{s}", "foot"},
           {"spine0", "DEF-spine.001", "hips"},
           {"spine1", "DEF-spine.002", "spine0"},
           {"spine2", "DEF-spine.003", "spine1"},
           {"neck", "DEF-spine.004", "spine2"},
           {"neck2", "DEF-spine.005", "neck"},
           {"head", "DEF-spine.006", "neck2"},
           {"breast", "DEF-breast{s}", "spine2"},
           {"clavicle", "DEF-shoulder{s}", "spine2"},
           {"upper_arm", "DEF-upper_arm{s}", "clavicle"},
           {"upper_arm2", "DEF-upper_arm{s}.001", "upper_arm"},
           {"forearm", "DEF-forearm{s}", "upper_arm2"},
           {"forearm2", "DEF-forearm{s}.001", "forearm"},
           {"hand", "DEF-hand{s}", "forearm2"}},
          {{P::kHips, "DEF-spine"},
           {P::kHead, "DEF-spine.006"},
           {P::kLeftThigh, "DEF-thigh.L"},
           {P::kLeftShin, "DEF-shin.L"},
           {P::kLeftFoot, "DEF-foot.L"},
           {P::kLeftToe, "DEF-toe.L"},
           {P::kRightUpperArm, "DEF-upper_arm.R"},
           {P::kRightForearm, "DEF-forearm.R"},
           {P::kRightHand, "DEF-hand.R"},
           {P::kRightShoulder, "DEF-shoulder.R"}}};
}

// A Blender robot: the feet hang from the armature for IK, the shins end at the ankles.
inline Family ik_feet_rig() {
  return {"IK feet",
          {".L", ".R"},
          {{"root", "RobotArmature", ""},
           {"hips", "Hips", "root"},
           {"thigh", "UpperLeg{s}", "hips"},
           {"shin", "LowerLeg{s}", "thigh"},
           {"foot", "Foot{s}", "root"},
           {"toe", "Toe{s}", "foot"},
           {"spine1", "Abdomen", "hips"},
           {"spine2", "Torso", "spine1"},
           {"neck", "Neck", "spine2"},
           {"head", "Head", "neck"},
           {"clavicle", "Shoulder{s}", "spine2"},
           {"upper_arm", "UpperArm{s}", "clavicle"},
           {"forearm", "LowerArm{s}", "upper_arm"},
           {"hand", "Palm{s}", "forearm"}},
          {{P::kHips, "Hips"},
           {P::kSpine, "Abdomen Torso"},
           {P::kLeftThigh, "UpperLeg.L"},
           {P::kLeftShin, "LowerLeg.L"},
           {P::kLeftFoot, "Foot.L"},
           {P::kRightFoot, "Foot.R"},
           {P::kRightToe, "Toe.R"},
           {P::kLeftForearm, "LowerArm.L"},
           {P::kLeftHand, ""}}};
}

}  // namespace marrow::test
