// The BVH importer on real files (CMU 01_01, Boxing_Toes) and on hand-written texts: joints,
// clip timing, local transforms as written in the file, global positions computed by hand with
// rotation matrices, and the Euler conventions for all six rotation orders.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bvh_test_util.h"
#include "marrow/io/asset.h"
#include "shared_asset.h"

namespace fs = std::filesystem;
using namespace bvh_test;
using marrow::Asset;
using marrow::TrackTarget;

namespace {

const fs::path kAssets = marrow::test::shared_asset_dir() / "bvh";

Asset load_file(const fs::path& path) {
  marrow::Result<Asset> asset = marrow::load_asset(path.string());
  EXPECT_TRUE(asset.ok()) << asset.error().message;
  if (!asset.ok()) return {};
  return std::move(asset).value();
}

// ---------------------------------------------------------------------------------------------
// CMU 01_01.bvh: 31 joints + 7 End Sites, ZYX Euler order, 2752 frames at 0.0083333 s.

TEST(BvhCmu, JointsNamesAndParents) {
  const fs::path path = kAssets / "01_01.bvh";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  const Asset asset = load_file(path);
  const std::vector<std::string> names = {"Hips",
                                          "LHipJoint",
                                          "LeftUpLeg",
                                          "LeftLeg",
                                          "LeftFoot",
                                          "LeftToeBase",
                                          "LeftToeBase_End",
                                          "RHipJoint",
                                          "RightUpLeg",
                                          "RightLeg",
                                          "RightFoot",
                                          "RightToeBase",
                                          "RightToeBase_End",
                                          "LowerBack",
                                          "Spine",
                                          "Spine1",
                                          "Neck",
                                          "Neck1",
                                          "Head",
                                          "Head_End",
                                          "LeftShoulder",
                                          "LeftArm",
                                          "LeftForeArm",
                                          "LeftHand",
                                          "LeftFingerBase",
                                          "LFingers",
                                          "LFingers_End",
                                          "LThumb",
                                          "LThumb_End",
                                          "RightShoulder",
                                          "RightArm",
                                          "RightForeArm",
                                          "RightHand",
                                          "RightFingerBase",
                                          "RFingers",
                                          "RFingers_End",
                                          "RThumb",
                                          "RThumb_End"};
  ASSERT_EQ(asset.skeleton.size(), 38u);
  for (std::size_t j = 0; j < names.size(); ++j) EXPECT_EQ(asset.skeleton.name(j), names[j]);
  EXPECT_EQ(asset.skeleton.parent(0), marrow::kNoParent);
  EXPECT_EQ(asset.skeleton.parent(joint(asset, "LThumb")), joint(asset, "LeftHand"));
  EXPECT_EQ(asset.skeleton.parent(joint(asset, "Head_End")), joint(asset, "Head"));
  for (std::size_t j = 0; j < asset.source_index.size(); ++j) {
    EXPECT_EQ(asset.source_index[j], static_cast<std::int64_t>(j));  // declaration order
  }
  // Rest pose: OFFSET as translation, identity rotation; End Sites keep their OFFSET too.
  const auto rest = asset.skeleton.rest_pose();
  expect_near(rest[joint(asset, "LeftUpLeg")].translation, {1.36306, -1.79463, 0.83929}, 1e-6);
  expect_near(rest[joint(asset, "LThumb_End")].translation, {0.58547, 0, 0.58547}, 1e-6);
  EXPECT_EQ(rest[joint(asset, "LeftUpLeg")].rotation, marrow::Quat::identity());
}

TEST(BvhCmu, ClipTiming) {
  const fs::path path = kAssets / "01_01.bvh";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  const Asset asset = load_file(path);
  ASSERT_EQ(asset.clips.size(), 1u);
  const marrow::Clip& clip = asset.clips[0];
  EXPECT_EQ(clip.name(), "01_01");
  // "Frames: 2752", "Frame Time: .0083333".
  EXPECT_NEAR(clip.duration(), 2751 * 0.0083333, 1e-4);
  EXPECT_DOUBLE_EQ(clip.ticks_per_second(), 1.0 / 0.0083333);
  // Hips: translation + rotation; 30 other joints: rotation only; End Sites: nothing.
  EXPECT_EQ(clip.tracks().size(), 32u);
  for (const marrow::Track& t : clip.tracks()) {
    EXPECT_EQ(t.key_count, 2752u);
    EXPECT_EQ(t.interpolation, marrow::Interpolation::kLinear);
  }
  EXPECT_NE(find_track(clip, joint(asset, "Hips"), TrackTarget::kTranslation), nullptr);
  EXPECT_EQ(find_track(clip, joint(asset, "LeftUpLeg"), TrackTarget::kTranslation), nullptr);
  EXPECT_NE(find_track(clip, joint(asset, "LeftUpLeg"), TrackTarget::kRotation), nullptr);
  EXPECT_EQ(find_track(clip, joint(asset, "Head_End"), TrackTarget::kRotation), nullptr);
  const marrow::Track& first = clip.tracks()[0];
  EXPECT_NEAR(clip.times()[first.first_key + 1], 0.0083333, 1e-9);
  EXPECT_NEAR(clip.times()[first.first_key + 2751], 2751 * 0.0083333, 1e-4);
}

TEST(BvhCmu, LocalTransformsAtFrame100) {
  const fs::path path = kAssets / "01_01.bvh";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  const Asset asset = load_file(path);
  ASSERT_EQ(asset.clips.size(), 1u);
  // Line 288 of the file (frame 100), first 15 values: Hips Xpos Ypos Zpos Zrot Yrot Xrot,
  // LHipJoint Z Y X, LeftUpLeg Z Y X, LeftLeg Z Y X:
  // 9.4705 17.8549 -18.2081 -5.5627 -4.1155 4.1142 0.0000 0.0000 0.0000
  // -10.4645 -1.5300 -13.6913 2.9061 10.5414 30.7485
  const std::vector<marrow::Transform> pose = local_pose(asset, 100);
  const marrow::Transform& hips = pose[joint(asset, "Hips")];
  expect_near(hips.translation, {9.4705, 17.8549, -18.2081}, 1e-5);
  expect_same_rotation(hips.rotation, euler_quat("ZYX", {-5.5627, -4.1155, 4.1142}));
  const marrow::Transform& up_leg = pose[joint(asset, "LeftUpLeg")];
  expect_near(up_leg.translation, {1.36306, -1.79463, 0.83929}, 1e-6);  // OFFSET holds
  expect_same_rotation(up_leg.rotation, euler_quat("ZYX", {-10.4645, -1.5300, -13.6913}));
  expect_same_rotation(pose[joint(asset, "LHipJoint")].rotation, marrow::Quat::identity());
}

TEST(BvhCmu, GlobalPositionOfLeftFootAtFrame100) {
  const fs::path path = kAssets / "01_01.bvh";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  const Asset asset = load_file(path);
  ASSERT_EQ(asset.clips.size(), 1u);
  // Hips -> LHipJoint (OFFSET 0 0 0, rotation 0 0 0) -> LeftUpLeg -> LeftLeg -> LeftFoot, with
  // rotation matrices from the numbers of line 288 and the OFFSETs of lines 12, 16, 20.
  const V3 hips_t{9.4705, 17.8549, -18.2081};
  const M3 r_hips = euler_matrix("ZYX", {-5.5627, -4.1155, 4.1142});
  const M3 r_up_leg = euler_matrix("ZYX", {-10.4645, -1.5300, -13.6913});
  const M3 r_leg = euler_matrix("ZYX", {2.9061, 10.5414, 30.7485});
  const V3 up_leg_offset{1.36306, -1.79463, 0.83929};
  const V3 leg_offset{2.44811, -6.72613, 0.00000};
  const V3 foot_offset{2.56220, -7.03959, 0.00000};
  const V3 leg = hips_t + r_hips * (up_leg_offset + r_up_leg * leg_offset);
  const V3 foot = hips_t + r_hips * (up_leg_offset + r_up_leg * (leg_offset + r_leg * foot_offset));
  const std::vector<marrow::Mat4> model = model_pose(asset, 100);
  expect_near(model[joint(asset, "LeftLeg")].translation(), leg, 1e-4);
  expect_near(model[joint(asset, "LeftFoot")].translation(), foot, 1e-4);
}

// ---------------------------------------------------------------------------------------------
// Boxing_Toes.bvh: 21 joints + 5 End Sites, ZXY order, 3069 frames at 0.01 s, and one extra
// frame line after the announced frames.

TEST(BvhBoxing, JointsAndTiming) {
  const fs::path path = kAssets / "Boxing_Toes.bvh";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  const Asset asset = load_file(path);
  const std::vector<std::string> names = {
      "Hips",           "Ab",          "Chest",         "Neck",       "Head",
      "Head_End",       "LeftCollar",  "LeftShoulder",  "LeftElbow",  "LeftWrist",
      "LeftWrist_End",  "RightCollar", "RightShoulder", "RightElbow", "RightWrist",
      "RightWrist_End", "LeftHip",     "LeftKnee",      "LeftAnkle",  "LeftToes",
      "LeftToes_End",   "RightHip",    "RightKnee",     "RightAnkle", "RightToes",
      "RightToes_End"};
  ASSERT_EQ(asset.skeleton.size(), names.size());
  for (std::size_t j = 0; j < names.size(); ++j) EXPECT_EQ(asset.skeleton.name(j), names[j]);
  EXPECT_EQ(asset.skeleton.parent(joint(asset, "LeftCollar")), joint(asset, "Chest"));
  ASSERT_EQ(asset.clips.size(), 1u);
  EXPECT_EQ(asset.clips[0].name(), "Boxing_Toes");
  EXPECT_NEAR(asset.clips[0].duration(), 3068 * 0.01, 1e-4);  // Frames: 3069, Frame Time: 0.01
  EXPECT_NEAR(asset.clips[0].ticks_per_second(), 100.0, 1e-9);
  EXPECT_EQ(asset.clips[0].tracks()[0].key_count, 3069u);
  bool warned = false;
  for (const std::string& w : asset.warnings) {
    warned |= w.find("1 line(s) after the last of the 3069 frames ignored") != std::string::npos;
  }
  EXPECT_TRUE(warned);
}

TEST(BvhBoxing, LocalAndGlobalAtFrame500) {
  const fs::path path = kAssets / "Boxing_Toes.bvh";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  const Asset asset = load_file(path);
  ASSERT_EQ(asset.clips.size(), 1u);
  // Line 630 (frame 500): Hips X Y Zpos, Z X Yrot; Ab, Chest, Neck, Head, LeftCollar,
  // LeftShoulder Z X Y:
  // -15.483184 87.328339 54.456638 -0.984078 -0.124086 -147.404367
  // -4.057456 -8.121274 -3.339047   3.803020 20.759408 -3.732332   (Ab, Chest)
  // -5.989853 25.081085 -11.153088  20.650616 -26.167637 -7.680321 (Neck, Head)
  // -10.772149 0.567890 -5.508995   -20.576920 29.590659 -62.867271 (LeftCollar, LeftShoulder)
  const V3 hips_t{-15.483184, 87.328339, 54.456638};
  const std::vector<marrow::Transform> pose = local_pose(asset, 500);
  expect_near(pose[joint(asset, "Hips")].translation, hips_t, 1e-5);
  expect_same_rotation(pose[joint(asset, "Hips")].rotation,
                       euler_quat("ZXY", {-0.984078, -0.124086, -147.404367}));
  expect_same_rotation(pose[joint(asset, "LeftShoulder")].rotation,
                       euler_quat("ZXY", {-20.576920, 29.590659, -62.867271}));
  expect_near(pose[joint(asset, "LeftShoulder")].translation, {20, 0, 0}, 1e-6);

  const M3 r_hips = euler_matrix("ZXY", {-0.984078, -0.124086, -147.404367});
  const M3 r_ab = euler_matrix("ZXY", {-4.057456, -8.121274, -3.339047});
  const M3 r_chest = euler_matrix("ZXY", {3.803020, 20.759408, -3.732332});
  const M3 r_collar = euler_matrix("ZXY", {-10.772149, 0.567890, -5.508995});
  const M3 r_shoulder = euler_matrix("ZXY", {-20.576920, 29.590659, -62.867271});
  const V3 ab_offset{0, 8.268300, 0}, chest_offset{0, 22.417377, 0};
  const V3 collar_offset{0, 22.417377, 0}, shoulder_offset{20, 0, 0};
  const V3 elbow_offset{25.590265, 0, 0};
  const V3 elbow =
      hips_t +
      r_hips * (ab_offset +
                r_ab * (chest_offset +
                        r_chest * (collar_offset +
                                   r_collar * (shoulder_offset + r_shoulder * elbow_offset))));
  const std::vector<marrow::Mat4> model = model_pose(asset, 500);
  expect_near(model[joint(asset, "LeftElbow")].translation(), elbow, 1e-3);
}

// ---------------------------------------------------------------------------------------------
// Hand-written files.

// One root at the origin with the given rotation channels and values, and an End Site at
// OFFSET 1 2 3 whose model position is the rotated vector R * (1, 2, 3).
std::string rotated_site(const std::string& channels, const std::string& values, int count) {
  return "HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS " + std::to_string(count) + " " +
         channels + "\n  End Site\n  {\n    OFFSET 1 2 3\n  }\n}\nMOTION\nFrames: 1\n" +
         "Frame Time: 0.1\n" + values + "\n";
}

struct OrderCase {
  std::string channels;
  V3 expected;  // R * (1, 2, 3), worked out by hand
};

void PrintTo(const OrderCase& c, std::ostream* os) {
  *os << c.channels;
}

class BvhRotationOrder : public testing::TestWithParam<OrderCase> {};

// 90 degrees about every axis. With Rx: (x,y,z) -> (x,-z,y), Ry: -> (z,y,-x), Rz: -> (-y,x,z)
// and R = R1 * R2 * R3 for channels listed 1 2 3 (R3 acts first on the vector):
//   XYZ: Rz(1,2,3)=(-2,1,3)  Ry->(3,1,2)   Rx->(3,-2,1)
//   XZY: Ry(1,2,3)=(3,2,-1)  Rz->(-2,3,-1) Rx->(-2,1,3)
//   YXZ: Rz(1,2,3)=(-2,1,3)  Rx->(-2,-3,1) Ry->(1,-3,2)
//   YZX: Rx(1,2,3)=(1,-3,2)  Rz->(3,1,2)   Ry->(2,1,-3)
//   ZXY: Ry(1,2,3)=(3,2,-1)  Rx->(3,1,2)   Rz->(-1,3,2)
//   ZYX: Rx(1,2,3)=(1,-3,2)  Ry->(2,-3,-1) Rz->(3,2,-1)
TEST_P(BvhRotationOrder, NinetyDegreesAboutEachAxis) {
  const OrderCase& c = GetParam();
  const Asset asset = load_text(rotated_site(c.channels, "90 90 90", 3));
  ASSERT_EQ(asset.skeleton.size(), 2u);
  EXPECT_EQ(asset.skeleton.name(1), "A_End");
  const std::vector<marrow::Mat4> model = model_pose(asset, 0);
  expect_near(model[1].translation(), c.expected, 1e-5);
}

// Distinct angles per axis against the product of axis-angle quaternions in listed order.
TEST_P(BvhRotationOrder, MatchesQuaternionProductInListedOrder) {
  const OrderCase& c = GetParam();
  std::string letters;  // the axis letters in listed order
  for (std::size_t start = 0; start < c.channels.size();) {
    letters += c.channels[start];
    start = c.channels.find(' ', start);
    if (start == std::string::npos) break;
    ++start;
  }
  ASSERT_EQ(letters.size(), 3u);
  const Asset asset = load_text(rotated_site(c.channels, "30 -50 115", 3));
  const std::vector<marrow::Transform> pose = local_pose(asset, 0);
  expect_same_rotation(pose[0].rotation, euler_quat(letters, {30, -50, 115}));
  const V3 want = euler_matrix(letters, {30, -50, 115}) * V3{1, 2, 3};
  expect_near(model_pose(asset, 0)[1].translation(), want, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(AllSix, BvhRotationOrder,
                         testing::Values(OrderCase{"Xrotation Yrotation Zrotation", {3, -2, 1}},
                                         OrderCase{"Xrotation Zrotation Yrotation", {-2, 1, 3}},
                                         OrderCase{"Yrotation Xrotation Zrotation", {1, -3, 2}},
                                         OrderCase{"Yrotation Zrotation Xrotation", {2, 1, -3}},
                                         OrderCase{"Zrotation Xrotation Yrotation", {-1, 3, 2}},
                                         OrderCase{"Zrotation Yrotation Xrotation", {3, 2, -1}}),
                         [](const testing::TestParamInfo<OrderCase>& info) {
                           std::string name;
                           for (char ch : info.param.channels) {
                             if (ch == 'X' || ch == 'Y' || ch == 'Z') name += ch;
                           }
                           return name;
                         });

TEST(BvhRotation, TwoAxesInEitherOrder) {
  // Rx(90) Ry(90) (1,2,3): Ry -> (3,2,-1), Rx -> (3,1,2).
  Asset xy = load_text(rotated_site("Xrotation Yrotation", "90 90", 2));
  expect_near(model_pose(xy, 0)[1].translation(), {3, 1, 2}, 1e-5);
  // Ry(90) Rx(90) (1,2,3): Rx -> (1,-3,2), Ry -> (2,-3,-1).
  Asset yx = load_text(rotated_site("Yrotation Xrotation", "90 90", 2));
  expect_near(model_pose(yx, 0)[1].translation(), {2, -3, -1}, 1e-5);
  // A single axis: Zrotation 90 turns (1,2,3) into (-2,1,3).
  Asset z = load_text(rotated_site("Zrotation", "90", 1));
  expect_near(model_pose(z, 0)[1].translation(), {-2, 1, 3}, 1e-5);
}

TEST(BvhRotation, ConsecutiveKeysShareAHemisphere) {
  const Asset asset = load_text(
      "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Yrotation\n}\nMOTION\n"
      "Frames: 6\nFrame Time: 0.5\n0\n170\n-170\n170\n-170\n-10\n");
  ASSERT_EQ(asset.clips.size(), 1u);
  const marrow::Clip& clip = asset.clips[0];
  ASSERT_EQ(clip.tracks().size(), 1u);
  const marrow::Track& t = clip.tracks()[0];
  ASSERT_EQ(t.key_count, 6u);
  const double degrees[] = {0, 170, -170, 170, -170, -10};
  marrow::Quat previous{};
  for (std::uint32_t k = 0; k < t.key_count; ++k) {
    const float* v = clip.values().data() + t.first_value + k * 4;
    const marrow::Quat q{v[0], v[1], v[2], v[3]};
    expect_same_rotation(q, euler_quat("Y", {degrees[k], 0, 0}));
    if (k > 0) {
      EXPECT_GE(marrow::dot(previous, q), 0.0f) << "key " << k;
    }
    previous = q;
  }
  // Halfway between 170 and -170 degrees is 180, not 0.
  std::vector<marrow::Transform> pose(1);
  marrow::SamplingCursor cursor(clip);
  ASSERT_TRUE(marrow::sample(clip, asset.skeleton.rest_pose(), 0.75f, cursor, pose));
  expect_same_rotation(pose[0].rotation, euler_quat("Y", {180, 0, 0}), 1e-4f);
}

// ---------------------------------------------------------------------------------------------
// Translation conventions.

TEST(BvhTranslation, PositionChannelsReplaceOffset) {
  const Asset asset = load_text(
      "HIERARCHY\nROOT Root\n{\n OFFSET 10 20 30\n"
      " CHANNELS 6 Zposition Xposition Yposition Yrotation Xrotation Zrotation\n"
      " JOINT Child\n {\n  OFFSET 1 0 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
      "  End Site\n  {\n   OFFSET 0 1 0\n  }\n }\n}\n"
      "MOTION\nFrames: 2\nFrame Time: 0.25\n"
      "3 1 2 0 0 0 0 0 0\n6 4 5 0 0 90 0 0 0\n");
  ASSERT_EQ(asset.clips.size(), 1u);
  const marrow::Clip& clip = asset.clips[0];
  EXPECT_FLOAT_EQ(clip.duration(), 0.25f);
  EXPECT_DOUBLE_EQ(clip.ticks_per_second(), 4.0);
  EXPECT_EQ(clip.tracks().size(), 3u);  // Root T, Root R, Child R
  expect_near(asset.skeleton.rest_pose()[0].translation, {10, 20, 30}, 0);
  // Values are read by channel name, whatever their order: X=1 Y=2 Z=3, then X=4 Y=5 Z=6.
  expect_near(local_pose(asset, 0)[0].translation, {1, 2, 3}, 1e-6);
  const std::vector<marrow::Transform> pose1 = local_pose(asset, 1);
  expect_near(pose1[0].translation, {4, 5, 6}, 1e-6);
  expect_near(pose1[1].translation, {1, 0, 0}, 1e-6);  // Child has no position channels
  // Frame 1: Root Zrotation 90: the child (1,0,0) lands at (4,5,6) + (0,1,0).
  expect_near(model_pose(asset, 1)[1].translation(), {4, 6, 6}, 1e-5);
  // The End Site (0,1,0) under the child: (4,6,6) + Rz(90)(0,1,0) = (3,6,6).
  expect_near(model_pose(asset, 1)[2].translation(), {3, 6, 6}, 1e-5);
}

TEST(BvhTranslation, SubsetOfChannels) {
  // One position channel: the other two axes keep the OFFSET's values.
  const Asset asset = load_text(
      "HIERARCHY\nROOT R\n{\n OFFSET 10 20 30\n CHANNELS 2 Yposition Xrotation\n}\n"
      "MOTION\nFrames: 1\nFrame Time: 1\n-7 90\n");
  ASSERT_EQ(asset.clips.size(), 1u);
  EXPECT_EQ(asset.clips[0].tracks().size(), 2u);
  const std::vector<marrow::Transform> pose = local_pose(asset, 0);
  expect_near(pose[0].translation, {10, -7, 30}, 1e-6);
  expect_same_rotation(pose[0].rotation, euler_quat("X", {90, 0, 0}));
  EXPECT_EQ(asset.clips[0].duration(), 0.0f);
}

TEST(BvhTranslation, JointWithoutChannelsHasNoTracks) {
  const Asset asset = load_text(
      "HIERARCHY\nROOT R\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n"
      " JOINT Fixed\n {\n  OFFSET 1 2 3\n  CHANNELS 0\n }\n}\n"
      "MOTION\nFrames: 2\nFrame Time: 0.5\n1 1 1\n2 2 2\n");
  ASSERT_EQ(asset.clips.size(), 1u);
  ASSERT_EQ(asset.clips[0].tracks().size(), 1u);
  EXPECT_EQ(asset.clips[0].tracks()[0].target, TrackTarget::kTranslation);
  expect_near(model_pose(asset, 1)[1].translation(), {3, 4, 5}, 1e-6);
}

// ---------------------------------------------------------------------------------------------
// Structure and syntax variants.

TEST(BvhStructure, SeveralRootsFormAForest) {
  const Asset asset = load_text(
      "HIERARCHY\nROOT A\n{\n OFFSET 1 0 0\n CHANNELS 1 Xposition\n}\n"
      "ROOT B\n{\n OFFSET 0 0 0\n CHANNELS 1 Zrotation\n JOINT C\n {\n  OFFSET 2 0 0\n"
      "  CHANNELS 1 Zrotation\n }\n}\n"
      "MOTION\nFrames: 1\nFrame Time: 0.04\n5 90 90\n");
  ASSERT_EQ(asset.skeleton.size(), 3u);
  EXPECT_EQ(asset.skeleton.parent(0), marrow::kNoParent);
  EXPECT_EQ(asset.skeleton.parent(1), marrow::kNoParent);
  EXPECT_EQ(asset.skeleton.parent(2), 1);
  const std::vector<marrow::Mat4> model = model_pose(asset, 0);
  expect_near(model[0].translation(), {5, 0, 0}, 1e-6);
  expect_near(model[2].translation(), {0, 2, 0}, 1e-5);  // B turns C's (2,0,0) by 90 about z
  expect_same_rotation(local_pose(asset, 0)[2].rotation, euler_quat("Z", {90, 0, 0}));
}

TEST(BvhStructure, EndSiteNamesStayUnique) {
  const Asset asset = load_text(
      "HIERARCHY\nROOT Arm\n{\n OFFSET 0 0 0\n CHANNELS 0\n"
      " JOINT Arm_End\n {\n  OFFSET 1 0 0\n }\n"
      " End Site\n {\n  OFFSET 0 1 0\n }\n End Site\n {\n  OFFSET 0 0 1\n }\n}\n");
  ASSERT_EQ(asset.skeleton.size(), 4u);
  EXPECT_EQ(asset.skeleton.name(1), "Arm_End");
  EXPECT_EQ(asset.skeleton.name(2), "Arm_End2");
  EXPECT_EQ(asset.skeleton.name(3), "Arm_End3");
  EXPECT_TRUE(asset.clips.empty());  // no MOTION section: skeleton only, with a warning
  EXPECT_FALSE(asset.warnings.empty());
}

TEST(BvhStructure, LenientSyntax) {
  // Byte order mark, CRLF, tabs, lower-case keywords, a name with a space, '{' on the name's
  // line, a '+' sign, an exponent, blank lines among the frames.
  const Asset asset = load_text(
      "\xEF\xBB\xBFhierarchy\r\nRoot Left Hip {\r\n\tOFFSET +1 0 2e1\r\n\tCHANNELS 1 "
      "xrotation\r\n}\r\nmotion\r\nFrames:\t3\r\nFrame Time:0.5\r\n10\r\n\r\n20\r\n30\r\n");
  ASSERT_EQ(asset.skeleton.size(), 1u);
  EXPECT_EQ(asset.skeleton.name(0), "Left Hip");
  expect_near(asset.skeleton.rest_pose()[0].translation, {1, 0, 20}, 0);
  ASSERT_EQ(asset.clips.size(), 1u);
  EXPECT_EQ(asset.clips[0].tracks()[0].key_count, 3u);
  EXPECT_FLOAT_EQ(asset.clips[0].duration(), 1.0f);
  expect_same_rotation(local_pose(asset, 2)[0].rotation, euler_quat("X", {30, 0, 0}));
}

TEST(BvhStructure, ClipNameComesFromTheFileStem) {
  const std::string text =
      "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1\n"
      "Frame Time: 0.1\n5\n";
  EXPECT_EQ(load_text(text, "some/dir/walk_02.bvh").clips.at(0).name(), "walk_02");
  EXPECT_EQ(load_text(text, "").clips.at(0).name(), "motion");

  // Through load_asset and a real file.
  const fs::path dir = fs::path(testing::TempDir()) / "marrow_bvh_test";
  fs::create_directories(dir);
  const fs::path file = dir / "Jump.BVH";
  std::ofstream(file) << text;
  marrow::Result<Asset> asset = marrow::load_asset(file.string());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  EXPECT_EQ(asset->clips.at(0).name(), "Jump");
  EXPECT_EQ(asset->source, file.string());
  fs::remove_all(dir);
}

TEST(BvhStructure, ZeroFramesGiveNoClip) {
  const Asset asset = load_text(
      "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 0\n"
      "Frame Time: 0.1\n");
  EXPECT_EQ(asset.skeleton.size(), 1u);
  EXPECT_TRUE(asset.clips.empty());
}

}  // namespace
