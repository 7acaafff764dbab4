// The .X files in ../shared/assets/x: numbers below are copied from the files by hand (line
// numbers given), and global transforms are multiplied out here in D3D's own row-vector form.
#include <algorithm>
#include <numeric>

#include "marrow/io/asset.h"
#include "x_test_util.h"

namespace marrow::xtest {
namespace {

const std::vector<std::string> kWusonFrames = {
    "Wuson",         "Root",          "Spine_Back01",  "Spine_Back02",  "Spine_Back03",
    "Pelvis",        "Tail01",        "Tail02",        "Tail03",        "Tail04",
    "Tail05",        "Tail06",        "HindLeg_L_01",  "HindLeg_L_02",  "HindLeg_L_03",
    "HindLeg_L_04",  "HindLeg_R_01",  "HindLeg_R_02",  "HindLeg_R_03",  "HindLeg_R_04",
    "Spine_Front01", "Spine_Front02", "Spine_Front03", "Spine_Front04", "Spine_Front05",
    "Neck",          "Ear_L",         "Mouth",         "Ear_R",         "ForeLeg_L_01",
    "ForeLeg_L_02",  "ForeLeg_L_03",  "ForeLeg_L_04",  "ForeLeg_L_05",  "ForeLeg_R_01",
    "ForeLeg_R_02",  "ForeLeg_R_03",  "ForeLeg_R_04",  "ForeLeg_R_05"};

// FrameTransformMatrix of Root, Spine_Back01 and Spine_Back02 (Testwuson.X lines 28654, 28665,
// 28676).
const D3D kRootFrame = {0.000000,  0.999908, 0.013585,  0.000000,  -0.000000, 0.013585,
                        -0.999908, 0.000000, -1.000000, -0.000000, 0.000000,  0.000000,
                        0.000000,  0.522834, 0.009935,  1.000000};
const D3D kSpineBack01Frame = {0.069266,  -0.997598, 0.000000, 0.000000, 0.997598, 0.069266,
                               -0.000000, 0.000000,  0.000000, 0.000000, 1.000000, 0.000000,
                               0.548873,  -0.033705, 0.000000, 1.000000};
const D3D kSpineBack02Frame = {0.986212, 0.165490,  0.000000,  0.000000,  -0.165490, 0.986212,
                               0.000000, 0.000000,  -0.000000, -0.000000, 1.000000,  0.000000,
                               0.156952, -0.000000, -0.000000, 1.000000};

class Wuson : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = x_asset("Testwuson.X");
    if (!std::filesystem::exists(path)) return;
    Result<Asset> r = read_x(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    asset_ = new Asset(std::move(r).value());
  }
  static void TearDownTestSuite() {
    delete asset_;
    asset_ = nullptr;
  }
  void SetUp() override {
    if (!asset_) GTEST_SKIP() << x_asset("Testwuson.X") << " is absent";
  }
  static JointIndex joint(const std::string& name) {
    const auto j = asset_->skeleton.find(name);
    EXPECT_TRUE(j.has_value()) << name;
    return j.value_or(0);
  }
  static Asset* asset_;
};
Asset* Wuson::asset_ = nullptr;

TEST_F(Wuson, EveryFrameIsAJointInFileOrder) {
  const Skeleton& s = asset_->skeleton;
  ASSERT_EQ(s.size(), 39u);
  for (std::size_t j = 0; j < s.size(); ++j) {
    EXPECT_EQ(s.name(j), kWusonFrames[j]);
    EXPECT_EQ(asset_->source_index[j], static_cast<std::int64_t>(j));
  }
  // A forest: the mesh frame Wuson and the bone root Root are both top-level frames.
  EXPECT_EQ(s.parent(joint("Wuson")), kNoParent);
  EXPECT_EQ(s.parent(joint("Root")), kNoParent);
  EXPECT_EQ(s.parent(joint("Spine_Back01")), joint("Root"));
  EXPECT_EQ(s.parent(joint("Tail01")), joint("Pelvis"));
  EXPECT_EQ(s.parent(joint("Mouth")), joint("Neck"));
  EXPECT_EQ(s.parent(joint("ForeLeg_R_01")), joint("Spine_Front03"));  // line 29042
}

TEST_F(Wuson, ClipsAreTheAnimationSetsWithDurationsInSeconds) {
  ASSERT_EQ(asset_->clips.size(), 3u);
  EXPECT_EQ(asset_->clips[0].name(), "Wuson_Run");
  EXPECT_EQ(asset_->clips[1].name(), "Wuson_Walk");
  EXPECT_EQ(asset_->clips[2].name(), "Wuson_Bind");
  // AnimTicksPerSecond 4800 (line 29107); the last key of Wuson_Run is at tick 4640, of
  // Wuson_Walk at tick 17280; Wuson_Bind has one key per channel at tick 0.
  EXPECT_NEAR(asset_->clips[0].duration(), 4640.0 / 4800.0, 1e-6);
  EXPECT_NEAR(asset_->clips[1].duration(), 17280.0 / 4800.0, 1e-6);
  EXPECT_EQ(asset_->clips[2].duration(), 0.0f);
  for (const Clip& c : asset_->clips) {
    EXPECT_EQ(c.ticks_per_second(), 4800.0);
    EXPECT_EQ(c.tracks().size(), 39u * 3u) << c.name();  // rot, scale, pos for every frame
  }
}

TEST_F(Wuson, RestPoseIsTheFrameTransformMatrix) {
  // Wuson's matrix (line 151) has rows (1 0 0) (0 0 1) (0 -1 0): y goes to z, a rotation of
  // +90 degrees about x.
  const Transform& t = asset_->skeleton.rest_pose()[joint("Wuson")];
  EXPECT_NEAR(t.rotation.x, std::sqrt(0.5), 1e-5);
  EXPECT_NEAR(t.rotation.w, std::sqrt(0.5), 1e-5);
  const Transform& r = asset_->skeleton.rest_pose()[joint("Root")];
  EXPECT_NEAR(r.translation.x, 0.0, 1e-6);
  EXPECT_NEAR(r.translation.y, 0.522834, 1e-6);
  EXPECT_NEAR(r.translation.z, 0.009935, 1e-6);
}

TEST_F(Wuson, RestGlobalTransformByHand) {
  // Row vectors: global = local(child) * local(parent) * ... up to the root.
  const D3D global = d3d_mul(d3d_mul(kSpineBack02Frame, kSpineBack01Frame), kRootFrame);
  const std::vector<Mat4> model = model_pose(*asset_, nullptr, 0);
  expect_same_matrix(model[joint("Spine_Back02")], global, 2e-5, "Spine_Back02 rest");
}

TEST_F(Wuson, LocalTransformAtAKeyTime) {
  // Wuson_Run, Root, AnimationKey pos (line 29162): tick 160 -> 0.000000,0.523379,0.009935 and
  // tick 320 -> 0.000000,0.524838,0.009935.
  const Clip& run = asset_->clips[0];
  const auto at160 = local_pose(*asset_, run, 160.0f / 4800.0f);
  const Transform& root = at160[joint("Root")];
  EXPECT_NEAR(root.translation.x, 0.0, 1e-6);
  EXPECT_NEAR(root.translation.y, 0.523379, 1e-6);
  EXPECT_NEAR(root.translation.z, 0.009935, 1e-6);
  // Halfway between two keys: linear.
  const auto at240 = local_pose(*asset_, run, 240.0f / 4800.0f);
  EXPECT_NEAR(at240[joint("Root")].translation.y, (0.523379 + 0.524838) / 2, 1e-6);
  // Past the last key (tick 4640: 0.522834) the last key holds.
  const auto late = local_pose(*asset_, run, 10.0f);
  EXPECT_NEAR(late[joint("Root")].translation.y, 0.522834, 1e-6);
}

TEST_F(Wuson, GlobalTransformAtAKeyTimeByHand) {
  // Wuson_Run at tick 160, keys copied from the file: Root rot 0.503385,0.496592,0.503385,
  // -0.496592 (w x y z), pos 0,0.523379,0.009935; Spine_Back01 rot 0.731186,0,-0,0.682178, pos
  // 0.548873,-0.033705,0; Spine_Back02 rot 0.996547,-0,0,-0.083032, pos 0.156952,-0,-0; all
  // scales 1.
  const D3D root =
      d3d_key_matrix({1, 1, 1}, {0.503385, 0.496592, 0.503385, -0.496592}, {0, 0.523379, 0.009935});
  const D3D back01 =
      d3d_key_matrix({1, 1, 1}, {0.731186, 0, 0, 0.682178}, {0.548873, -0.033705, 0});
  const D3D back02 = d3d_key_matrix({1, 1, 1}, {0.996547, 0, 0, -0.083032}, {0.156952, 0, 0});
  const D3D global = d3d_mul(d3d_mul(back02, back01), root);
  const std::vector<Mat4> model = model_pose(*asset_, &asset_->clips[0], 160.0f / 4800.0f);
  expect_same_matrix(model[joint("Spine_Back02")], global, 2e-5, "Spine_Back02 at tick 160");
}

// The evidence for the quaternion convention: Wuson_Bind holds the bind pose, so its keys must
// reproduce the FrameTransformMatrix of every frame. Read as the conjugate they do (to 0.12
// degrees, the file's 6 decimals); read as written, Wuson would be off by 180 degrees.
TEST_F(Wuson, BindClipReproducesTheFrameMatricesOnlyWhenKeysAreConjugated) {
  const Clip* bind = find_clip(*asset_, "Wuson_Bind");
  ASSERT_NE(bind, nullptr);
  const auto keyed = local_pose(*asset_, *bind, 0);
  float worst = 0, worst_unconjugated = 0;
  for (std::size_t j = 0; j < asset_->skeleton.size(); ++j) {
    const Quat rest = asset_->skeleton.rest_pose()[j].rotation;
    worst = std::max(worst, angle_between(keyed[j].rotation, rest));
    worst_unconjugated =
        std::max(worst_unconjugated, angle_between(conjugate(keyed[j].rotation), rest));
  }
  EXPECT_LT(worst * 180 / 3.14159265f, 0.2f);
  EXPECT_GT(worst_unconjugated * 180 / 3.14159265f, 170.0f);
  const std::vector<Mat4> rest_model = model_pose(*asset_, nullptr, 0);
  const std::vector<Mat4> bind_model = model_pose(*asset_, bind, 0);
  for (std::size_t j = 0; j < rest_model.size(); ++j) {
    for (int i = 0; i < 16; ++i) {
      EXPECT_NEAR(bind_model[j].m[i], rest_model[j].m[i], 5e-3) << asset_->skeleton.name(j);
    }
  }
}

TEST_F(Wuson, SkinnedMesh) {
  ASSERT_EQ(asset_->meshes.size(), 1u);
  ASSERT_EQ(asset_->skins.size(), 1u);
  const SkinnedMesh& mesh = asset_->meshes[0];
  EXPECT_EQ(mesh.name, "mesh_Wuson");
  EXPECT_EQ(mesh.node, joint("Wuson"));  // the frame that holds it
  EXPECT_EQ(mesh.skin, 0);
  ASSERT_GE(mesh.positions.size(), 3205u);
  // First vertex (line 160): -0.000000;0.498178;-0.278300.
  EXPECT_NEAR(mesh.positions[0].y, 0.498178, 1e-6);
  EXPECT_NEAR(mesh.positions[0].z, -0.278300, 1e-6);
  EXPECT_EQ(mesh.normals.size(), mesh.positions.size());
  EXPECT_EQ(mesh.uvs.size(), mesh.positions.size());
  EXPECT_EQ(mesh.indices.size() % 3, 0u);
  for (std::uint32_t i : mesh.indices) ASSERT_LT(i, mesh.positions.size());

  const Skin& skin = asset_->skins[0];
  ASSERT_EQ(skin.joints.size(), 37u);  // XSkinMeshHeader nBones 37 (line 17253)
  EXPECT_EQ(skin.joints[0], joint("ForeLeg_R_05"));
  // matrixOffset of ForeLeg_R_05 (line 17389), transposed into marrow's column-major form,
  // which has the same memory layout.
  const D3D offset = {0.009099,  0.007551,  0.999930,  0.000000,  -0.830376, 0.557194,
                      0.003348,  0.000000,  -0.557129, -0.830348, 0.011340,  0.000000,
                      -0.236458, -0.556346, 0.281316,  1.000000};
  expect_same_matrix(skin.inverse_bind_matrices[0], offset, 1e-6, "ForeLeg_R_05 offset");

  ASSERT_EQ(mesh.influence_offsets.size(), mesh.positions.size() + 1);
  EXPECT_LE(mesh.max_influences(), 4u);  // nMaxSkinWeightsPerVertex 4
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    float sum = 0, previous = 2;
    for (std::uint32_t i = mesh.influence_offsets[v]; i < mesh.influence_offsets[v + 1]; ++i) {
      EXPECT_LE(mesh.influence_weights[i], previous) << "vertex " << v;  // strongest first
      previous = mesh.influence_weights[i];
      sum += mesh.influence_weights[i];
      EXPECT_LT(mesh.influence_joints[i], skin.joints.size());
    }
    if (mesh.influence_offsets[v + 1] > mesh.influence_offsets[v]) {
      EXPECT_NEAR(sum, 1.0f, 1e-5) << "vertex " << v;
    }
  }
}

TEST_F(Wuson, BindPoseSkinningMatricesAreNearIdentity) {
  // At the bind pose, joint global * inverse bind ~ identity for every skin joint: the offset
  // matrices and the frame hierarchy agree, which checks both conversions at once.
  const std::vector<Mat4> model = model_pose(*asset_, nullptr, 0);
  const Skin& skin = asset_->skins[0];
  for (std::size_t k = 0; k < skin.joints.size(); ++k) {
    const Mat4 m = mul_affine(model[skin.joints[k]], skin.inverse_bind_matrices[k]);
    const Mat4 id = Mat4::identity();
    for (int i = 0; i < 16; ++i) {
      EXPECT_NEAR(m.m[i], id.m[i], 5e-3) << asset_->skeleton.name(skin.joints[k]) << " " << i;
    }
  }
}

TEST(XAnimTest, SkeletonClipAndKeys) {
  const std::string path = x_asset("anim_test.x");
  MARROW_REQUIRE_X_ASSET(path);
  Result<Asset> r = read_x(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& a = *r;
  ASSERT_EQ(a.skeleton.size(), 4u);
  EXPECT_EQ(a.skeleton.name(0), "pCylinder1");
  EXPECT_EQ(a.skeleton.name(1), "joint1");
  EXPECT_EQ(a.skeleton.name(2), "joint2");
  EXPECT_EQ(a.skeleton.name(3), "ikHandle1");
  EXPECT_EQ(a.skeleton.parent(2), 1);
  EXPECT_EQ(a.skeleton.parent(3), kNoParent);

  // AnimTicksPerSecond 24 (line 4); keys run from tick 1 to tick 24.
  ASSERT_EQ(a.clips.size(), 1u);
  const Clip& clip = a.clips[0];
  EXPECT_EQ(clip.name(), "cylinder_test");
  EXPECT_EQ(clip.ticks_per_second(), 24.0);
  EXPECT_NEAR(clip.duration(), 24.0 / 24.0, 1e-6);

  // ikHandle1 pos (line 33685 on): tick 12 -> 0,3.600504,0.643796; tick 24 ->
  // 3.001166,3.600484,-1.422722; before tick 1 the first key (-0,4.799237,0.082008) holds.
  const auto at12 = local_pose(a, clip, 12.0f / 24.0f);
  EXPECT_NEAR(at12[3].translation.y, 3.600504, 1e-6);
  EXPECT_NEAR(at12[3].translation.z, 0.643796, 1e-6);
  const auto end = local_pose(a, clip, 1.0f);
  EXPECT_NEAR(end[3].translation.x, 3.001166, 1e-6);
  EXPECT_NEAR(end[3].translation.z, -1.422722, 1e-6);
  const auto early = local_pose(a, clip, 0.0f);
  EXPECT_NEAR(early[3].translation.y, 4.799237, 1e-6);

  // Global of joint2 at tick 12 from the keys: joint2 rot -0.990011,0,0,-0.140991, pos
  // 3.043184,-0,-0; joint1 rot -0.509518,0.490298,0.509518,0.490298, pos 0,-4.795322,0.029240.
  const D3D j2 = d3d_key_matrix({1, 1, 1}, {-0.990011, 0, 0, -0.140991}, {3.043184, 0, 0});
  const D3D j1 = d3d_key_matrix({1, 1, 1}, {-0.509518, 0.490298, 0.509518, 0.490298},
                                {0, -4.795322, 0.029240});
  const std::vector<Mat4> model = model_pose(a, &clip, 0.5f);
  expect_same_matrix(model[2], d3d_mul(j2, j1), 2e-5, "joint2 at tick 12");

  // Rest: the FrameTransformMatrix of joint2 times that of joint1 (lines 33352, 33356).
  const D3D f1 = {0.000000, 0.999261,  -0.038433, 0.000000,  -0.000000, 0.038433,
                  0.999261, 0.000000,  1.000000,  -0.000000, 0.000000,  0.000000,
                  0.000000, -4.795322, 0.029240,  1.000000};
  const D3D f2 = {0.997933,  0.064257,  -0.000000, 0.000000,  -0.064257, 0.997933,
                  -0.000000, 0.000000,  -0.000000, -0.000000, 1.000000,  0.000000,
                  3.043184,  -0.000000, -0.000000, 1.000000};
  expect_same_matrix(model_pose(a, nullptr, 0)[2], d3d_mul(f2, f1), 2e-5, "joint2 rest");

  // The mesh: four SkinWeights, two of which name frames the file never writes (joint3,
  // joint4): their weights are dropped with a warning, not silently.
  ASSERT_EQ(a.meshes.size(), 1u);
  EXPECT_EQ(a.meshes[0].positions.size(), 1720u);
  ASSERT_EQ(a.skins.size(), 1u);
  EXPECT_EQ(a.skins[0].joints.size(), 2u);
  EXPECT_TRUE(has_warning(a, "'joint3', which the file does not have"));
  EXPECT_TRUE(has_warning(a, "'joint4', which the file does not have"));
  EXPECT_TRUE(has_warning(a, "anim_test.x:26539:"));
}

TEST(XTestFile, StaticMesh) {
  const std::string path = x_asset("test.x");
  MARROW_REQUIRE_X_ASSET(path);
  Result<Asset> r = read_x(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& a = *r;
  ASSERT_EQ(a.skeleton.size(), 1u);
  EXPECT_EQ(a.skeleton.name(0), "pCube1");
  EXPECT_TRUE(a.clips.empty());
  EXPECT_TRUE(a.skins.empty());
  ASSERT_EQ(a.meshes.size(), 1u);
  const SkinnedMesh& m = a.meshes[0];
  EXPECT_EQ(m.name, "pCubeShape1");
  EXPECT_EQ(m.node, 0);
  EXPECT_EQ(m.skin, -1);
  ASSERT_EQ(m.positions.size(), 24u);
  EXPECT_EQ(m.indices.size(), 36u);  // 12 triangles
  // First vertex and first triangle (lines 9 and 34): -0.820374; -0.680440; -0.820374 and
  // 3;0,3,1.
  EXPECT_FLOAT_EQ(m.positions[0].x, -0.820374f);
  EXPECT_FLOAT_EQ(m.positions[0].y, -0.680440f);
  EXPECT_EQ(m.indices[0], 0u);
  EXPECT_EQ(m.indices[1], 3u);
  EXPECT_EQ(m.indices[2], 1u);
  ASSERT_EQ(m.normals.size(), 24u);
  EXPECT_FLOAT_EQ(m.normals[0].z, -1.0f);
  ASSERT_EQ(m.uvs.size(), 24u);
  EXPECT_FLOAT_EQ(m.uvs[0][0], 0.047652f);
  EXPECT_FLOAT_EQ(m.uvs[0][1], -0.358017f);
  EXPECT_TRUE(m.influence_offsets.empty());
  // DeclData (line 166) holds a tangent and a binormal per vertex, floats as DWORD bits: vertex
  // 0's are (1, 0, -0) and (0, 1, -0). With its normal (0, 0, -1), cross(n, t) = (0, -1, 0)
  // points against the binormal, so the handedness is -1.
  ASSERT_EQ(m.tangents.size(), 24u);
  EXPECT_EQ(m.tangents[0][0], 1.0f);
  EXPECT_EQ(m.tangents[0][1], 0.0f);
  EXPECT_EQ(m.tangents[0][2], 0.0f);
  EXPECT_EQ(m.tangents[0][3], -1.0f);
  EXPECT_FALSE(has_warning(a, "DeclData"));
}

TEST(XMalformed, SkinWeightIndexOutOfRangeNamesFileAndLine) {
  const std::string path = x_asset("malformed_skinweights_oob.x");
  MARROW_REQUIRE_X_ASSET(path);
  Result<Asset> r = read_x(path);
  ASSERT_FALSE(r.ok());
  // Line 244 holds the index 1000000 of a 24-vertex mesh.
  EXPECT_EQ(r.error().message,
            path +
                ":244: SkinWeights for frame 'Cube': vertex index 1000000 is out of range: "
                "Mesh 'Cube' has 24 vertices");
}

}  // namespace
}  // namespace marrow::xtest
