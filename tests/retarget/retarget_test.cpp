// Rest-relative retargeting on skeletons built in code, where every answer is worked out by
// hand: T-pose onto A-pose, other joint axes and names, facing, armature scale, root scale,
// chains of different lengths, twist, clips, and bad input.
#include "marrow/retarget/retargeter.h"

#include <gtest/gtest.h>

#include <cmath>

#include "humanoid_builder.h"
#include "job_checks.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/sampling.h"
#include "retarget_util.h"

namespace marrow {
namespace {

using test::build_humanoid;
using test::BuiltHumanoid;
using test::deg;
using test::Frames;
using test::HumanoidSpec;
using test::Naming;
using test::near_vec;

struct Pair {
  BuiltHumanoid source, target;
  RetargetMap map;
  Retargeter retargeter;
};

Pair make_pair(const HumanoidSpec& s, const HumanoidSpec& t, RetargetOptions options = {}) {
  Pair p{build_humanoid(s), build_humanoid(t), {}, {}};
  Result<RetargetMap> map = make_retarget_map(p.source.skeleton, p.target.skeleton);
  EXPECT_TRUE(map.ok()) << map.error().message;
  p.map = std::move(map).value();
  Result<Retargeter> r = Retargeter::create(p.source.skeleton, p.target.skeleton, p.map, options);
  EXPECT_TRUE(r.ok()) << r.error().message;
  p.retargeter = std::move(r).value();
  return p;
}

// A CMU-named T-pose source with identity frames, and a Mixamo-named A-pose target whose joint
// frames follow the bones, with other proportions.
HumanoidSpec t_pose_source() {
  HumanoidSpec s;
  s.naming = Naming::kCmu;
  s.frames = Frames::kIdentity;
  return s;
}
HumanoidSpec a_pose_target() {
  HumanoidSpec t;
  t.naming = Naming::kMixamo;
  t.frames = Frames::kAlongBones;
  t.arm_down_degrees = 45;
  t.upper_arm = 0.35f;
  t.forearm = 0.3f;
  t.thigh = 0.5f;
  t.shin = 0.48f;
  return t;
}

TEST(Retarget, ATPoseSourceAtRestPutsAnAPoseTargetInATPose) {
  Pair p = make_pair(t_pose_source(), a_pose_target());
  const std::vector<Transform> target =
      test::retarget_pose(p.retargeter, test::rest_of(p.source.skeleton));
  const std::vector<Mat4> m = test::model_of(p.target.skeleton, target);
  const HumanoidSpec t = a_pose_target();
  for (int side = 0; side < 2; ++side) {
    const float sx = side == 0 ? 1.0f : -1.0f;
    const Vec3 shoulder = m[p.target.upper_arm[side]].translation();
    // Horizontal arms, not the target's own 45 degrees down.
    EXPECT_TRUE(near_vec(m[p.target.forearm[side]].translation(),
                         shoulder + Vec3{sx * t.upper_arm, 0, 0}, 1e-5f));
    EXPECT_TRUE(near_vec(m[p.target.hand[side]].translation(),
                         shoulder + Vec3{sx * (t.upper_arm + t.forearm), 0, 0}, 1e-5f));
  }
  // Copying local rotations instead leaves the arms 45 degrees down.
  RetargetOptions naive;
  naive.method = RetargetMethod::kCopyLocal;
  Pair q = make_pair(t_pose_source(), a_pose_target(), naive);
  const std::vector<Mat4> n = test::model_of(
      q.target.skeleton, test::retarget_pose(q.retargeter, test::rest_of(q.source.skeleton)));
  const Vec3 arm = n[q.target.forearm[0]].translation() - n[q.target.upper_arm[0]].translation();
  EXPECT_GT(test::angle_between_dirs(arm, {1, 0, 0}), deg(30));
}

TEST(Retarget, ASourceArmRaisedStraightUpRaisesTheTargetArmStraightUp) {
  Pair p = make_pair(t_pose_source(), a_pose_target());
  std::vector<Transform> pose = test::rest_of(p.source.skeleton);
  // The left arm (+x) turned 90 degrees about +z: it points up.
  test::turn_joint(p.source.skeleton, pose, p.source.upper_arm[0],
                   from_axis_angle({0, 0, 1}, deg(90)));
  const std::vector<Mat4> m =
      test::model_of(p.target.skeleton, test::retarget_pose(p.retargeter, pose));
  const HumanoidSpec t = a_pose_target();
  const Vec3 shoulder = m[p.target.upper_arm[0]].translation();
  EXPECT_TRUE(
      near_vec(m[p.target.forearm[0]].translation(), shoulder + Vec3{0, t.upper_arm, 0}, 1e-5f));
  EXPECT_TRUE(near_vec(m[p.target.hand[0]].translation(),
                       shoulder + Vec3{0, t.upper_arm + t.forearm, 0}, 1e-5f));
}

TEST(Retarget, MappedBonesPointWhereTheSourcesDoWhateverTheNamesFramesAndFacing) {
  // Biped names, twisted frames, facing -z and 1.3 times the size, onto Mixamo names, frames
  // along the bones, an A-pose and a z-up armature at 0.01 (Xbot-like): after turning the
  // source's joints at random, every mapped bone of the target points where the source's does,
  // seen through A (half a turn about y).
  HumanoidSpec s;
  s.naming = Naming::kBiped;
  s.frames = Frames::kTwisted;
  s.yaw_degrees = 180;
  s.scale = 1.3f;
  s.armature_scale = 1;  // "Bip01" above the pelvis
  HumanoidSpec t = a_pose_target();
  t.armature_scale = 0.01f;
  Pair p = make_pair(s, t);
  const Quat A = p.retargeter.axes();
  EXPECT_LT(std::fabs(std::fabs(A.y) - 1), 1e-6f) << "half a turn about y";
  std::vector<Transform> pose = test::rest_of(p.source.skeleton);
  for (std::size_t j = 0; j < pose.size(); ++j) {
    const float a = 0.3f * static_cast<float>(j);
    pose[j].rotation =
        normalize(pose[j].rotation *
                  from_axis_angle({std::sin(a), std::cos(a), 0.5f}, 0.3f + 0.2f * std::sin(a)));
  }
  const std::vector<Mat4> ms = test::model_of(p.source.skeleton, pose);
  const std::vector<Mat4> mt =
      test::model_of(p.target.skeleton, test::retarget_pose(p.retargeter, pose));
  const auto dir = [](const std::vector<Mat4>& m, JointIndex a, JointIndex b) {
    return m[b].translation() - m[a].translation();
  };
  for (int side = 0; side < 2; ++side) {
    const JointIndex bones[][2][2] = {
        {{p.source.upper_arm[side], p.source.forearm[side]},
         {p.target.upper_arm[side], p.target.forearm[side]}},
        {{p.source.forearm[side], p.source.hand[side]},
         {p.target.forearm[side], p.target.hand[side]}},
        {{p.source.shoulder[side], p.source.upper_arm[side]},
         {p.target.shoulder[side], p.target.upper_arm[side]}},
        {{p.source.thigh[side], p.source.shin[side]}, {p.target.thigh[side], p.target.shin[side]}},
        {{p.source.shin[side], p.source.foot[side]}, {p.target.shin[side], p.target.foot[side]}},
        {{p.source.foot[side], p.source.toe[side]}, {p.target.foot[side], p.target.toe[side]}},
    };
    for (const auto& b : bones) {
      const Vec3 want = rotate(A, dir(ms, b[0][0], b[0][1]));
      const Vec3 got = dir(mt, b[1][0], b[1][1]);
      EXPECT_LT(test::angle_between_dirs(want, got), 1e-4f)
          << p.target.skeleton.name(b[1][0]) << " to " << p.target.skeleton.name(b[1][1]);
    }
  }
}

TEST(Retarget, TwistAboutABoneIsCarriedOverRelativeToTheReferences) {
  Pair p = make_pair(t_pose_source(), a_pose_target());
  const std::vector<Mat4> before = test::model_of(
      p.target.skeleton, test::retarget_pose(p.retargeter, test::rest_of(p.source.skeleton)));
  std::vector<Transform> pose = test::rest_of(p.source.skeleton);
  test::turn_joint(p.source.skeleton, pose, p.source.hand[0], from_axis_angle({1, 0, 0}, deg(40)));
  const std::vector<Mat4> after =
      test::model_of(p.target.skeleton, test::retarget_pose(p.retargeter, pose));
  // The target hand turned 40 degrees about the (horizontal, +x) arm.
  const Quat change = test::model_rotation(after[p.target.hand[0]]) *
                      conjugate(test::model_rotation(before[p.target.hand[0]]));
  const Quat expected = from_axis_angle({1, 0, 0}, deg(40));
  EXPECT_NEAR(std::fabs(dot(change, expected)), 1.0f, 1e-6f);
}

TEST(Retarget, RootTranslationIsScaledByHipHeightAndTurnedByTheAxes) {
  HumanoidSpec s = t_pose_source();
  s.yaw_degrees = 180;  // faces -z
  HumanoidSpec t = a_pose_target();
  t.armature_scale = 0.01f;  // z-up inside a 0.01 armature
  Pair p = make_pair(s, t);
  // Hip heights are hip_drop + thigh + shin + ankle_height, by construction.
  const float k = t.hip_height() / s.hip_height();
  EXPECT_NEAR(p.retargeter.root_scale(), k, 1e-5f);
  std::vector<Transform> pose = test::rest_of(p.source.skeleton);
  const Vec3 hips{0.3f, s.hip_height() - 0.1f, -0.5f};  // a step forward (-z) and down
  pose[p.source.hips].translation = hips;
  const std::vector<Mat4> m =
      test::model_of(p.target.skeleton, test::retarget_pose(p.retargeter, pose));
  // Half a turn about y: the target steps forward along +z.
  EXPECT_TRUE(near_vec(m[p.target.hips].translation(), Vec3{-0.3f, hips.y, 0.5f} * k, 1e-5f));

  RetargetOptions legs;
  legs.root_scale = RootScale::kLegLength;
  Pair q = make_pair(s, t, legs);
  EXPECT_NEAR(q.retargeter.root_scale(), (t.thigh + t.shin) / (s.thigh + s.shin), 1e-5f);
}

TEST(Retarget, AThreeJointSpineIsDistributedOverATwoJointOneByLength) {
  // Source spine joints each bend 10 degrees forward (about x): their model-space changes are
  // 10, 20 and 30 degrees at 1/3, 2/3 and 1 of the spine's length. The target's two joints sit
  // at 1/2 and 1: 15 and 30 degrees.
  HumanoidSpec s = t_pose_source();
  s.spine_joints = 3;
  s.neck_joints = 2;
  HumanoidSpec t = a_pose_target();
  t.spine_joints = 2;
  t.neck_joints = 1;
  Pair p = make_pair(s, t);
  ASSERT_EQ(p.map.chains.size(), 2u);
  std::vector<Transform> pose = test::rest_of(p.source.skeleton);
  for (JointIndex j : p.source.spine) {
    test::turn_joint(p.source.skeleton, pose, j, from_axis_angle({1, 0, 0}, deg(10)));
  }
  // And each of the two neck joints 5 degrees more: 35 and 40 at the neck's end.
  for (JointIndex j : p.source.neck) {
    test::turn_joint(p.source.skeleton, pose, j, from_axis_angle({1, 0, 0}, deg(5)));
  }
  const std::vector<Transform> target = test::retarget_pose(p.retargeter, pose);
  const std::vector<Mat4> m = test::model_of(p.target.skeleton, target);
  const std::vector<Mat4> rest = test::model_of(p.target.skeleton, p.target.skeleton.rest_pose());
  const auto turned = [&](JointIndex j) {
    return test::model_rotation(m[j]) * conjugate(test::model_rotation(rest[j]));
  };
  const auto expect_turn = [&](JointIndex j, float degrees) {
    const Quat q = from_axis_angle({1, 0, 0}, deg(degrees));
    EXPECT_NEAR(std::fabs(dot(turned(j), q)), 1.0f, 1e-6f)
        << p.target.skeleton.name(j) << " should turn " << degrees << " degrees";
  };
  expect_turn(p.target.spine[0], 15);
  expect_turn(p.target.spine[1], 30);
  // One neck joint from two (at 1/2 and 1 of the neck: 35 and 40 degrees): the end, 40.
  expect_turn(p.target.neck[0], 40);
  expect_turn(p.target.head, 40);
}

TEST(Retarget, ATwoJointSpineIsDistributedOverAThreeJointOneByLength) {
  // Source joints bend 15 degrees each: 15 at 1/2 and 30 at 1 (0 at the hips). Target joints at
  // 1/3, 2/3, 1: 10, 20, 30 degrees.
  HumanoidSpec s = t_pose_source();
  s.spine_joints = 2;
  HumanoidSpec t = a_pose_target();
  t.spine_joints = 3;
  Pair p = make_pair(s, t);
  std::vector<Transform> pose = test::rest_of(p.source.skeleton);
  for (JointIndex j : p.source.spine) {
    test::turn_joint(p.source.skeleton, pose, j, from_axis_angle({1, 0, 0}, deg(15)));
  }
  const std::vector<Mat4> m =
      test::model_of(p.target.skeleton, test::retarget_pose(p.retargeter, pose));
  const std::vector<Mat4> rest = test::model_of(p.target.skeleton, p.target.skeleton.rest_pose());
  const float expected[] = {10, 20, 30};
  for (int i = 0; i < 3; ++i) {
    const JointIndex j = p.target.spine[i];
    const Quat turned = test::model_rotation(m[j]) * conjugate(test::model_rotation(rest[j]));
    EXPECT_NEAR(std::fabs(dot(turned, from_axis_angle({1, 0, 0}, deg(expected[i])))), 1.0f, 1e-6f)
        << "spine joint " << i;
  }
}

TEST(Retarget, UnmappedTargetJointsKeepTheirRestLocalRotation) {
  Pair p = make_pair(t_pose_source(), a_pose_target());
  std::vector<Transform> pose = test::rest_of(p.source.skeleton);
  for (Transform& t : pose) t.rotation = normalize(t.rotation * from_axis_angle({0, 1, 1}, 0.3f));
  const std::vector<Transform> target = test::retarget_pose(p.retargeter, pose);
  ASSERT_FALSE(p.map.unmapped_target.empty());
  for (JointIndex j : p.map.unmapped_target) {
    EXPECT_EQ(target[j].rotation, p.target.skeleton.rest_pose()[j].rotation)
        << p.target.skeleton.name(j);
  }
  // Names of what stayed unmapped: the end markers (and the hand's child, a finger).
  std::vector<std::string> names;
  for (JointIndex j : p.map.unmapped_target) names.push_back(p.target.skeleton.name(j));
  EXPECT_NE(std::find(names.begin(), names.end(), "mixamorig:HeadTop_End"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "mixamorig:LeftToe_End"), names.end());
}

TEST(Retarget, ZeroLengthBonesNeverProduceNaN) {
  HumanoidSpec s = t_pose_source();
  s.clavicle = 0;  // shoulders on the spine, as CMU's
  s.hand = 0;      // and hands ending where they start
  s.toe_length = 0;
  HumanoidSpec t = a_pose_target();
  t.clavicle = 0;
  Pair p = make_pair(s, t);
  std::vector<Transform> pose = test::rest_of(p.source.skeleton);
  for (Transform& x : pose) x.rotation = normalize(x.rotation * from_axis_angle({1, 0, 1}, 0.4f));
  for (const Transform& x : test::retarget_pose(p.retargeter, pose)) EXPECT_TRUE(is_finite(x));
}

TEST(Retarget, TheUniformScaleShortcutAgreesWithTheMatrixPath) {
  // Uniform scales take quaternion products; any non-uniform scale the exact matrices. A leaf
  // joint scaled by (1, 1 + 1e-3, 1) switches paths without changing any mapped rotation.
  HumanoidSpec s = t_pose_source();
  s.armature_scale = 0.01f;
  Pair p = make_pair(s, a_pose_target());
  std::vector<Transform> pose = test::rest_of(p.source.skeleton);
  for (std::size_t j = 0; j < pose.size(); ++j) {
    pose[j].rotation = normalize(pose[j].rotation * from_axis_angle({1, 2, 3}, 0.05f * j));
  }
  const std::vector<Transform> fast = test::retarget_pose(p.retargeter, pose);
  pose[p.source.head_end].scale = {1, 1.001f, 1};
  const std::vector<Transform> exact = test::retarget_pose(p.retargeter, pose);
  for (std::size_t j = 0; j < fast.size(); ++j) {
    EXPECT_NEAR(std::fabs(dot(fast[j].rotation, exact[j].rotation)), 1.0f, 1e-6f) << j;
    EXPECT_TRUE(near_vec(fast[j].translation, exact[j].translation, 1e-5f)) << j;
  }
}

TEST(Retarget, AClipBecomesATargetClipThatSamplesToTheJobsPoses) {
  Pair p = make_pair(t_pose_source(), a_pose_target());
  const Skeleton& ss = p.source.skeleton;
  ClipBuilder b("wave");
  const float times[] = {0, 0.5f, 1};
  std::vector<float> arm, hips;
  for (float t : times) {
    const Quat q = from_axis_angle({0, 0, 1}, deg(80 * t));
    arm.insert(arm.end(), {q.x, q.y, q.z, q.w});
    hips.insert(hips.end(), {0.2f * t, ss.rest_pose()[p.source.hips].translation.y, -t});
  }
  ASSERT_TRUE(b.add_track(p.source.upper_arm[0], ss.name(p.source.upper_arm[0]),
                          TrackTarget::kRotation, Interpolation::kLinear, times, arm, "t")
                  .ok());
  ASSERT_TRUE(b.add_track(p.source.hips, ss.name(p.source.hips), TrackTarget::kTranslation,
                          Interpolation::kLinear, times, hips, "t")
                  .ok());
  b.add_event(0.5f, "wave");
  b.set_ticks_per_second(30);
  const Clip source_clip = b.build(ss.size(), "t").value();
  Result<Clip> out = retarget_clip(p.retargeter, source_clip);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->name(), "wave");
  EXPECT_EQ(out->duration(), 1.0f);
  EXPECT_EQ(out->ticks_per_second(), 30);
  ASSERT_EQ(out->events().size(), 1u);
  EXPECT_EQ(out->events()[0].name, "wave");
  EXPECT_EQ(out->joint_count(), p.target.skeleton.size());
  for (float t : times) {
    std::vector<Transform> src(ss.size()), tgt(p.target.skeleton.size());
    SamplingCursor sc(source_clip), tc(*out);
    ASSERT_TRUE(sample(source_clip, ss.rest_pose(), t, sc, src));
    ASSERT_TRUE(sample(*out, p.target.skeleton.rest_pose(), t, tc, tgt));
    const std::vector<Transform> want = test::retarget_pose(p.retargeter, src);
    for (std::size_t j = 0; j < tgt.size(); ++j) {
      EXPECT_NEAR(std::fabs(dot(tgt[j].rotation, want[j].rotation)), 1.0f, 1e-6f) << j;
      EXPECT_TRUE(near_vec(tgt[j].translation, want[j].translation, 1e-6f)) << j;
    }
  }
}

// ---- bad input ----

TEST(Retarget, MapsNamingMissingJointsAreErrorsNamingThem) {
  const BuiltHumanoid s = build_humanoid(t_pose_source());
  const BuiltHumanoid t = build_humanoid(a_pose_target());
  RetargetMapSpec spec;
  spec.joints = {{"Nope", "mixamorig:Hips"}};
  Result<RetargetMap> m = make_retarget_map(s.skeleton, t.skeleton, spec, {}, {}, "map.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("map.json"), std::string::npos);
  EXPECT_NE(m.error().message.find("no joint 'Nope'"), std::string::npos);
  spec.joints = {{"Hips", "Nope"}};
  m = make_retarget_map(s.skeleton, t.skeleton, spec);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("target: the skeleton has no joint 'Nope'"), std::string::npos);
  spec.joints = {};
  spec.source_parts = {{HumanoidPart::kLeftHand, {"Claw"}}};
  m = make_retarget_map(s.skeleton, t.skeleton, spec);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("left_hand"), std::string::npos);
  EXPECT_NE(m.error().message.find("'Claw'"), std::string::npos);
}

TEST(Retarget, ManyToOneMapsAreErrors) {
  const BuiltHumanoid s = build_humanoid(t_pose_source());
  const BuiltHumanoid t = build_humanoid(a_pose_target());
  RetargetMapSpec spec;
  spec.joints = {{"LeftHand", "mixamorig:LeftHand"}, {"RightHand", "mixamorig:LeftHand"}};
  Result<RetargetMap> m = make_retarget_map(s.skeleton, t.skeleton, spec);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("many-to-one"), std::string::npos);
  // One-to-many is allowed: one source joint may drive two target joints.
  spec.joints = {{"LeftHand", "mixamorig:LeftHand"}, {"LeftHand", "mixamorig:LeftHandMiddle4"}};
  EXPECT_TRUE(make_retarget_map(s.skeleton, t.skeleton, spec).ok());
}

TEST(Retarget, MapsThatInvertTheHierarchyAreCycleErrors) {
  const BuiltHumanoid s = build_humanoid(t_pose_source());
  const BuiltHumanoid t = build_humanoid(a_pose_target());
  RetargetMapSpec spec;
  spec.automatic = false;
  // LeftArm is above LeftForeArm in the source, but what it drives is below what LeftForeArm
  // drives in the target: hierarchy, map, hierarchy, map back to the start, a cycle.
  spec.joints = {{"LeftArm", "mixamorig:LeftForeArm"}, {"LeftForeArm", "mixamorig:LeftArm"}};
  Result<RetargetMap> m = make_retarget_map(s.skeleton, t.skeleton, spec);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("cycle"), std::string::npos);
  EXPECT_NE(m.error().message.find("'LeftArm' is above 'LeftForeArm'"), std::string::npos);
}

TEST(Retarget, SkeletonsWithoutHipsAreErrors) {
  // A tail: a chain of joints, no legs anywhere.
  std::vector<JointDesc> tail;
  for (int i = 0; i < 6; ++i) {
    Transform t;
    t.translation = {0, 0.2f, 0};
    tail.push_back({"tail" + std::to_string(i), i - 1, t});
  }
  const Skeleton snake = Skeleton::build(tail, "snake").value();
  const BuiltHumanoid t = build_humanoid(a_pose_target());
  Result<RetargetMap> m = make_retarget_map(snake, t.skeleton, {}, {}, {}, "snake.bvh");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("snake.bvh: source"), std::string::npos);
  EXPECT_NE(m.error().message.find("no hips"), std::string::npos);
  // Explicit pairs alone need no hips (and give no root translation).
  RetargetMapSpec spec;
  spec.automatic = false;
  spec.joints = {{"tail0", "mixamorig:Spine"}, {"tail1", "mixamorig:Spine1"}};
  Result<RetargetMap> ok = make_retarget_map(snake, t.skeleton, spec);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->target_hips, kNoParent);
  Result<Retargeter> r = Retargeter::create(snake, t.skeleton, *ok);
  ASSERT_TRUE(r.ok()) << r.error().message;
}

TEST(Retarget, NonFiniteSourcePosesAreANoOpForTheFrame) {
  Pair p = make_pair(t_pose_source(), a_pose_target());
  RetargetContext context(p.retargeter);
  std::vector<Transform> source = test::rest_of(p.source.skeleton);
  std::vector<Transform> target(p.target.skeleton.size());
  for (Transform& x : target) x.translation = {7, 7, 7};
  const std::vector<Transform> before = target;
  RetargetJob job;
  job.retargeter = &p.retargeter;
  job.context = &context;
  job.source_pose = source;
  job.target_pose = target;
  source[3].rotation.x = std::nanf("");
  EXPECT_TRUE(test::run_refused(job, "RetargetJob: source_pose[3]"));
  source[3] = p.source.skeleton.rest_pose()[3];
  source[0].translation.y = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(test::run_refused(job, "RetargetJob: source_pose[0]"));
  for (std::size_t j = 0; j < target.size(); ++j) EXPECT_EQ(target[j], before[j]);
  job.target_pose = std::span<Transform>(target).first(3);  // too short
  EXPECT_TRUE(test::refused_naming(job.validate(), "RetargetJob: target_pose"));
  RetargetContext empty;
  job.target_pose = target;
  job.context = &empty;
  EXPECT_TRUE(test::refused_naming(job.validate(), "RetargetJob: context"));
}

TEST(Retarget, ReferencePosesThatAreNotUprightOrNotFiniteAreErrors) {
  const BuiltHumanoid s = build_humanoid(t_pose_source());
  HumanoidSpec turned = a_pose_target();
  turned.yaw_degrees = 45;  // neither facing an axis: which way is forward?
  const BuiltHumanoid t = build_humanoid(turned);
  const RetargetMap map = make_retarget_map(s.skeleton, t.skeleton).value();
  Result<Retargeter> r = Retargeter::create(s.skeleton, t.skeleton, map);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not upright"), std::string::npos);
  EXPECT_NE(r.error().message.find("T-pose"), std::string::npos);

  const BuiltHumanoid u = build_humanoid(a_pose_target());
  const RetargetMap map2 = make_retarget_map(s.skeleton, u.skeleton).value();
  std::vector<Transform> reference = test::rest_of(u.skeleton);
  reference[2].translation.x = std::nanf("");
  RetargetOptions o;
  o.target_reference = reference;
  r = Retargeter::create(s.skeleton, u.skeleton, map2, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not finite"), std::string::npos);
  reference.resize(3);
  o.target_reference = reference;
  r = Retargeter::create(s.skeleton, u.skeleton, map2, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("transforms for"), std::string::npos);
}

TEST(Retarget, ClipsOfAnotherSkeletonAreErrors) {
  Pair p = make_pair(t_pose_source(), a_pose_target());
  ClipBuilder b("other");
  const Clip other = b.build(5, "other").value();
  Result<Clip> out = retarget_clip(p.retargeter, other);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("built for 5 joints"), std::string::npos);
}

}  // namespace
}  // namespace marrow
