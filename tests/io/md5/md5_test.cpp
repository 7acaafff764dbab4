// marrow's MD5 reader on hand-written files (expected values worked out in md5_test_util.h) and
// on the shared BoarMan.md5mesh, compared with the assimp path it replaces.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "marrow/clip/sampling.h"
#include "marrow/io/assimp_import.h"
#include "marrow/pose/local_to_model.h"
#include "md5_test_util.h"

namespace marrow::md5test {
namespace {

constexpr float kS = 0.70710678f;

std::vector<Transform> sampled(const Asset& a, const Clip& clip, float t) {
  std::vector<Transform> local(a.skeleton.rest_pose().begin(), a.skeleton.rest_pose().end());
  EXPECT_TRUE(sample_tracks(clip, t, local));
  return local;
}

TEST(Md5Mesh, JointsTurnFromModelSpaceToLocalWithWFromXyz) {
  Result<Asset> r = read_md5mesh(std::string_view(kMesh), "mini.md5mesh");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& a = *r;
  ASSERT_EQ(a.skeleton.size(), 2u);
  EXPECT_EQ(a.skeleton.name(0), "root");
  EXPECT_EQ(a.skeleton.name(1), "child");
  EXPECT_EQ(a.skeleton.parent(1), 0);
  // w is recomputed from x, y, z with id's sign: -sqrt(1 - 0.5).
  const Transform& root = a.skeleton.rest_pose()[0];
  EXPECT_NEAR(root.rotation.z, kS, 1e-6f);
  EXPECT_NEAR(root.rotation.w, -kS, 1e-6f);
  expect_vec(root.translation, {10, 0, 0});
  expect_vec(rotate(root.rotation, {1, 0, 0}), {0, -1, 0});
  const Transform& child = a.skeleton.rest_pose()[1];
  expect_vec(child.translation, {-2, 0, 0});
  expect_vec(rotate(child.rotation, {1, 0, 0}), {0, 1, 0});  // +90 degrees about z
  // Back in the model: where the file put it.
  std::vector<Mat4> model(2);
  ASSERT_TRUE(local_to_model(a.skeleton, a.skeleton.rest_pose(), model));
  expect_vec(transform_point(model[1], {0, 0, 0}), {10, 2, 0});
  expect_vec(transform_vector(model[1], {1, 0, 0}), {1, 0, 0});
}

TEST(Md5Mesh, VerticesAreTheirWeightsSumAndTrianglesTurnCounterClockwise) {
  Result<Asset> r = read_md5mesh(std::string_view(kMesh), "mini.md5mesh");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& a = *r;
  ASSERT_EQ(a.meshes.size(), 1u);
  const SkinnedMesh& m = a.meshes[0];
  EXPECT_EQ(m.name, "body");  // from "// meshes: body"
  ASSERT_EQ(m.positions.size(), 3u);
  expect_vec(m.positions[0], {11, 2, 0});
  expect_vec(m.positions[1], {12, 3, 1});
  expect_vec(m.positions[2], {10, -1, 0});
  // "tri 0 0 1 2" is clockwise in MD5; marrow stores it counter-clockwise.
  EXPECT_EQ(m.indices, (std::vector<std::uint32_t>{0, 2, 1}));
  EXPECT_EQ(m.uvs[1], (std::array<float, 2>{0.3f, 0.4f}));
  // Influences: vertex 0 all on child (skin joint 1), vertex 1 half and half, vertex 2 on root.
  ASSERT_EQ(m.influence_offsets, (std::vector<std::uint32_t>{0, 1, 3, 4}));
  EXPECT_EQ(m.influence_joints[0], 1);
  EXPECT_NEAR(m.influence_weights[1], 0.5f, 1e-6f);
  EXPECT_NEAR(m.influence_weights[2], 0.5f, 1e-6f);
  EXPECT_EQ(m.influence_joints[3], 0);
  // Inverse bind matrices undo the bind pose the rest pose rebuilds.
  ASSERT_EQ(a.skins.size(), 1u);
  std::vector<Mat4> model(2);
  ASSERT_TRUE(local_to_model(a.skeleton, a.skeleton.rest_pose(), model));
  for (std::size_t j = 0; j < 2; ++j) {
    const Mat4 identity =
        mul_affine(model[a.skins[0].joints[j]], a.skins[0].inverse_bind_matrices[j]);
    for (int row = 0; row < 4; ++row)
      for (int col = 0; col < 4; ++col)
        EXPECT_NEAR(identity(row, col), row == col ? 1.0f : 0.0f, 1e-5f);
  }
  // The mesh's shader "skin" is a material of that name; no image named so lies beside it.
  ASSERT_EQ(a.materials.size(), 1u);
  EXPECT_EQ(a.materials[0].name, "skin");
  EXPECT_FALSE(a.materials[0].base_color.present());
  EXPECT_EQ(a.meshes[0].material, 0);
  ASSERT_EQ(a.warnings.size(), 1u);
  EXPECT_NE(a.warnings[0].find("shader(s) 'skin' name no image beside the file"), std::string::npos)
      << a.warnings[0];
}

TEST(Md5Anim, FramesReplaceTheFlaggedComponentsOfTheBaseFrame) {
  Result<Asset> r = read_md5anim(std::string_view(kAnim), "walk.md5anim");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& a = *r;
  ASSERT_EQ(a.clips.size(), 1u);
  const Clip& clip = a.clips[0];
  EXPECT_EQ(clip.name(), "walk");
  EXPECT_DOUBLE_EQ(clip.ticks_per_second(), 24.0);
  EXPECT_NEAR(clip.duration(), 1.0f / 24, 1e-7f);
  // The rest pose of an .md5anim alone is its base frame.
  expect_vec(a.skeleton.rest_pose()[1].translation, {-2, 0, 0});
  const std::vector<Transform> f0 = sampled(a, clip, 0);
  expect_vec(f0[1].translation, {-2, 0, 0});
  expect_vec(rotate(f0[1].rotation, {1, 0, 0}), {0, 1, 0});
  expect_rotation(f0[0].rotation, {0, 0, kS, -kS});
  const std::vector<Transform> f1 = sampled(a, clip, 1.0f / 24);
  expect_vec(f1[1].translation, {-3, 0, 0});
  expect_rotation(f1[1].rotation, {0.5f, 0, -kS, -0.5f});
  const std::vector<Transform> half = sampled(a, clip, 0.5f / 24);
  expect_vec(half[1].translation, {-2.5f, 0, 0});
}

TEST(Md5Files, AMeshTakesTheAnimsBesideItWhoseJointsMatch) {
  const std::filesystem::path dir = fresh_dir("md5_beside");
  write_file(dir / "mini.md5mesh", kMesh);
  write_file(dir / "walk.md5anim", kAnim);
  std::string other = kAnim;
  other.replace(other.find("numJoints 2"), 11, "numJoints 3");
  other.replace(other.find("\"child\"\t0 9 0"), 13, "\"child\"\t0 9 0\n\t\"hand\"\t1 0 0");
  other.replace(other.find("( -2 0 0 ) ( 0 0 -0.70710678 )"), 30,
                "( -2 0 0 ) ( 0 0 -0.70710678 )\n\t( 1 0 0 ) ( 0 0 0 )");
  write_file(dir / "other.md5anim", other);
  ASSERT_TRUE(read_md5anim((dir / "other.md5anim").string()).ok());  // fine on its own

  Result<Asset> r = load_asset((dir / "mini.md5mesh").string());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->clips.size(), 1u);
  EXPECT_EQ(r->clips[0].name(), "walk");
  EXPECT_EQ(r->rate_source(0), RateSource::kFile);
  expect_vec(sampled(*r, r->clips[0], 1.0f / 24)[1].translation, {-3, 0, 0});
  bool named = false;
  for (const std::string& w : r->warnings) {
    named |= w.find("other.md5anim") != std::string::npos &&
             w.find("its 3 joints are not the mesh's 2") != std::string::npos;
  }
  EXPECT_TRUE(named);

  LoadOptions alone;
  alone.md5_anims_beside_mesh = false;
  Result<Asset> bare = load_asset((dir / "mini.md5mesh").string(), alone);
  ASSERT_TRUE(bare.ok());
  EXPECT_TRUE(bare->clips.empty());
  // An .md5anim is also a file of its own, e.g. for --clip-file.
  Result<Asset> anim = load_asset((dir / "walk.md5anim").string());
  ASSERT_TRUE(anim.ok()) << anim.error().message;
  EXPECT_EQ(anim->clips.size(), 1u);
}

TEST(Md5Files, AnAnimWithOtherJointsIsRefusedByAddMd5Anim) {
  Result<Asset> r = read_md5mesh(std::string_view(kMesh), "mini.md5mesh");
  ASSERT_TRUE(r.ok());
  std::string renamed = kAnim;
  renamed.replace(renamed.find("\"child\""), 7, "\"elbow\"");
  const Status st = add_md5anim(*r, renamed, "renamed.md5anim");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "renamed.md5anim: does not fit the mesh's skeleton: joint 1 is 'elbow' where the mesh "
            "has 'child'");
  EXPECT_TRUE(r->clips.empty());
}

TEST(Md5Files, AnimatedPosesMatchTheAssimpPathFrameByFrame) {
  // assimp takes the .md5anim named like the mesh; both play it at 24 frames per second.
  const std::filesystem::path dir = fresh_dir("md5_vs_assimp");
  write_file(dir / "mini.md5mesh", kMesh);
  write_file(dir / "mini.md5anim", kAnim);
  Result<Asset> ours = load_asset((dir / "mini.md5mesh").string());
  Result<Asset> theirs = read_assimp((dir / "mini.md5mesh").string());
  ASSERT_TRUE(ours.ok()) << ours.error().message;
  ASSERT_TRUE(theirs.ok()) << theirs.error().message;
  ASSERT_EQ(ours->clips.size(), 1u);
  ASSERT_EQ(theirs->clips.size(), 1u);
  EXPECT_DOUBLE_EQ(theirs->clips[0].ticks_per_second(), 24.0);
  // assimp hangs the joints under nodes of its own (<MD5_Root> turns z up into y up); compare
  // in the space of root's parent there.
  const JointIndex their_root = *theirs->skeleton.find("root");
  const JointIndex above = theirs->skeleton.parent(their_root);
  for (float t : {0.0f, 0.5f / 24, 1.0f / 24}) {
    std::vector<Transform> a = sampled(*ours, ours->clips[0], t);
    std::vector<Transform> b = sampled(*theirs, theirs->clips[0], t);
    std::vector<Mat4> ma(a.size()), mb(b.size());
    ASSERT_TRUE(local_to_model(ours->skeleton, a, ma));
    ASSERT_TRUE(local_to_model(theirs->skeleton, b, mb));
    Mat4 back;
    ASSERT_TRUE(invert_affine(mb[above], back));
    for (const char* name : {"root", "child"}) {
      const Mat4 x = ma[*ours->skeleton.find(name)];
      const Mat4 y = mul_affine(back, mb[*theirs->skeleton.find(name)]);
      for (int k = 0; k < 16; ++k) EXPECT_NEAR(x.m[k], y.m[k], 1e-5f) << name << " at " << t;
    }
  }
}

// ---- BoarMan.md5mesh --------------------------------------------------------------------

// Counts of "keyword N" lines in the file, summed (read with the test's own scan).
std::size_t sum_of(const std::string& text, const std::string& keyword) {
  std::size_t total = 0;
  for (std::size_t at = text.find(keyword + " "); at != std::string::npos;
       at = text.find(keyword + " ", at + 1)) {
    total += std::stoul(text.substr(at + keyword.size() + 1));
  }
  return total;
}

TEST(Md5Shared, BoarManLoadsEveryVertexAndTriangleTheFileCounts) {
  const std::string path = asset_path("md5/BoarMan.md5mesh");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "asset not present: " << path;
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Result<Asset> r = load_asset(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->skeleton.size(), 1u);
  EXPECT_EQ(r->skeleton.name(0), "Bone");
  std::size_t vertices = 0, triangles = 0;
  for (const SkinnedMesh& m : r->meshes) {
    vertices += m.positions.size();
    triangles += m.indices.size() / 3;
  }
  EXPECT_EQ(vertices, sum_of(text, "numverts"));
  EXPECT_EQ(triangles, sum_of(text, "numtris"));
  EXPECT_TRUE(r->clips.empty());  // no .md5anim beside it
}

TEST(Md5Shared, BoarManMatchesTheAssimpPathUpToWindingAndTextureOrigin) {
  const std::string path = asset_path("md5/BoarMan.md5mesh");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "asset not present: " << path;
  Result<Asset> ours = read_md5mesh(path);
  Result<Asset> theirs = read_assimp(path);
  ASSERT_TRUE(ours.ok()) << ours.error().message;
  ASSERT_TRUE(theirs.ok()) << theirs.error().message;
  ASSERT_EQ(ours->meshes.size(), 1u);
  ASSERT_EQ(theirs->meshes.size(), 1u);
  const SkinnedMesh& a = ours->meshes[0];
  const SkinnedMesh& b = theirs->meshes[0];
  ASSERT_EQ(a.indices.size(), b.indices.size());
  // assimp keeps the positions in the mesh's space (under a z-up-to-y-up root node it adds),
  // reverses the winding too, and counts v up from the bottom (1 - v). Triangle t is the same
  // triangle in both, its corners rotated: ours (a, c, b), assimp's (c, b, a).
  float worst = 0, worst_uv = 0;
  for (std::size_t t = 0; t < a.indices.size(); t += 3) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t ia = a.indices[t + k], ib = b.indices[t + (k + 2) % 3];
      worst = std::max(worst, length(a.positions[ia] - b.positions[ib]));
      worst_uv = std::max({worst_uv, std::fabs(a.uvs[ia][0] - b.uvs[ib][0]),
                           std::fabs(a.uvs[ia][1] - (1 - b.uvs[ib][1]))});
    }
  }
  EXPECT_LT(worst, 1e-4f);
  EXPECT_LT(worst_uv, 1e-5f);
  // The joint's rotation is the same rotation (assimp's "Bone" node).
  const std::optional<JointIndex> bone = theirs->skeleton.find("Bone");
  ASSERT_TRUE(bone);
  expect_rotation(ours->skeleton.rest_pose()[0].rotation,
                  theirs->skeleton.rest_pose()[*bone].rotation);
}

// A shader that names an image beside the file (here by its name with .tga) gives the
// material that image as its base colour.
TEST(Md5Mesh, AShaderNamingAnImageBesideTheFileTexturesItsMaterial) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("marrow_md5_shader_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mini.md5mesh") << kMesh;
  std::ofstream(dir / "skin.tga") << "not decoded by the reader";
  Result<Asset> a = load_asset((dir / "mini.md5mesh").string());
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->materials.size(), 1u);
  ASSERT_EQ(a->materials[0].base_color.image, 0);
  EXPECT_EQ(a->images.at(0).path, (dir / "skin.tga").string());
  EXPECT_TRUE(a->warnings.empty());
}

}  // namespace
}  // namespace marrow::md5test
