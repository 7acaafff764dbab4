// marrow's SMD reader: hand-written files whose expected values are worked out by hand below,
// the shared SMDs against the assimp path, and broken or hostile files.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "marrow/clip/sampling.h"
#include "marrow/io/assimp_import.h"
#include "marrow/io/smd.h"
#include "marrow/pose/local_to_model.h"
#include "shared_asset.h"

namespace marrow {
namespace {

// root: position (1, 2, 3), angles (0, 0, pi/2): a quarter turn about z (x -> y).
// "child arm" (a quoted name with a space): position (1, 0, 0) under root, so in the model
// (1, 2, 3) + Rz (1, 0, 0) = (1, 3, 3); angles (pi/2, pi/2, 0), R = Ry(90) Rx(90) with X applied
// first: y -> z -> x and x -> x -> -z. (Z-then-X order would give y -> y -> z instead.)
// Vertex 0 links 0 at 0.25 and 1 at 0.5: normalized, strongest first, child 2/3 and root 1/3.
// Vertex 1 has no links: all on its parent bone 1. Vertex 2 says 0 links: all on bone 0.
// Texture v counts up from the bottom: 0.75 becomes 0.25 in marrow (glTF's top-down v).
const char* const kReference = R"(version 1
nodes
0 "root" -1
1 "child arm" 0
end
skeleton
time 0
0 1 2 3 0 0 1.5707963
1 1 0 0 1.5707963 1.5707963 0
end
triangles
skin.bmp
0 1 3 3 0 0 1 0.25 0.75 2 0 0.25 1 0.5
1 2 3 3 0 0 1 0.5 0.75
0 1 4 3 0 0 1 0.25 1.0 0
end
)";

// Three frames at studiomdl's default 30 per second. Frame 1 leaves bone 1 out: it keeps
// frame 0's (1, 0, 0). root moves 0 -> 2 -> 4 along z and turns a quarter about z in frame 2.
const char* const kAnimation = R"(version 1
nodes
0 "root" -1
1 "child arm" 0
end
skeleton
time 0
0 0 0 0 0 0 0
1 1 0 0 0 0 0
time 1
0 0 0 2 0 0 0
time 2
0 0 0 4 0 0 1.5707963
1 3 0 0 0 0 0
end
)";

std::string asset_path(const std::string& relative) {
  return marrow::test::shared_asset_path(relative);
}

void expect_vec(Vec3 got, Vec3 want, float tol = 1e-5f) {
  EXPECT_NEAR(got.x, want.x, tol);
  EXPECT_NEAR(got.y, want.y, tol);
  EXPECT_NEAR(got.z, want.z, tol);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string error_of(const std::string& text) {
  Result<Asset> r = read_smd(std::string_view(text), "bad.smd");
  EXPECT_FALSE(r.ok()) << text.substr(0, 200);
  return r.ok() ? std::string() : r.error().message;
}

TEST(SmdReference, EulerAnglesTurnXFirstThenYThenZ) {
  Result<Asset> r = read_smd(std::string_view(kReference), "ref.smd");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& a = r.value();
  ASSERT_EQ(a.skeleton.size(), 2u);
  EXPECT_EQ(a.skeleton.name(1), "child arm");
  EXPECT_EQ(a.skeleton.parent(1), 0);
  const Transform& root = a.skeleton.rest_pose()[0];
  expect_vec(root.translation, {1, 2, 3});
  expect_vec(rotate(root.rotation, {1, 0, 0}), {0, 1, 0});
  const Transform& child = a.skeleton.rest_pose()[1];
  expect_vec(rotate(child.rotation, {0, 1, 0}), {1, 0, 0});
  expect_vec(rotate(child.rotation, {1, 0, 0}), {0, 0, -1});
  std::vector<Mat4> model(2);
  ASSERT_TRUE(local_to_model(a.skeleton, a.skeleton.rest_pose(), model));
  expect_vec(transform_point(model[1], {0, 0, 0}), {1, 3, 3});
  EXPECT_TRUE(a.clips.empty());  // one frame: the bind pose, not a clip
}

TEST(SmdReference, LinksAreNormalizedStrongestFirstAndNoLinksMeansTheParent) {
  Result<Asset> r = read_smd(std::string_view(kReference), "ref.smd");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& a = r.value();
  ASSERT_EQ(a.meshes.size(), 1u);
  const SkinnedMesh& m = a.meshes[0];
  EXPECT_EQ(m.name, "skin.bmp");
  ASSERT_EQ(m.positions.size(), 3u);
  EXPECT_EQ(m.indices, (std::vector<std::uint32_t>{0, 1, 2}));
  expect_vec(m.positions[1], {2, 3, 3});
  expect_vec(m.normals[0], {0, 0, 1});
  ASSERT_EQ(m.influence_offsets, (std::vector<std::uint32_t>{0, 2, 3, 4}));
  EXPECT_EQ(m.influence_joints[0], 1);
  EXPECT_NEAR(m.influence_weights[0], 2.0f / 3, 1e-6f);
  EXPECT_EQ(m.influence_joints[1], 0);
  EXPECT_NEAR(m.influence_weights[1], 1.0f / 3, 1e-6f);
  EXPECT_EQ(m.influence_joints[2], 1);
  EXPECT_EQ(m.influence_joints[3], 0);
  EXPECT_NEAR(m.uvs[0][1], 0.25f, 1e-6f);
  EXPECT_NEAR(m.uvs[2][1], 0.0f, 1e-6f);
  // Bound at the first frame: inverse bind times bind is the identity.
  std::vector<Mat4> model(2);
  ASSERT_TRUE(local_to_model(a.skeleton, a.skeleton.rest_pose(), model));
  ASSERT_EQ(a.skins.size(), 1u);
  for (std::size_t j = 0; j < 2; ++j) {
    const Mat4 identity =
        mul_affine(model[a.skins[0].joints[j]], a.skins[0].inverse_bind_matrices[j]);
    for (int row = 0; row < 4; ++row)
      for (int col = 0; col < 4; ++col)
        EXPECT_NEAR(identity(row, col), row == col ? 1.0f : 0.0f, 1e-5f);
  }
}

TEST(SmdAnimation, FramesAreKeysAtThirtyPerSecondAndLeftOutBonesHoldTheirPose) {
  Result<Asset> r = read_smd(std::string_view(kAnimation), "walk.smd");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& a = r.value();
  ASSERT_EQ(a.clips.size(), 1u);
  const Clip& clip = a.clips[0];
  EXPECT_EQ(clip.name(), "walk");
  EXPECT_DOUBLE_EQ(clip.ticks_per_second(), 30.0);
  EXPECT_NEAR(clip.duration(), 2.0f / 30, 1e-7f);
  EXPECT_EQ(a.rate_source(0), RateSource::kDefault);
  auto at = [&](float t) {
    std::vector<Transform> local(a.skeleton.rest_pose().begin(), a.skeleton.rest_pose().end());
    EXPECT_TRUE(sample_tracks(clip, t, local));
    return local;
  };
  expect_vec(at(1.0f / 30)[0].translation, {0, 0, 2});
  expect_vec(at(1.0f / 30)[1].translation, {1, 0, 0});
  expect_vec(at(0.5f / 30)[0].translation, {0, 0, 1});
  expect_vec(at(2.0f / 30)[1].translation, {3, 0, 0});
  expect_vec(rotate(at(2.0f / 30)[0].rotation, {1, 0, 0}), {0, 1, 0});

  LoadOptions options;
  options.ticks_per_second = 10;
  Result<Asset> slow = read_smd(std::string_view(kAnimation), "walk.smd", options);
  ASSERT_TRUE(slow.ok());
  EXPECT_NEAR(slow->clips[0].duration(), 0.2f, 1e-7f);
  EXPECT_EQ(slow->rate_source(0), RateSource::kOption);
}

TEST(SmdErrors, EachNamesTheFileAndTheLine) {
  EXPECT_EQ(error_of(replaced(kReference, "version 1\n", "")),
            "bad.smd:1: expected 'version 1', found 'nodes'");
  EXPECT_EQ(error_of(replaced(kReference, "\"child arm\" 0", "\"child arm\" 7")),
            "bad.smd:4: node 1 'child arm' has parent 7, which is not a node");
  EXPECT_EQ(error_of(replaced(kReference, "1 \"child arm\"", "0 \"child arm\"")),
            "bad.smd:4: node id 0 is used twice");
  EXPECT_EQ(error_of(replaced(kAnimation, "time 1", "time 5")),
            "bad.smd:10: time 5 follows time 0 (frames are numbered in order, without gaps)");
  EXPECT_EQ(error_of(replaced(kReference, "time 0\n", "")),
            "bad.smd:7: a bone's pose before the first 'time' line");
  EXPECT_EQ(error_of(replaced(kReference, "1 2 3 3 0 0 1 0.5 0.75", "1 2 3 3 0 0 1 0.5")),
            "bad.smd:14: a vertex is <parent> <px py pz> <nx ny nz> <u v> [<links> ...], found "
            "8 values");
  EXPECT_EQ(error_of(replaced(kReference, "0.75 2 0 0.25 1 0.5", "0.75 2 0 0.25")),
            "bad.smd:13: 2 links need 14 values, the line has 12");
  EXPECT_EQ(error_of(replaced(kReference, "0.75 2 0 0.25 1 0.5", "0.75 2 0 0.25 9 0.5")),
            "bad.smd:13: linked bone 9 is not a node");
  EXPECT_EQ(error_of(replaced(kReference, "0 0.25 1 0.5", "0 -0.25 1 0.5")),
            "bad.smd:13: link 0 has a negative weight");
  EXPECT_EQ(error_of(replaced(kReference, "0 1 4 3 0 0 1 0.25 1.0 0\nend\n", "")),
            "bad.smd:14: the file ends inside the triangles section opened on line 11 (missing "
            "'end')");
  EXPECT_EQ(error_of(replaced(kReference, "triangles", "bones")),
            "bad.smd:11: unknown section 'bones' (expected nodes, skeleton, triangles or "
            "vertexanimation)");
  EXPECT_EQ(error_of(replaced(kReference, "0 1 2 3 0 0 1.5707963", "0 1 2 3 0 0 1e999")),
            "bad.smd:8: an angle '1e999' is not a finite float");
}

TEST(SmdErrors, NodesDeeperThanTheLimitAreRefusedAtTheirLine) {
  auto chain = [](int nodes) {
    std::string text = "version 1\nnodes\n";
    for (int i = 0; i < nodes; ++i) {
      text += std::to_string(i) + " \"n" + std::to_string(i) + "\" " + std::to_string(i - 1) + "\n";
    }
    return text + "end\n";
  };
  Result<Asset> fine = read_smd(std::string_view(chain(1025)), "chain.smd");
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(fine->skeleton.size(), 1025u);
  // Node i is on line 3 + i; node 1025 lies 1025 nodes below its root.
  EXPECT_EQ(error_of(chain(1500)),
            "bad.smd:1028: node 'n1025' lies more than 1024 nodes below its root; marrow reads "
            "hierarchies at most that deep");
}

TEST(SmdErrors, ManyShortFramesOfManyNodesPassTheBudgetAndAreRefused) {
  // 2,000 nodes (30 KB) and 100,000 'time' lines (about 1 MB): each frame is a whole pose of
  // 2,000 bones, about 200 MB in all, past the 64 bytes per input byte + 64 MiB allowed.
  std::string text = "version 1\nnodes\n";
  for (int i = 0; i < 2000; ++i) text += std::to_string(i) + " \"n\" -1\n";
  text += "end\nskeleton\n";
  for (int t = 0; t < 100000; ++t) text += "time " + std::to_string(t) + "\n";
  text += "end\n";
  const std::string message = error_of(text);
  EXPECT_NE(message.find(": reading this document would allocate"), std::string::npos) << message;
  EXPECT_EQ(message.rfind("bad.smd:", 0), 0u) << message;
}

TEST(SmdErrors, TruncatedAndDamagedWusonFailsCleanlyOrLoads) {
  const std::string path = asset_path("smd/WusonSMD.smd");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "asset not present: " << path;
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t cut = 0; cut < text.size(); cut += text.size() / 40 + 1) {
    Result<Asset> r = read_smd(std::string_view(text).substr(0, cut), "cut.smd");
    if (!r.ok()) {
      EXPECT_EQ(r.error().message.rfind("cut.smd:", 0), 0u) << r.error().message;
    }
  }
  std::mt19937 random(17);
  for (int round = 0; round < 40; ++round) {
    std::string damaged = text;
    for (int k = 0; k < 6; ++k) {
      damaged[random() % damaged.size()] = "0123456789-. \"\n\re"[random() % 17];
    }
    Result<Asset> r = read_smd(std::string_view(damaged), "damaged.smd");
    if (!r.ok()) {
      EXPECT_EQ(r.error().message.rfind("damaged.smd:", 0), 0u) << r.error().message;
    }
  }
}

TEST(SmdAnimation, PosesMatchTheAssimpPathExceptWhereAFrameLeavesABoneOut) {
  // assimp plays SMD frames at 25 per second, marrow at 30: compare frame f at its own time.
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "smd_vs_assimp";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "walk.smd").string();
  std::ofstream(path, std::ios::binary) << kAnimation;
  Result<Asset> ours = load_asset(path);
  Result<Asset> theirs = read_assimp(path);
  ASSERT_TRUE(ours.ok()) << ours.error().message;
  ASSERT_TRUE(theirs.ok()) << theirs.error().message;
  ASSERT_EQ(theirs->clips.size(), 1u);
  const JointIndex their_root = *theirs->skeleton.find("root");
  const JointIndex above = theirs->skeleton.parent(their_root);
  for (int f = 0; f < 3; ++f) {
    auto model = [](const Asset& a, float t) {
      std::vector<Transform> local(a.skeleton.rest_pose().begin(), a.skeleton.rest_pose().end());
      EXPECT_TRUE(sample_tracks(a.clips[0], t, local));
      std::vector<Mat4> m(local.size());
      EXPECT_TRUE(local_to_model(a.skeleton, local, m));
      return m;
    };
    const std::vector<Mat4> ma = model(*ours, f / 30.0f);
    const std::vector<Mat4> mb = model(*theirs, f / 25.0f);
    Mat4 back = Mat4::identity();
    if (above != kNoParent) {
      ASSERT_TRUE(invert_affine(mb[above], back));
    }
    for (const char* name : {"root", "child arm"}) {
      const Mat4 x = ma[*ours->skeleton.find(name)];
      const Mat4 y = mul_affine(back, mb[*theirs->skeleton.find(name)]);
      if (f == 1 && std::string(name) == "child arm") {
        // Frame 1 leaves "child arm" out. studiomdl (and marrow) hold its frame-0 pose, (1, 0, 0)
        // under root at (0, 0, 2); assimp interpolates between its frames 0 and 2 instead.
        expect_vec(transform_point(x, {0, 0, 0}), {1, 0, 2});
        expect_vec(transform_point(y, {0, 0, 0}), {2, 0, 2});
        continue;
      }
      for (int k = 0; k < 16; ++k) EXPECT_NEAR(x.m[k], y.m[k], 1e-5f) << name << " frame " << f;
    }
  }
}

// ---- The shared SMDs against the assimp path ----------------------------------------------

TEST(SmdShared, TrianglesMatchTheAssimpPathWithVFlipped) {
  for (const char* file : {"smd/triangle.smd", "smd/WusonSMD.smd"}) {
    const std::string path = asset_path(file);
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "asset not present: " << path;
    Result<Asset> ours = load_asset(path);
    Result<Asset> theirs = read_assimp(path);
    ASSERT_TRUE(ours.ok()) << ours.error().message;
    ASSERT_TRUE(theirs.ok()) << theirs.error().message;
    ASSERT_EQ(ours->meshes.size(), 1u) << file;
    ASSERT_EQ(theirs->meshes.size(), 1u) << file;
    const SkinnedMesh& a = ours->meshes[0];
    const SkinnedMesh& b = theirs->meshes[0];
    // assimp keeps one vertex per corner; marrow shares equal corners. Corner by corner, the
    // positions and normals agree and v is mirrored (assimp counts it from the bottom).
    ASSERT_EQ(a.indices.size(), b.indices.size()) << file;
    float worst = 0;
    for (std::size_t c = 0; c < a.indices.size(); ++c) {
      const std::uint32_t ia = a.indices[c], ib = b.indices[c];
      worst = std::max(
          {worst, length(a.positions[ia] - b.positions[ib]), length(a.normals[ia] - b.normals[ib]),
           std::fabs(a.uvs[ia][0] - b.uvs[ib][0]), std::fabs(a.uvs[ia][1] - (1 - b.uvs[ib][1]))});
    }
    EXPECT_LT(worst, 1e-6f) << file;
    EXPECT_LE(a.positions.size(), b.positions.size()) << file;
  }
}

}  // namespace
}  // namespace marrow
