// order_vertices_for_skinning: the same deformed mesh, vertices of one influence count together.
#include <gtest/gtest.h>

#include <random>

#include "marrow/skin/skinning.h"
#include "marrow/skin/vertex_order.h"
#include "skin_test_util.h"

namespace marrow {
namespace {

std::vector<std::uint32_t> counts(const SkinnedMesh& m) {
  std::vector<std::uint32_t> c;
  for (std::size_t v = 0; v < m.vertex_count(); ++v)
    c.push_back(m.influence_offsets[v + 1] - m.influence_offsets[v]);
  return c;
}

SkinnedMesh mixed_mesh(std::mt19937& rng, std::size_t n) {
  // Counts 1..4 in a repeating, interleaved pattern: no 8 consecutive vertices share one.
  SkinnedMesh mesh = test::random_mesh(rng, n, 12, [](std::size_t v) { return 1 + (v * 7) % 4; });
  for (std::size_t v = 0; v < n; ++v) {
    mesh.uvs.push_back({static_cast<float>(v), 0.5f});
    mesh.colors.push_back({0, 0, 0, static_cast<float>(v)});
  }
  for (std::uint32_t t = 0; t + 2 < n; t += 3)
    mesh.indices.insert(mesh.indices.end(), {t + 2, t, t + 1});
  MorphTarget target;
  target.name = "smile";
  for (std::uint32_t v = 1; v < n; v += 5) {
    target.vertices.push_back(v);
    target.position_deltas.push_back({static_cast<float>(v), 1, 0});
    target.normal_deltas.push_back({0, static_cast<float>(v), 0});
  }
  mesh.morph_targets.push_back(target);
  return mesh;
}

TEST(VertexOrder, SameDeformedMeshWithEachInfluenceCountTogether) {
  std::mt19937 rng(7);
  const std::size_t n = 203;
  const SkinnedMesh original = mixed_mesh(rng, n);
  SkinnedMesh reordered = original;
  const std::vector<std::uint32_t> old_of_new = order_vertices_for_skinning(reordered);
  ASSERT_EQ(old_of_new.size(), n);

  // A permutation, counts now non-decreasing, and stable within a count.
  std::vector<bool> seen(n, false);
  for (std::uint32_t old : old_of_new) {
    ASSERT_LT(old, n);
    EXPECT_FALSE(seen[old]);
    seen[old] = true;
  }
  const std::vector<std::uint32_t> c = counts(reordered), c0 = counts(original);
  for (std::size_t v = 1; v < n; ++v) {
    EXPECT_LE(c[v - 1], c[v]) << v;
    if (c[v - 1] == c[v]) {
      EXPECT_LT(old_of_new[v - 1], old_of_new[v]) << v;
    }
  }
  // Every attribute followed its vertex.
  for (std::size_t v = 0; v < n; ++v) {
    const std::uint32_t o = old_of_new[v];
    EXPECT_EQ(reordered.positions[v], original.positions[o]);
    EXPECT_EQ(reordered.normals[v], original.normals[o]);
    EXPECT_EQ(reordered.tangents[v], original.tangents[o]);
    EXPECT_EQ(reordered.uvs[v][0], static_cast<float>(o));
    EXPECT_EQ(reordered.colors[v][3], static_cast<float>(o));
    EXPECT_EQ(c[v], c0[o]);
  }
  // Every triangle keeps its corners.
  ASSERT_EQ(reordered.indices.size(), original.indices.size());
  for (std::size_t k = 0; k < original.indices.size(); ++k)
    EXPECT_EQ(old_of_new[reordered.indices[k]], original.indices[k]) << k;
  // Morph targets: the same deltas on the same vertices, listed in increasing order.
  const MorphTarget& t = reordered.morph_targets[0];
  ASSERT_EQ(t.vertices.size(), original.morph_targets[0].vertices.size());
  for (std::size_t k = 0; k < t.vertices.size(); ++k) {
    if (k > 0) {
      EXPECT_LT(t.vertices[k - 1], t.vertices[k]);
    }
    const float old = static_cast<float>(old_of_new[t.vertices[k]]);
    EXPECT_EQ(t.position_deltas[k], (Vec3{old, 1, 0}));
    EXPECT_EQ(t.normal_deltas[k], (Vec3{0, old, 0}));
  }

  // Skinned, both give the same vertices, bit for bit, whichever order they were written in.
  std::vector<Mat4> palette;
  for (int j = 0; j < 12; ++j) palette.push_back(test::to_mat4(test::random_joint(rng, true)));
  const SkinningMesh a = SkinningMesh::build(original, 12).value();
  const SkinningMesh b = SkinningMesh::build(reordered, 12).value();
  std::vector<Vec3> pa(n), na(n), pb(n), nb(n);
  std::vector<std::array<float, 4>> ta(n), tb(n);
  ASSERT_TRUE(skin(a, palette, SkinningMethod::kLinear, {pa, na, ta}));
  ASSERT_TRUE(skin(b, palette, SkinningMethod::kLinear, {pb, nb, tb}));
  for (std::size_t v = 0; v < n; ++v) {
    EXPECT_EQ(pb[v], pa[old_of_new[v]]) << v;
    EXPECT_EQ(nb[v], na[old_of_new[v]]) << v;
    EXPECT_EQ(tb[v], ta[old_of_new[v]]) << v;
  }
}

TEST(VertexOrder, CapsZeroWeightsAndRigidMeshesFollowBuildsCounts) {
  std::mt19937 rng(3);
  SkinnedMesh mesh = test::random_mesh(rng, 6, 8, [](std::size_t v) { return v % 2 ? 4 : 2; });
  // Vertex 1's last two weights are zero: it counts 2, like the even ones; with a cap of 3 the
  // others count 3 and follow.
  mesh.influence_weights[mesh.influence_offsets[1] + 2] = 0;
  mesh.influence_weights[mesh.influence_offsets[1] + 3] = 0;
  SkinnedMesh capped = mesh;
  EXPECT_EQ(order_vertices_for_skinning(capped, 3), (std::vector<std::uint32_t>{0, 1, 2, 4, 3, 5}));
  SkinnedMesh rigid;
  rigid.positions = {{0, 0, 0}, {1, 0, 0}};
  rigid.indices = {1, 0, 1};
  EXPECT_EQ(order_vertices_for_skinning(rigid), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(rigid.indices, (std::vector<std::uint32_t>{1, 0, 1}));
  // Offsets that decrease are SkinningMesh::build's to refuse: the mesh is left untouched.
  SkinnedMesh bad = mesh;
  bad.influence_offsets[2] = bad.influence_offsets[1] - 1;
  const SkinnedMesh before = bad;
  EXPECT_EQ(order_vertices_for_skinning(bad), (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(bad.influence_offsets, before.influence_offsets);
  EXPECT_EQ(bad.positions, before.positions);
  EXPECT_FALSE(SkinningMesh::build(bad, 8).ok());
}

}  // namespace
}  // namespace marrow
