// The glTF importer delivers everything skinning needs (normals, tangents with their
// handedness, UVs, normalized-integer weights renormalized strongest first, the skin's own joint
// order mapped to skeleton joints, inverse bind matrices), checked on a small document made in
// memory, and skinning it in its rest pose gives positions worked out by hand.
#include <gtest/gtest.h>

#include "gltf_test_util.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/skinning.h"

namespace marrow {
namespace {

using namespace gltf_test;

TEST(SkinImport, GltfDeliversSkinningDataAndTheSkinJointRemap) {
  Builder b;
  b.node({{"name", "root"}, {"children", {1}}});
  b.node({{"name", "a"}, {"children", {2}}, {"translation", {1, 0, 0}}});
  b.node({{"name", "b"}, {"translation", {0, 2, 0}}});
  b.node({{"name", "body"}, {"mesh", 0}, {"skin", 0}});
  const int pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3");
  const int nrm = b.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
  const int tan = b.floats({1, 0, 0, -1, 1, 0, 0, -1, 1, 0, 0, 1}, "VEC4");
  const int uv = b.floats({0, 0, 1, 0, 0, 1}, "VEC2");
  const int joints = b.add<std::uint8_t>({0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, "VEC4");
  // Normalized unsigned bytes: 51/255 = 0.2 and 204/255 = 0.8.
  const int weights =
      b.add<std::uint8_t>({51, 204, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0}, "VEC4", true);
  // Skin joint 0 is node 2 ("b"), skin joint 1 is node 1 ("a"): the skin's own order.
  // Inverse bind matrices: translations by (0, 0, -1) and (0, 0, -2).
  std::vector<float> ibm;
  for (float z : {-1.0f, -2.0f}) {
    const Mat4 m = mat4_from_trs({0, 0, z}, Quat::identity(), {1, 1, 1});
    ibm.insert(ibm.end(), m.m.begin(), m.m.end());
  }
  const int ibm_acc = b.floats(ibm, "MAT4");
  b.doc["skins"] = {{{"joints", {2, 1}}, {"inverseBindMatrices", ibm_acc}}};
  b.doc["meshes"] = {{{"primitives",
                       {{{"attributes",
                          {{"POSITION", pos},
                           {"NORMAL", nrm},
                           {"TANGENT", tan},
                           {"TEXCOORD_0", uv},
                           {"JOINTS_0", joints},
                           {"WEIGHTS_0", weights}}}}}}}};
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.meshes.size(), 1u);
  const SkinnedMesh& mesh = asset.meshes[0];
  ASSERT_EQ(mesh.skin, 0);
  const Skin& sk = asset.skins[0];
  ASSERT_EQ(sk.joints.size(), 2u);
  EXPECT_EQ(asset.source_index[sk.joints[0]], 2);
  EXPECT_EQ(asset.source_index[sk.joints[1]], 1);
  EXPECT_EQ(sk.inverse_bind_matrices[1].translation(), (Vec3{0, 0, -2}));

  ASSERT_EQ(mesh.normals.size(), 3u);
  EXPECT_EQ(mesh.normals[1], (Vec3{0, 0, 1}));
  ASSERT_EQ(mesh.tangents.size(), 3u);
  EXPECT_EQ(mesh.tangents[0], (std::array<float, 4>{1, 0, 0, -1}));
  EXPECT_EQ(mesh.tangents[2][3], 1.0f);
  ASSERT_EQ(mesh.uvs.size(), 3u);
  EXPECT_EQ(mesh.uvs[2], (std::array<float, 2>{0, 1}));
  // Vertex 0: 0.8 on skin joint 1 first, then 0.2 on skin joint 0.
  ASSERT_EQ(mesh.influence_offsets, (std::vector<std::uint32_t>{0, 2, 3, 4}));
  EXPECT_EQ(mesh.influence_joints, (std::vector<std::uint16_t>{1, 0, 0, 1}));
  EXPECT_NEAR(mesh.influence_weights[0], 0.8f, 1e-6);
  EXPECT_NEAR(mesh.influence_weights[1], 0.2f, 1e-6);
  EXPECT_EQ(mesh.influence_weights[2], 1.0f);

  // Rest pose: world(a) = T(1, 0, 0), world(b) = T(1, 2, 0); palette = world * IBM, so
  // palette(b) = T(1, 2, -1) and palette(a) = T(1, 0, -2).
  // v0 = 0.8 (1, 0, -2) + 0.2 (1, 2, -1) = (1, 0.4, -1.8); v1 = (1,0,0) + (1, 2, -1) = (2, 2, -1);
  // v2 = (0, 1, 0) + (1, 0, -2) = (1, 1, -2). Tangents keep their handedness.
  std::vector<Mat4> model(asset.skeleton.size()), palette(2);
  ASSERT_TRUE(local_to_model(asset.skeleton, asset.skeleton.rest_pose(), model));
  ASSERT_TRUE(compute_skinning_palette(sk, model, palette));
  auto built = SkinningMesh::build(mesh, sk.joints.size());
  ASSERT_TRUE(built.ok()) << built.error().message;
  for (SkinningMethod method : {SkinningMethod::kLinear, SkinningMethod::kDualQuaternion}) {
    std::vector<Vec3> p(3), n(3);
    std::vector<std::array<float, 4>> t(3);
    ASSERT_TRUE(skin(built.value(), palette, method, {p, n, t}));
    EXPECT_LT(length(p[0] - Vec3{1, 0.4f, -1.8f}), 1e-5f);
    EXPECT_LT(length(p[1] - Vec3{2, 2, -1}), 1e-5f);
    EXPECT_LT(length(p[2] - Vec3{1, 1, -2}), 1e-5f);
    EXPECT_LT(length(n[0] - Vec3{0, 0, 1}), 1e-6f);
    EXPECT_EQ(t[0], (std::array<float, 4>{1, 0, 0, -1}));
    EXPECT_EQ(t[2][3], 1.0f);
  }
}

}  // namespace
}  // namespace marrow
