// Humanoid skeletons built in code for the retargeting tests: the geometry is given in model
// space (so the answers can be worked out by hand) and turned into local transforms, with a
// choice of naming scheme, arm pose (T or A), spine and neck lengths, facing, joint frames and
// an armature above the hips.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::test {

inline constexpr float kPi = std::numbers::pi_v<float>;
inline float deg(float d) {
  return d * kPi / 180.0f;
}

enum class Naming { kMixamo, kCmu, kBiped, kNumbered };
enum class Frames {
  kIdentity,    // every joint's model frame is the identity: offsets carry the pose (BVH)
  kAlongBones,  // limb joints' frames turn with their bones: rotations carry the pose
  kTwisted,     // arbitrary frames per joint (other joint axes)
};

struct HumanoidSpec {
  Naming naming = Naming::kMixamo;
  Frames frames = Frames::kIdentity;
  int spine_joints = 3;
  int neck_joints = 1;
  float spine_length = 0.5f;
  float neck_length = 0.1f;
  float head_length = 0.2f;
  float arm_down_degrees = 0;  // 0: T-pose; 45: A-pose
  float clavicle = 0.12f, upper_arm = 0.3f, forearm = 0.25f, hand = 0.08f;
  float hip_width = 0.1f, hip_drop = 0.05f, thigh = 0.45f, shin = 0.45f;
  float ankle_height = 0.08f, foot_length = 0.15f, toe_length = 0.05f;
  float yaw_degrees = 0;  // 0 faces +z (left is +x); 180 faces -z
  // An "Armature" root above the hips with this uniform scale, turned so that the body inside is
  // z-up (as Blender and Mixamo exports are); 0: no armature.
  float armature_scale = 0;
  float scale = 1;  // every length (hip height included) times this

  // The hips' height: the toes stand on the ground at y = 0.
  float hip_height() const { return scale * (hip_drop + thigh + shin + ankle_height); }
};

struct BuiltHumanoid {
  Skeleton skeleton;
  std::vector<Vec3> position;  // model-space rest positions, per joint
  std::vector<Quat> frame;     // model-space rest rotations, per joint
  // Joints by role (kNoParent when absent).
  JointIndex armature = kNoParent, hips = 0, head = 0, head_end = 0;
  std::vector<JointIndex> spine, neck;
  JointIndex shoulder[2]{}, upper_arm[2]{}, forearm[2]{}, hand[2]{}, hand_end[2]{};
  JointIndex thigh[2]{}, shin[2]{}, foot[2]{}, toe[2]{}, toe_end[2]{};
};

namespace builder_detail {

inline std::string name_of(Naming n, const std::string& role, int side, int index = 0) {
  const std::string lr = side == 0 ? "Left" : "Right";
  const std::string bip = side == 0 ? "Bip01 L " : "Bip01 R ";
  const std::string idx = index == 0 ? "" : std::to_string(index);
  switch (n) {
    case Naming::kMixamo: {
      const std::string m = "mixamorig:";
      if (role == "hips") return m + "Hips";
      if (role == "spine") return m + "Spine" + idx;
      if (role == "neck") return m + "Neck" + idx;
      if (role == "head") return m + "Head";
      if (role == "head_end") return m + "HeadTop_End";
      if (role == "shoulder") return m + lr + "Shoulder";
      if (role == "upper_arm") return m + lr + "Arm";
      if (role == "forearm") return m + lr + "ForeArm";
      if (role == "hand") return m + lr + "Hand";
      if (role == "hand_end") return m + lr + "HandMiddle4";
      if (role == "thigh") return m + lr + "UpLeg";
      if (role == "shin") return m + lr + "Leg";
      if (role == "foot") return m + lr + "Foot";
      if (role == "toe") return m + lr + "ToeBase";
      if (role == "toe_end") return m + lr + "Toe_End";
      return m + role;
    }
    case Naming::kCmu: {
      if (role == "hips") return "Hips";
      if (role == "spine") return index == 0 ? "LowerBack" : "Spine" + std::to_string(index - 1);
      if (role == "neck") return "Neck" + idx;
      if (role == "head") return "Head";
      if (role == "head_end") return "Head_End";
      if (role == "shoulder") return lr + "Shoulder";
      if (role == "upper_arm") return lr + "Arm";
      if (role == "forearm") return lr + "ForeArm";
      if (role == "hand") return lr + "Hand";
      if (role == "hand_end") return lr + "Hand_End";
      if (role == "thigh") return lr + "UpLeg";
      if (role == "shin") return lr + "Leg";
      if (role == "foot") return lr + "Foot";
      if (role == "toe") return lr + "ToeBase";
      if (role == "toe_end") return lr + "ToeBase_End";
      return role;
    }
    case Naming::kBiped: {
      if (role == "armature") return "Bip01";
      if (role == "hips") return "Bip01 Pelvis";
      if (role == "spine") return "Bip01 Spine" + idx;
      if (role == "neck") return "Bip01 Neck" + idx;
      if (role == "head") return "Bip01 Head";
      if (role == "head_end") return "Bip01 HeadNub";
      if (role == "shoulder") return bip + "Clavicle";
      if (role == "upper_arm") return bip + "UpperArm";
      if (role == "forearm") return bip + "Forearm";
      if (role == "hand") return bip + "Hand";
      if (role == "hand_end") return bip + "Finger0Nub";
      if (role == "thigh") return bip + "Thigh";
      if (role == "shin") return bip + "Calf";
      if (role == "foot") return bip + "Foot";
      if (role == "toe") return bip + "Toe0";
      if (role == "toe_end") return bip + "Toe0Nub";
      return role;
    }
    case Naming::kNumbered:
      break;
  }
  return role;  // renamed to numbers afterwards
}

// A deterministic, unremarkable rotation per joint for Frames::kTwisted.
inline Quat twisted(std::size_t j) {
  const float a = 0.7f + 0.37f * static_cast<float>(j);
  const Vec3 axis{std::sin(a), std::cos(1.3f * a), std::sin(2.1f * a + 0.4f)};
  return from_axis_angle(axis, 0.4f + 0.9f * std::sin(0.5f * a));
}

}  // namespace builder_detail

inline BuiltHumanoid build_humanoid(const HumanoidSpec& spec) {
  using builder_detail::name_of;
  struct Desc {
    std::string name;
    int parent;
    Vec3 position;
    Vec3 bone;  // direction the joint's bone points (for Frames::kAlongBones)
  };
  std::vector<Desc> d;
  BuiltHumanoid h;
  const float s = spec.scale;
  const auto add = [&](std::string name, int parent, Vec3 p, Vec3 bone = {0, 1, 0}) {
    d.push_back({std::move(name), parent, p * s, bone});
    return static_cast<JointIndex>(d.size() - 1);
  };
  const float H = spec.hip_height() / s;
  int root = -1;
  if (spec.armature_scale > 0) {
    h.armature = add(name_of(spec.naming, "armature", 0), -1, {0, 0, 0});
    root = h.armature;
  }
  h.hips = add(name_of(spec.naming, "hips", 0), root, {0, H, 0});
  JointIndex below = h.hips;
  for (int i = 0; i < spec.spine_joints; ++i) {
    const float y = H + spec.spine_length * static_cast<float>(i + 1) /
                            static_cast<float>(spec.spine_joints + 1);
    below = add(name_of(spec.naming, "spine", 0, i), below, {0, y, 0});
    h.spine.push_back(below);
  }
  const JointIndex chest = below;
  const float neck_base = H + spec.spine_length;
  for (int i = 0; i < spec.neck_joints; ++i) {
    const float y =
        neck_base + spec.neck_length * static_cast<float>(i) / static_cast<float>(spec.neck_joints);
    below = add(name_of(spec.naming, "neck", 0, i), below, {0, y, 0});
    h.neck.push_back(below);
  }
  h.head = add(name_of(spec.naming, "head", 0), below, {0, neck_base + spec.neck_length, 0});
  h.head_end = add(name_of(spec.naming, "head_end", 0), h.head,
                   {0, neck_base + spec.neck_length + spec.head_length, 0});
  for (int side = 0; side < 2; ++side) {
    const float sx = side == 0 ? 1.0f : -1.0f;
    const float down = deg(spec.arm_down_degrees);
    const Vec3 arm{sx * std::cos(down), -std::sin(down), 0};
    const Vec3 base{sx * 0.03f, neck_base - 0.02f, 0};
    h.shoulder[side] = add(name_of(spec.naming, "shoulder", side), chest, base, {sx, 0, 0});
    Vec3 p = base + Vec3{sx * spec.clavicle, 0, 0};
    h.upper_arm[side] = add(name_of(spec.naming, "upper_arm", side), h.shoulder[side], p, arm);
    p += arm * spec.upper_arm;
    h.forearm[side] = add(name_of(spec.naming, "forearm", side), h.upper_arm[side], p, arm);
    p += arm * spec.forearm;
    h.hand[side] = add(name_of(spec.naming, "hand", side), h.forearm[side], p, arm);
    p += arm * spec.hand;
    h.hand_end[side] = add(name_of(spec.naming, "hand_end", side), h.hand[side], p, arm);

    Vec3 q{sx * spec.hip_width, H - spec.hip_drop, 0};
    h.thigh[side] = add(name_of(spec.naming, "thigh", side), h.hips, q, {0, -1, 0});
    q.y -= spec.thigh;
    h.shin[side] = add(name_of(spec.naming, "shin", side), h.thigh[side], q, {0, -1, 0});
    q.y -= spec.shin;
    h.foot[side] = add(name_of(spec.naming, "foot", side), h.shin[side], q, {0, -0.5f, 1});
    q += Vec3{0, -spec.ankle_height, spec.foot_length};
    h.toe[side] = add(name_of(spec.naming, "toe", side), h.foot[side], q, {0, 0, 1});
    q.z += spec.toe_length;
    h.toe_end[side] = add(name_of(spec.naming, "toe_end", side), h.toe[side], q, {0, 0, 1});
  }

  // Model frames, then the yaw and the armature; locals from parents.
  const Quat yaw = from_axis_angle({0, 1, 0}, deg(spec.yaw_degrees));
  h.position.resize(d.size());
  h.frame.resize(d.size());
  std::vector<float> model_scale(d.size(), 1.0f);
  for (std::size_t j = 0; j < d.size(); ++j) {
    Quat f = Quat::identity();
    if (spec.frames == Frames::kAlongBones) {
      // The frame's +y along the bone (Mixamo's convention).
      const Vec3 b = d[j].bone * (1.0f / length(d[j].bone));
      const Vec3 y{0, 1, 0};
      const float c = dot(y, b);
      if (c < -0.9999f) {
        f = Quat{1, 0, 0, 0};
      } else {
        const Vec3 axis = cross(y, b);
        f = normalize(Quat{axis.x, axis.y, axis.z, 1 + c});
      }
    } else if (spec.frames == Frames::kTwisted) {
      f = builder_detail::twisted(j);
    }
    h.position[j] = rotate(yaw, d[j].position);
    h.frame[j] = normalize(yaw * f);
    if (spec.armature_scale > 0) model_scale[j] = spec.armature_scale;
  }
  if (spec.armature_scale > 0) {
    // The armature turns z-up into y-up: -90 degrees about x; its own frame is that rotation.
    h.frame[h.armature] = from_axis_angle({1, 0, 0}, -kPi / 2);
    model_scale[h.armature] = spec.armature_scale;
  }
  std::vector<JointDesc> joints(d.size());
  for (std::size_t j = 0; j < d.size(); ++j) {
    joints[j].name = spec.naming == Naming::kNumbered ? "j" + std::to_string(j) : d[j].name;
    joints[j].parent = d[j].parent;
    Transform& t = joints[j].rest;
    if (d[j].parent < 0) {
      t.translation = h.position[j];
      t.rotation = h.frame[j];
      t.scale = Vec3{1, 1, 1} * model_scale[j];
    } else {
      const std::size_t p = static_cast<std::size_t>(d[j].parent);
      const float inv = 1.0f / model_scale[p];
      t.rotation = normalize(conjugate(h.frame[p]) * h.frame[j]);
      t.translation = rotate(conjugate(h.frame[p]), h.position[j] - h.position[p]) * inv;
      t.scale = Vec3{1, 1, 1};
    }
  }
  Result<Skeleton> built = Skeleton::build(joints, "humanoid");
  EXPECT_TRUE(built.ok());
  h.skeleton = std::move(built).value();
  return h;
}

}  // namespace marrow::test
