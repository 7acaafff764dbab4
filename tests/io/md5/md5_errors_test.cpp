// Broken and hostile MD5 files: every error names the file and the line; nothing crashes or
// allocates more than the document budget allows.
#include <random>

#include "md5_test_util.h"

namespace marrow::md5test {
namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string mesh_error(const std::string& text) {
  Result<Asset> r = read_md5mesh(std::string_view(text), "bad.md5mesh");
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().message;
}

std::string anim_error(const std::string& text) {
  Result<Asset> r = read_md5anim(std::string_view(text), "bad.md5anim");
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().message;
}

TEST(Md5Errors, EachNamesTheFileAndTheLine) {
  EXPECT_EQ(mesh_error(replaced(kMesh, "MD5Version 10", "MD5Version 11")),
            "bad.md5mesh:1: MD5Version 11 is not read (marrow reads version 10, which Doom 3 and "
            "Quake 4 write)");
  EXPECT_EQ(mesh_error(replaced(kMesh, "\"child\"\t0", "\"child\"\t1")),
            "bad.md5mesh:9: a parent index 1 is out of range (-1 to 0)");
  EXPECT_EQ(mesh_error(replaced(kMesh, "( 0 0 0.70710678 )", "( 0.9 0.9 0 )")).substr(0, 43),
            "bad.md5mesh:8: orientation (0.900000 0.9000");
  EXPECT_EQ(mesh_error(replaced(kMesh, "vert 2 ( 0.5 0.6 ) 3 1", "vert 2 ( 0.5 0.6 ) 3 2")),
            "bad.md5mesh:19: the vertex's weights 3 to 5 run past the mesh's 4 weights");
  EXPECT_EQ(mesh_error(replaced(kMesh, "tri 0 0 1 2", "tri 0 0 1 5")),
            "bad.md5mesh:22: tri 0 uses vertex 5 of the mesh's 3");
  EXPECT_EQ(mesh_error(replaced(kMesh, "weight 0 1 1", "weight 0 7 1")),
            "bad.md5mesh:25: weight 0 names joint 7 of the 2 joints");
  EXPECT_EQ(mesh_error(replaced(kMesh, "vert 1 (", "vert 4 (")),
            "bad.md5mesh:18: vert 4 where vert 1 belongs (they are numbered in order)");
  EXPECT_EQ(mesh_error(replaced(kMesh, "numverts 3", "numverts 99999999")).substr(0, 49),
            "bad.md5mesh:16: numverts 99999999 cannot fit in t");
  EXPECT_EQ(mesh_error(replaced(kMesh, "( 1 0 0 )\n\tweight 1", "( 1 nan 0 )\n\tweight 1")),
            "bad.md5mesh:25: a weight position 'nan' is not a finite float");
  EXPECT_EQ(mesh_error(replaced(kMesh, "\"skin\"", "\"skin")),
            "bad.md5mesh:14: a string is not closed on its line");
  EXPECT_EQ(mesh_error(std::string(kMesh) + "mesh {\n"),
            "bad.md5mesh:30: unexpected 'mesh' after the 1 meshes numMeshes announces");

  EXPECT_EQ(anim_error(replaced(kAnim, "\t-3 0.5\n", "\t-3\n")),
            "bad.md5anim:30: frame 1 has 1 components; numAnimatedComponents is 2");
  EXPECT_EQ(anim_error(replaced(kAnim, "\t-3 0.5\n", "\t-3 0.9\n")),
            "bad.md5anim:28: frame 1: the orientation of joint 'child' is longer than 1: it is not "
            "the x, y, z of a unit quaternion");
  EXPECT_EQ(anim_error(replaced(kAnim, "\"child\"\t0 9 0", "\"child\"\t0 9 1")),
            "bad.md5anim:11: joint 'child' animates 2 components from index 1, past the "
            "numAnimatedComponents 2");
  EXPECT_EQ(anim_error(replaced(kAnim, "frame 1 {", "frame 2 {")),
            "bad.md5anim:28: frame 2 where frame 1 belongs (frames are numbered in order)");
  EXPECT_EQ(anim_error(replaced(kAnim, "frameRate 24", "frameRate 0")),
            "bad.md5anim:6: frameRate 0 is out of range (1 to 2147483647)");
}

TEST(Md5Errors, AHierarchyDeeperThanTheLimitIsRefusedAtItsJoint) {
  // A chain of joints: joint i on line 8 + i; joint 1025 lies 1025 below the root.
  auto chain = [](int joints) {
    std::string text = "MD5Version 10\ncommandline \"\"\n\nnumJoints " + std::to_string(joints) +
                       "\nnumMeshes 0\n\njoints {\n";
    for (int j = 0; j < joints; ++j) {
      text +=
          "\t\"j" + std::to_string(j) + "\" " + std::to_string(j - 1) + " ( 0 0 1 ) ( 0 0 0 )\n";
    }
    return text + "}\n";
  };
  Result<Asset> fine = read_md5mesh(std::string_view(chain(1025)), "chain.md5mesh");
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(fine->skeleton.size(), 1025u);
  Result<Asset> deep = read_md5mesh(std::string_view(chain(3000)), "chain.md5mesh");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message,
            "chain.md5mesh:1033: joint 'j1025' lies 1025 joints below its root; marrow reads "
            "hierarchies at most 1024 levels deep");
}

TEST(Md5Errors, VerticesSharingHugeWeightRangesPassTheBudgetAndAreRefused) {
  // 5,000 weights (125 KB) and 4,000 vertices (100 KB) that each use all of them: 20 million
  // influences, 240 MB, where the budget allows 64 bytes per input byte plus 64 MiB (~78 MiB).
  std::string text =
      "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\njoints {\n\"r\" -1 ( 0 0 0 ) "
      "( 0 0 0 )\n}\nmesh {\nshader \"\"\nnumverts 4000\n";
  for (int v = 0; v < 4000; ++v) text += "vert " + std::to_string(v) + " ( 0 0 ) 0 5000\n";
  text += "numtris 0\nnumweights 5000\n";
  for (int w = 0; w < 5000; ++w) text += "weight " + std::to_string(w) + " 0 1 ( 0 0 0 )\n";
  text += "}\n";
  const std::string message = mesh_error(text);
  EXPECT_EQ(message.rfind("bad.md5mesh:8: mesh 0: reading this document would allocate", 0), 0u)
      << message;
}

TEST(Md5Errors, TruncatedAndDamagedBoarManFailsCleanlyOrLoads) {
  const std::string path = asset_path("md5/BoarMan.md5mesh");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "asset not present: " << path;
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t cut = 0; cut < text.size(); cut += text.size() / 60 + 1) {
    Result<Asset> r = read_md5mesh(std::string_view(text).substr(0, cut), "cut.md5mesh");
    if (!r.ok()) {
      EXPECT_EQ(r.error().message.rfind("cut.md5mesh:", 0), 0u) << r.error().message;
    }
  }
  std::mt19937 random(14);
  for (int round = 0; round < 60; ++round) {
    std::string damaged = text;
    for (int k = 0; k < 8; ++k) {
      damaged[random() % damaged.size()] =
          static_cast<char>("0123456789-.e( )\"{}\n\r"[random() % 21]);
    }
    Result<Asset> r = read_md5mesh(std::string_view(damaged), "damaged.md5mesh");
    if (!r.ok()) {
      EXPECT_EQ(r.error().message.rfind("damaged.md5mesh:", 0), 0u) << r.error().message;
    }
  }
}

}  // namespace
}  // namespace marrow::md5test
