// FBX blend shapes through assimp, on a hand-written ASCII FBX (tests/io/assimp/data): the shapes
// become sparse morph targets with their channel names, DeformPercent curves become weight
// tracks (percent / 100), and all of it survives the archive (the form an isolated FBX import
// ships its asset in).
#include <gtest/gtest.h>

#include "assimp_test_util.h"
#include "marrow/io/archive.h"
#include "marrow/skin/morph.h"

namespace marrow {
namespace {

const std::string kQuad =
    std::string(MARROW_SOURCE_DIR) + "/tests/io/assimp/data/blend_shape_quad.fbx";

std::vector<float> weights_at(const Asset& a, float t) {
  const MorphLayout layout = MorphLayout::build(a.meshes);
  std::vector<float> w(layout.default_weights().begin(), layout.default_weights().end());
  SamplingCursor cursor(a.clips.at(0));
  EXPECT_TRUE(sample_weight_tracks(a.clips[0], t, cursor, w));
  return w;
}

TEST(AssimpMorph, FbxBlendShapesBecomeNamedSparseTargets) {
  Result<Asset> r = read_assimp(kQuad);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& a = *r;
  ASSERT_EQ(a.meshes.size(), 1u);
  const SkinnedMesh& m = a.meshes[0];
  ASSERT_EQ(m.morph_targets.size(), 2u);
  EXPECT_EQ(m.morph_targets[0].name, "Up");
  EXPECT_EQ(m.morph_targets[1].name, "Out");
  // assimp splits the quad into two triangles of unshared vertices: "Up" moves every copy of
  // the file's vertices 2 and 3 (those at y = 1) by (0, 1, 0), and nothing else.
  const MorphTarget& up = m.morph_targets[0];
  std::size_t at_top = 0;
  for (std::size_t v = 0; v < m.vertex_count(); ++v) at_top += m.positions[v].y == 1.0f;
  EXPECT_EQ(up.vertices.size(), at_top);
  for (std::size_t i = 0; i < up.vertices.size(); ++i) {
    EXPECT_EQ(m.positions[up.vertices[i]].y, 1.0f);
    EXPECT_EQ(up.position_deltas[i], (Vec3{0, 1, 0}));
  }
  const MorphTarget& out = m.morph_targets[1];
  ASSERT_EQ(out.vertices.size(), 1u);
  EXPECT_EQ(m.positions[out.vertices[0]], (Vec3{1, 0, 0}));
  EXPECT_EQ(out.position_deltas[0], (Vec3{0, 0, 2}));
  for (const std::string& w : a.warnings) EXPECT_EQ(w.find("morph"), std::string::npos) << w;
}

TEST(AssimpMorph, DeformPercentCurvesBecomeWeightTracks) {
  Result<Asset> r = read_assimp(kQuad);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->clips.size(), 1u);
  EXPECT_EQ(r->clips[0].weight_tracks().size(), 2u);
  // "Up": 0 % at 0 s, 100 % at 1 s, 50 % at 2 s; "Out": 0 % at 0 s, 100 % at 2 s.
  const struct {
    float t, up, out;
  } expected[] = {{0, 0, 0}, {0.5f, 0.5f, 0.25f}, {1, 1, 0.5f}, {1.5f, 0.75f, 0.75f}, {2, 0.5f, 1}};
  for (const auto& e : expected) {
    const std::vector<float> w = weights_at(*r, e.t);
    EXPECT_NEAR(w[0], e.up, 1e-5f) << e.t;
    EXPECT_NEAR(w[1], e.out, 1e-5f) << e.t;
  }
  // The vertex at (1, 1, 0) at 1.5 s: + 0.75 (0, 1, 0); the one at (1, 0, 0): + 0.75 (0, 0, 2).
  Result<MorphMesh> mm = MorphMesh::build(r->meshes[0]);
  ASSERT_TRUE(mm.ok());
  MorphedVertices mv = MorphedVertices::create(*mm);
  const std::vector<float> w = weights_at(*r, 1.5f);
  ASSERT_TRUE((MorphJob{&*mm, w, &mv}.run()));
  for (std::size_t v = 0; v < r->meshes[0].vertex_count(); ++v) {
    const Vec3 p = r->meshes[0].positions[v];
    if (p == Vec3{1, 1, 0}) {
      EXPECT_NEAR(mv.positions[v].y, 1.75f, 1e-5f);
    } else if (p == Vec3{1, 0, 0}) {
      EXPECT_NEAR(mv.positions[v].z, 1.5f, 1e-5f);
    } else if (p == Vec3{0, 0, 0}) {
      EXPECT_EQ(mv.positions[v], p);
    }
  }
}

TEST(AssimpMorph, BlendShapesSurviveTheArchive) {
  Result<Asset> r = read_assimp(kQuad);
  ASSERT_TRUE(r.ok()) << r.error().message;
  Result<std::vector<std::uint8_t>> bytes = archive_bytes(*r);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  Result<Asset> back = read_archive(*bytes, "quad.marrow");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->meshes[0].morph_targets.size(), 2u);
  EXPECT_EQ(back->meshes[0].morph_targets[1].name, "Out");
  for (float t : {0.0f, 0.5f, 1.25f, 2.0f}) EXPECT_EQ(weights_at(*r, t), weights_at(*back, t));
}

}  // namespace
}  // namespace marrow
