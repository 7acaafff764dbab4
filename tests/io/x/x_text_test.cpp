// Hand-written text .X files: every number expected here can be read off kMiniText.
#include "x_test_util.h"

namespace marrow::xtest {
namespace {

Asset read_mini(const std::string& text = kMiniText, const std::string& name = "mini.x") {
  Result<Asset> r = read_text(text, name);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(r).value() : Asset{};
}

void expect_vec(Vec3 v, float x, float y, float z, const std::string& what) {
  EXPECT_NEAR(v.x, x, 1e-6) << what;
  EXPECT_NEAR(v.y, y, 1e-6) << what;
  EXPECT_NEAR(v.z, z, 1e-6) << what;
}

void expect_quat(Quat q, float x, float y, float z, float w, const std::string& what) {
  if (dot(q, Quat{x, y, z, w}) < 0) q = negate(q);
  EXPECT_NEAR(q.x, x, 1e-6) << what;
  EXPECT_NEAR(q.y, y, 1e-6) << what;
  EXPECT_NEAR(q.z, z, 1e-6) << what;
  EXPECT_NEAR(q.w, w, 1e-6) << what;
}

const float kHalf = std::sqrt(0.5f);

TEST(XText, FramesBecomeJointsWithTheirMatrixAsRestPose) {
  const Asset a = read_mini();
  ASSERT_EQ(a.skeleton.size(), 2u);
  EXPECT_EQ(a.skeleton.name(0), "Hip");
  EXPECT_EQ(a.skeleton.name(1), "Knee");
  EXPECT_EQ(a.skeleton.parent(1), 0);
  EXPECT_EQ(a.source_index, (std::vector<std::int64_t>{0, 1}));
  // Hip: translation in the 4th row. Knee: rows (0 1 0) (-1 0 0): x goes to y, +90 deg about z.
  expect_vec(a.skeleton.rest_pose()[0].translation, 1, 2, 3, "Hip");
  expect_quat(a.skeleton.rest_pose()[1].rotation, 0, 0, kHalf, kHalf, "Knee");
  expect_vec(a.skeleton.rest_pose()[1].translation, 0, -1, 0, "Knee");
}

TEST(XText, MeshFansNormalsSplitAndUvs) {
  const Asset a = read_mini();
  ASSERT_EQ(a.meshes.size(), 1u);
  const SkinnedMesh& m = a.meshes[0];
  EXPECT_EQ(m.name, "Body");
  EXPECT_EQ(m.node, 0);  // under Hip
  // Vertices 0 and 1 take normal 0 in the quad and normal 1 in the triangle: each is split,
  // the copies appended as vertices 5 and 6.
  ASSERT_EQ(m.positions.size(), 7u);
  EXPECT_EQ(m.positions[5], m.positions[0]);
  EXPECT_EQ(m.positions[6], m.positions[1]);
  EXPECT_EQ(m.indices, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3, 5, 6, 4}));
  ASSERT_EQ(m.normals.size(), 7u);
  for (int v : {0, 1, 2, 3}) expect_vec(m.normals[v], 0, 0, 1, "normal " + std::to_string(v));
  for (int v : {4, 5, 6}) expect_vec(m.normals[v], 0, 1, 0, "normal " + std::to_string(v));
  ASSERT_EQ(m.uvs.size(), 7u);
  EXPECT_EQ(m.uvs[4], (std::array<float, 2>{0.5f, 0.5f}));
  EXPECT_EQ(m.uvs[6], m.uvs[1]);
  EXPECT_TRUE(has_warning(a, "2 vertices added"));
}

TEST(XText, SkinWeightsStrongestFirstNormalized) {
  const Asset a = read_mini();
  ASSERT_EQ(a.skins.size(), 1u);
  const Skin& s = a.skins[0];
  EXPECT_EQ(s.joints, (std::vector<JointIndex>{0, 1}));
  // matrixOffset transposed: translations -1,-2,-3 and -1,1,-3 land in column 3.
  expect_vec(s.inverse_bind_matrices[0].translation(), -1, -2, -3, "Hip offset");
  expect_vec(s.inverse_bind_matrices[1].translation(), -1, 1, -3, "Knee offset");
  const SkinnedMesh& m = a.meshes[0];
  EXPECT_EQ(m.skin, 0);
  const std::vector<std::vector<std::pair<int, float>>> expected = {
      {{0, 1.0f}},                // 0: Hip 1.0
      {{1, 0.75f}, {0, 0.25f}},   // 1: Hip 0.25, Knee 0.75
      {},                         // 2
      {},                         // 3
      {{0, 0.5f}, {1, 0.5f}},     // 4: Hip 0.5, Knee 0.5 (normalized, order kept)
      {{0, 1.0f}},                // 5 = copy of 0
      {{1, 0.75f}, {0, 0.25f}}};  // 6 = copy of 1
  ASSERT_EQ(m.influence_offsets.size(), 8u);
  for (std::size_t v = 0; v < expected.size(); ++v) {
    const std::uint32_t b = m.influence_offsets[v], e = m.influence_offsets[v + 1];
    ASSERT_EQ(e - b, expected[v].size()) << "vertex " << v;
    for (std::uint32_t i = b; i < e; ++i) {
      EXPECT_EQ(m.influence_joints[i], expected[v][i - b].first) << "vertex " << v;
      EXPECT_FLOAT_EQ(m.influence_weights[i], expected[v][i - b].second) << "vertex " << v;
    }
  }
  EXPECT_TRUE(has_warning(a, "2 vertices have no skin weight"));
  // Bind pose: global * offset is the identity for both joints.
  const std::vector<Mat4> model = model_pose(a, nullptr, 0);
  for (std::size_t k = 0; k < 2; ++k) {
    const Mat4 p = mul_affine(model[s.joints[k]], s.inverse_bind_matrices[k]);
    for (int i = 0; i < 16; ++i) EXPECT_NEAR(p.m[i], Mat4::identity().m[i], 1e-6) << k;
  }
}

TEST(XText, AnimationSetKeysAndTicks) {
  const Asset a = read_mini();
  ASSERT_EQ(a.clips.size(), 1u);
  const Clip& c = a.clips[0];
  EXPECT_EQ(c.name(), "Walk");
  EXPECT_EQ(c.ticks_per_second(), 30.0);
  EXPECT_FLOAT_EQ(c.duration(), 60.0f / 30.0f);  // the last key: tick 60
  EXPECT_EQ(c.tracks().size(), 5u);              // Knee R, T; Hip T, R, S from the matrices

  // Knee rotation: tick 30 stores (w x y z) = (0.7071068, 0, 0, -0.7071068), the inverse of
  // +90 degrees about z, so the joint turns +90 degrees about z, as its rest matrix does.
  expect_quat(local_pose(a, c, 0)[1].rotation, 0, 0, 0, 1, "Knee t=0");
  expect_quat(local_pose(a, c, 1)[1].rotation, 0, 0, kHalf, kHalf, "Knee t=1");
  expect_quat(local_pose(a, c, 0.5f)[1].rotation, 0, 0, std::sin(3.14159265f / 8),
              std::cos(3.14159265f / 8), "Knee t=0.5");
  // Knee position: tick 60 (2 s) holds (0,-2,0) and keeps holding after the end.
  expect_vec(local_pose(a, c, 1)[1].translation, 0, -1.5f, 0, "Knee t=1");
  expect_vec(local_pose(a, c, 10)[1].translation, 0, -2, 0, "Knee t=10");

  // Hip matrix key at tick 15 (0.5 s): rows (2 0 0) (0 0 2) (0 -2 0), translation (5 6 7): scale
  // 2 and +90 degrees about x.
  const Transform hip = local_pose(a, c, 0.5f)[0];
  expect_vec(hip.translation, 5, 6, 7, "Hip t=0.5");
  expect_vec(hip.scale, 2, 2, 2, "Hip t=0.5");
  expect_quat(hip.rotation, kHalf, 0, 0, kHalf, "Hip t=0.5");

  // Global Knee at 1 s by hand: Knee's key matrix times Hip's (held at its last key).
  const D3D knee = {0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, -1.5, 0, 1};
  const D3D hip_m = {2, 0, 0, 0, 0, 0, 2, 0, 0, -2, 0, 0, 5, 6, 7, 1};
  expect_same_matrix(model_pose(a, &c, 1.0f)[1], d3d_mul(knee, hip_m), 1e-5, "Knee global");
}

TEST(XText, TicksPerSecondDefaultsTo4800) {
  const Asset a = read_mini(replaced(kMiniText, "AnimTicksPerSecond { 30; }", ""));
  ASSERT_EQ(a.clips.size(), 1u);
  EXPECT_EQ(a.clips[0].ticks_per_second(), 4800.0);
  EXPECT_FLOAT_EQ(a.clips[0].duration(), 60.0f / 4800.0f);
}

TEST(XText, EachSetUsesTheTicksPerSecondReadBeforeIt) {
  std::string text = kMiniText +
                     "AnimTicksPerSecond { 60; }\nAnimationSet Again {\n"
                     "  Animation { { Hip } AnimationKey { 2; 1; 120;3;1,1,1;;; } }\n}\n";
  const Asset a = read_mini(text);
  ASSERT_EQ(a.clips.size(), 2u);
  EXPECT_EQ(a.clips[0].ticks_per_second(), 30.0);
  EXPECT_EQ(a.clips[1].ticks_per_second(), 60.0);
  EXPECT_FLOAT_EQ(a.clips[1].duration(), 2.0f);
  EXPECT_TRUE(has_warning(a, "AnimTicksPerSecond changes from 30 to 60"));
}

TEST(XText, TopLevelMeshReferencedByFrames) {
  const std::string text = R"(xof 0303txt 0032
Mesh Box { 3; 0;0;0;, 1;0;0;, 0;1;0;; 1; 3;0,1,2;; }
Frame A { { Box } }
Frame B { FrameTransformMatrix { 1,0,0,0,0,1,0,0,0,0,1,0,5,0,0,1;; } { Box } }
)";
  const Asset a = read_mini(text);
  ASSERT_EQ(a.skeleton.size(), 2u);
  ASSERT_EQ(a.meshes.size(), 2u);
  EXPECT_EQ(a.meshes[0].node, 0);
  EXPECT_EQ(a.meshes[1].node, 1);
  EXPECT_EQ(a.meshes[1].indices, (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(XText, AnimationsOutsideASetFormOneClipNamedAfterTheFile) {
  const std::string text = R"(xof 0303txt 0032
Frame Bone { }
Animation { { Bone } AnimationKey { 1; 2; 0;3;1,1,1;;, 4800;3;2,2,2;;; } }
)";
  const Asset a = read_mini(text, "dir/loose.x");
  ASSERT_EQ(a.clips.size(), 1u);
  EXPECT_EQ(a.clips[0].name(), "loose");
  EXPECT_FLOAT_EQ(a.clips[0].duration(), 1.0f);
  expect_vec(local_pose(a, a.clips[0], 0.5f)[0].scale, 1.5f, 1.5f, 1.5f, "Bone");
}

TEST(XText, ReferencesMayCarryAGuidAndNamesAreCaseInsensitiveTemplates) {
  std::string text =
      replaced(kMiniText, "{ Knee }", "{ Knee <01234567-89ab-cdef-0123-456789abcdef> }");
  text = replaced(text, "AnimationSet Walk", "animationset Walk");
  const Asset a = read_mini(text);
  ASSERT_EQ(a.clips.size(), 1u);
  EXPECT_EQ(a.clips[0].tracks().size(), 5u);
}

TEST(XText, UnknownObjectsAreSkippedWithANote) {
  const std::string text =
      replaced(kMiniText, "Frame Knee {", "Frame Knee {\n Gizmo g { 1; 2; { Hip } Inner { 3; } }");
  const Asset a = read_mini(text);
  EXPECT_EQ(a.skeleton.size(), 2u);
  EXPECT_TRUE(has_warning(a, "'Gizmo' are not read"));
}

TEST(XText, ShearIsReportedAndTheNearestTrsKept) {
  const std::string text = R"(xof 0303txt 0032
Frame Sheared { FrameTransformMatrix { 1,0,0,0, 1,1,0,0, 0,0,1,0, 0,0,0,1;; } }
)";
  const Asset a = read_mini(text);
  EXPECT_TRUE(has_warning(a, "mini.x:2: Frame 'Sheared': FrameTransformMatrix has shear"));
}

TEST(XText, MatrixKeysThatMirrorOrShearAreReported) {
  std::string text = replaced(kMiniText, "15;16;2,0,0,0, 0,0,2,0", "15;16;-2,0,0,0, 0,0,2,0");
  Asset a = read_mini(text);
  EXPECT_TRUE(has_warning(a, "negative determinant"));
  text = replaced(kMiniText, "15;16;2,0,0,0, 0,0,2,0", "15;16;2,0,0,0, 1,0,2,0");
  a = read_mini(text);
  EXPECT_TRUE(has_warning(a, "AnimationKey (matrix) for frame 'Hip': some matrices have shear"));
}

TEST(XText, FramesNestToTheStatedDepthAndNoDeeper) {
  // io::kMaxNestingDepth (1024) levels below the root are read, without recursion; one more is
  // refused at the frame that goes too deep. Frame f<i> opens on line i + 2.
  auto nested = [](int frames) {
    std::string text = "xof 0303txt 0032\n";
    for (int i = 0; i < frames; ++i) text += "Frame f" + std::to_string(i) + " {\n";
    for (int i = 0; i < frames; ++i) text += "}\n";
    return text;
  };
  const Asset a = read_mini(nested(1025));
  ASSERT_EQ(a.skeleton.size(), 1025u);
  EXPECT_EQ(a.skeleton.parent(1024), 1023);
  const Result<Asset> deep = read_text(nested(20000));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message,
            "mini.x:1027: Frame 'f1025' lies 1025 frames below its root; marrow reads "
            "hierarchies at most 1024 levels deep");
}

// A DeclData with a tangent and a binormal per vertex (floats as the DWORD of their bits:
// 1065353216 = 1.0, 3212836864 = -1.0). Handedness w = sign(dot(cross(normal, tangent),
// binormal)) with each vertex's final normal.
const std::string kDeclData = R"(    DeclData {
      2;
      2;0;6;0;, 2;0;7;0;;
      30;
      1065353216,0,0, 0,1065353216,0,
      1065353216,0,0, 0,3212836864,0,
      1065353216,0,0, 0,1065353216,0,
      1065353216,0,0, 0,1065353216,0,
      1065353216,0,0, 0,0,1065353216;
    }
)";

TEST(XText, DeclDataTangentsWithHandednessFromTheBinormal) {
  const std::string text =
      replaced(kMiniText, "    XSkinMeshHeader", kDeclData + "    XSkinMeshHeader");
  const Asset a = read_mini(text);
  ASSERT_EQ(a.meshes.size(), 1u);
  const SkinnedMesh& m = a.meshes[0];
  ASSERT_EQ(m.tangents.size(), 7u);  // split copies 5 and 6 of vertices 0 and 1 included
  for (const auto& t : m.tangents) EXPECT_EQ((Vec3{t[0], t[1], t[2]}), (Vec3{1, 0, 0}));
  // v0: n (0,0,1), cross = (0,1,0), b (0,1,0): +1. v1: b (0,-1,0): -1. v4: n (0,1,0),
  // cross = (0,0,-1), b (0,0,1): -1. v6 (copy of v1, n (0,1,0)): cross (0,0,-1) . (0,-1,0) = 0: +1.
  EXPECT_EQ(m.tangents[0][3], 1.0f);
  EXPECT_EQ(m.tangents[1][3], -1.0f);
  EXPECT_EQ(m.tangents[4][3], -1.0f);
  EXPECT_EQ(m.tangents[6][3], 1.0f);
  EXPECT_FALSE(has_warning(a, "DeclData"));
}

// A mesh names a top-level material by reference, case-blind like the rest of .X; of two with
// the same name the first counts; a name the file lacks draws the mesh plain, with a warning.
// (The lookup is by a map, so that many meshes and materials do not cost their product.)
TEST(XText, MaterialReferencesFindTheFirstOfTheNameAnyCase) {
  const std::string text = R"(xof 0303txt 0032
Material Dup { 1.0;0.0;0.0;1.0;; 0.0; 0.0;0.0;0.0;; 0.0;0.0;0.0;; }
Material dup { 0.0;0.0;1.0;1.0;; 0.0; 0.0;0.0;0.0;; 0.0;0.0;0.0;; }
Mesh a { 3; 0.0;0.0;0.0;, 1.0;0.0;0.0;, 0.0;1.0;0.0;; 1; 3;0,1,2;;
  MeshMaterialList { 1; 1; 0;; {DUP} } }
Mesh b { 3; 0.0;0.0;0.0;, 1.0;0.0;0.0;, 0.0;1.0;0.0;; 1; 3;0,1,2;;
  MeshMaterialList { 1; 1; 0;; {Missing} } }
)";
  Result<Asset> r = read_text(text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->meshes.size(), 2u);
  ASSERT_GE(r->meshes[0].material, 0);
  const Material& red = r->materials[static_cast<std::size_t>(r->meshes[0].material)];
  EXPECT_EQ(red.base_color_factor, (std::array<float, 4>{1, 0, 0, 1}));  // 0 and 1: any transfer
  EXPECT_EQ(r->meshes[1].material, -1);
  EXPECT_TRUE(has_warning(*r, "material 'Missing' is not in the file; drawn plain"));
}

}  // namespace
}  // namespace marrow::xtest
