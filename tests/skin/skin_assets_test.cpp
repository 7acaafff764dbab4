// Every skinned asset in ../shared/assets: the importers deliver complete skinning data, and the
// bind pose reproduces the bind mesh.
//
// "Bind pose" here is the pose the inverse bind matrices describe: joint i's model matrix is
// inverse(IBM_i), so the palette is inverse(IBM_i) * IBM_i (identity up to rounding) and the
// skinned mesh must be the mesh as stored, within 1e-4 of its bounding-box diagonal. This holds
// for every format, whatever the file's node rest pose is. Where the node rest pose also equals
// the bind pose (checked per file below), skinning with the rest-pose palette must give the
// same mesh, which tests the importer's skeleton, IBMs and skin-joint remap together.
#include <gtest/gtest.h>

#include <filesystem>

#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/skinning.h"
#include "shared_asset.h"

namespace marrow {
namespace {

struct AssetCase {
  const char* path;
  bool rest_is_bind;  // the file's node rest pose is its bind pose
  friend void PrintTo(const AssetCase& c, std::ostream* os) { *os << c.path; }
};

std::string shared(const char* rel) {
  return marrow::test::shared_asset_path(rel);
}

float diagonal(const std::vector<Vec3>& p) {
  const Aabb b = compute_bounds(p);
  return length(b.max - b.min);
}

void check_import(const Asset& asset, const SkinnedMesh& mesh) {
  const std::size_t n = mesh.vertex_count();
  ASSERT_GT(n, 0u);
  ASSERT_GE(mesh.skin, 0);
  ASSERT_LT(static_cast<std::size_t>(mesh.skin), asset.skins.size());
  const Skin& skin = asset.skins[mesh.skin];
  ASSERT_EQ(skin.inverse_bind_matrices.size(), skin.joints.size());
  for (JointIndex j : skin.joints) ASSERT_LT(j, asset.skeleton.size());
  EXPECT_TRUE(mesh.normals.empty() || mesh.normals.size() == n);
  EXPECT_TRUE(mesh.tangents.empty() || mesh.tangents.size() == n);
  EXPECT_TRUE(mesh.uvs.empty() || mesh.uvs.size() == n);
  for (std::size_t i = 0; i + 2 < mesh.indices.size(); ++i) ASSERT_LT(mesh.indices[i], n);
  ASSERT_EQ(mesh.influence_offsets.size(), n + 1);
  for (std::size_t v = 0; v < n; ++v) {
    const std::uint32_t b = mesh.influence_offsets[v], e = mesh.influence_offsets[v + 1];
    ASSERT_LT(b, e) << "vertex " << v << " has no influence";
    double sum = 0;
    for (std::uint32_t i = b; i < e; ++i) {
      ASSERT_LT(mesh.influence_joints[i], skin.joints.size());
      ASSERT_GT(mesh.influence_weights[i], 0.0f);
      if (i > b) {
        ASSERT_GE(mesh.influence_weights[i - 1], mesh.influence_weights[i]) << v;
      }
      sum += mesh.influence_weights[i];
    }
    ASSERT_NEAR(sum, 1.0, 1e-5) << "vertex " << v;
  }
}

class SkinAssets : public ::testing::TestWithParam<AssetCase> {};

TEST_P(SkinAssets, ImportedDataIsCompleteAndBindPoseReproducesTheMesh) {
  const std::string path = shared(GetParam().path);
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  auto loaded = load_asset(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const Asset& asset = loaded.value();
  int skinned = 0;
  // Rest-pose model matrices.
  std::vector<Mat4> rest_model(asset.skeleton.size());
  ASSERT_TRUE(local_to_model(asset.skeleton, asset.skeleton.rest_pose(), rest_model));
  for (const SkinnedMesh& mesh : asset.meshes) {
    if (mesh.skin < 0) continue;
    ++skinned;
    SCOPED_TRACE("mesh '" + mesh.name + "'");
    check_import(asset, mesh);
    std::printf(
        "%s mesh '%s': %zu vertices, %zu normals, %zu tangents, %zu uvs, %zu triangles, "
        "up to %zu influences, skin of %zu joints\n",
        GetParam().path, mesh.name.c_str(), mesh.vertex_count(), mesh.normals.size(),
        mesh.tangents.size(), mesh.uvs.size(), mesh.indices.size() / 3, mesh.max_influences(),
        asset.skins[mesh.skin].joints.size());
    if (HasFatalFailure()) return;
    const Skin& sk = asset.skins[mesh.skin];
    auto built = SkinningMesh::build(mesh, sk.joints.size());
    ASSERT_TRUE(built.ok()) << built.error().message;

    std::vector<Mat4> bind_model(asset.skeleton.size());
    for (std::size_t i = 0; i < sk.joints.size(); ++i) {
      ASSERT_TRUE(invert_affine(sk.inverse_bind_matrices[i], bind_model[sk.joints[i]]));
    }
    std::vector<Mat4> palette(sk.joints.size()), rest_palette(sk.joints.size());
    ASSERT_TRUE(compute_skinning_palette(sk, bind_model, palette));
    ASSERT_TRUE(compute_skinning_palette(sk, rest_model, rest_palette));

    const std::size_t n = mesh.vertex_count();
    const float tol = 1e-4f * diagonal(mesh.positions);
    const bool has_normals = !mesh.normals.empty();
    for (SkinningMethod method : {SkinningMethod::kLinear, SkinningMethod::kDualQuaternion}) {
      SCOPED_TRACE(method == SkinningMethod::kLinear ? "LBS" : "DQS");
      std::vector<Vec3> pos(n), nrm(has_normals ? n : 0);
      ASSERT_TRUE(skin(built.value(), palette, method, {pos, nrm, {}}));
      float worst = 0, worst_n = 0;
      for (std::size_t v = 0; v < n; ++v) {
        worst = std::max(worst, length(pos[v] - mesh.positions[v]));
        const float len = has_normals ? length(mesh.normals[v]) : 0;
        if (len > 0.5f) worst_n = std::max(worst_n, length(nrm[v] - mesh.normals[v] * (1 / len)));
      }
      EXPECT_LE(worst, tol);
      EXPECT_LE(worst_n, 1e-3f);

      ASSERT_TRUE(skin(built.value(), rest_palette, method, {pos, {}, {}}));
      float rest_worst = 0;
      for (std::size_t v = 0; v < n; ++v)
        rest_worst = std::max(rest_worst, length(pos[v] - mesh.positions[v]));
      RecordProperty("rest_pose_deviation_over_diagonal",
                     std::to_string(rest_worst / diagonal(mesh.positions)));
      std::printf("%s mesh '%s': rest-pose skinning deviates %.3g (diagonal %.3g)\n",
                  GetParam().path, mesh.name.c_str(), rest_worst, diagonal(mesh.positions));
      if (GetParam().rest_is_bind) {
        EXPECT_LE(rest_worst, tol);
      }
    }
  }
  EXPECT_GT(skinned, 0) << "no skinned mesh in " << path;
}

// quad_skin.glb spreads vertex 0 over ten influences in JOINTS_0..2 / WEIGHTS_0..2, already
// strongest first; the values below were read from the file's buffers with a separate script.
// The skin's joints are nodes 2, 4, ..., 20 of the file.
TEST(SkinAssetsQuad, TenInfluencesAndTheSkinJointRemap) {
  const std::string path = shared("gltf/quad_skin.glb");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  auto loaded = load_asset(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const Asset& asset = loaded.value();
  ASSERT_EQ(asset.meshes.size(), 1u);
  const SkinnedMesh& mesh = asset.meshes[0];
  ASSERT_EQ(mesh.skin, 0);
  const Skin& sk = asset.skins[0];
  ASSERT_EQ(sk.joints.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i)
    EXPECT_EQ(asset.source_index[sk.joints[i]], static_cast<std::int64_t>(2 + 2 * i)) << i;
  const std::vector<std::uint16_t> joints{5, 0, 1, 3, 4, 8, 7, 6, 9, 2};
  const std::vector<double> weights{0.21567927300930023, 0.20686699450016022,  0.1125933825969696,
                                    0.09007582813501358, 0.08973455429077148,  0.0877615213394165,
                                    0.08605454117059708, 0.057781580835580826, 0.04857594892382622,
                                    0.004876427352428436};
  ASSERT_EQ(mesh.influence_offsets[1] - mesh.influence_offsets[0], 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(mesh.influence_joints[i], joints[i]) << i;
    EXPECT_NEAR(mesh.influence_weights[i], weights[i] / 1.0000000521540642, 1e-6) << i;
  }
  // Vertices 1..3 have 5, 4 and 5 influences; reducing to 4 keeps the 4 strongest.
  EXPECT_EQ(mesh.influence_offsets[2] - mesh.influence_offsets[1], 5u);
  EXPECT_EQ(mesh.influence_offsets[3] - mesh.influence_offsets[2], 4u);
  EXPECT_EQ(mesh.influence_offsets[4] - mesh.influence_offsets[3], 5u);
  auto reduced = SkinningMesh::build(mesh, sk.joints.size(), 4);
  ASSERT_TRUE(reduced.ok());
  EXPECT_EQ(reduced->max_influences(), 4u);
  // With joint j translated by (j, 0, 0) and nothing else, vertex 0 moves by the weighted mean
  // of its four strongest joints' indices: (5 w0 + 0 w1 + 1 w2 + 3 w3) / (w0 + w1 + w2 + w3).
  std::vector<Mat4> palette(10);
  for (std::size_t j = 0; j < 10; ++j)
    palette[j] = mat4_from_trs({static_cast<float>(j), 0, 0}, Quat::identity(), {1, 1, 1});
  std::vector<Vec3> out(mesh.vertex_count());
  ASSERT_TRUE(skin(reduced.value(), palette, SkinningMethod::kLinear, {out, {}, {}}));
  const double w4 = weights[0] + weights[1] + weights[2] + weights[3];
  const double dx = (5 * weights[0] + 1 * weights[2] + 3 * weights[3]) / w4;
  EXPECT_NEAR(out[0].x - mesh.positions[0].x, dx, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Shared, SkinAssets,
                         ::testing::Values(AssetCase{"gltf/Soldier.glb", false},
                                           AssetCase{"gltf/Xbot.glb", true},
                                           AssetCase{"gltf/cesium_man.gltf", false},
                                           AssetCase{"gltf/rigged_simple.gltf", false},
                                           AssetCase{"gltf/simple_skin.gltf", false},
                                           AssetCase{"gltf/quad_skin.glb", false},
                                           AssetCase{"x/Testwuson.X", true},
                                           AssetCase{"fbx/arnaud.fbx", true}),
                         [](const auto& info) {
                           std::string s = info.param.path;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

}  // namespace
}  // namespace marrow
