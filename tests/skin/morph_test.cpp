// Morph targets at run time: a hand-computed vertex, the SIMD kernel on every level the machine
// has against the scalar one and against the plain definition (apply_morphs_reference) on random
// sparse targets with 1 to 12 targets per vertex, only moved vertices touched, skinning of morphed
// vertices, the layout of the weight array, and what validation refuses.
#include <gtest/gtest.h>

#include <random>

#include "job_checks.h"
#include "marrow/skin/morph.h"
#include "simd_test_util.h"
#include "skin_test_util.h"

namespace marrow {
namespace {

SkinnedMesh quad() {
  SkinnedMesh m;
  m.name = "quad";
  m.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  m.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  m.indices = {0, 1, 2, 0, 2, 3};
  MorphTarget up;
  up.name = "up";
  up.vertices = {2, 3};
  up.position_deltas = {{0, 1, 0}, {0, 1, 0}};
  MorphTarget out;
  out.name = "out";
  out.vertices = {1, 2};
  out.position_deltas = {{0, 0, 2}, {0, 0, 4}};
  out.normal_deltas = {{1, 0, 0}, {0, 1, 0}};
  m.morph_targets = {up, out};
  return m;
}

TEST(Morph, HandComputedQuad) {
  const SkinnedMesh m = quad();
  Result<MorphMesh> mm = MorphMesh::build(m);
  ASSERT_TRUE(mm.ok()) << mm.error().message;
  EXPECT_EQ(mm->moved_vertex_count(), 3u);
  MorphedVertices out = MorphedVertices::create(*mm);
  const float w[] = {0.5f, -0.25f};
  ASSERT_TRUE((MorphJob{&*mm, w, &out}.run()));
  // Vertex 2: (1, 1, 0) + 0.5 (0, 1, 0) - 0.25 (0, 0, 4) = (1, 1.5, -1).
  EXPECT_EQ(out.positions[0], (Vec3{0, 0, 0}));
  EXPECT_EQ(out.positions[1], (Vec3{1, 0, -0.5f}));
  EXPECT_EQ(out.positions[2], (Vec3{1, 1.5f, -1}));
  EXPECT_EQ(out.positions[3], (Vec3{0, 1.5f, 0}));
  // Normals: vertex 1 (0, 0, 1) - 0.25 (1, 0, 0); not renormalized here.
  EXPECT_EQ(out.normals[1], (Vec3{-0.25f, 0, 1}));
  EXPECT_EQ(out.normals[2], (Vec3{0, -0.25f, 1}));
  EXPECT_EQ(out.normals[3], (Vec3{0, 0, 1}));
}

// A random mesh with sparse targets: target t moves about `fraction` of the vertices.
SkinnedMesh with_targets(SkinnedMesh mesh, std::mt19937& rng, std::size_t targets, double fraction,
                         bool normals, bool tangents) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::bernoulli_distribution pick(fraction);
  for (std::size_t t = 0; t < targets; ++t) {
    MorphTarget target;
    target.name = "t" + std::to_string(t);
    for (std::uint32_t v = 0; v < mesh.vertex_count(); ++v) {
      if (!pick(rng)) continue;
      target.vertices.push_back(v);
      target.position_deltas.push_back({u(rng), u(rng), u(rng)});
      if (normals) target.normal_deltas.push_back({u(rng), u(rng), u(rng)});
      if (tangents) target.tangent_deltas.push_back({u(rng), u(rng), u(rng)});
    }
    mesh.morph_targets.push_back(std::move(target));
  }
  return mesh;
}

float dist(Vec3 a, Vec3 b) {
  return length(a - b);
}

void expect_kernels_match_definition() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.5f, 1.5f);
  for (const bool normals : {false, true}) {
    for (const bool tangents : {false, true}) {
      SkinnedMesh base = test::random_mesh(rng, 500, 4, [](std::size_t) { return 1; });
      if (!normals) base.normals.clear();
      if (!tangents) base.tangents.clear();
      // 12 targets at 35 %: vertices get 0 to 12 targets (groups 1..8 and the runtime-count one).
      const SkinnedMesh mesh = with_targets(base, rng, 12, 0.35, normals, tangents);
      Result<MorphMesh> mm = MorphMesh::build(mesh);
      ASSERT_TRUE(mm.ok()) << mm.error().message;
      MorphedVertices fast = MorphedVertices::create(*mm), scalar = MorphedVertices::create(*mm);
      std::vector<Vec3> p(500), n(normals ? 500 : 0);
      std::vector<std::array<float, 4>> tg(tangents ? 500 : 0);
      for (int frame = 0; frame < 3; ++frame) {
        std::vector<float> w(12);
        for (float& x : w) x = u(rng);
        if (frame == 2) std::fill(w.begin(), w.end(), 0.0f);  // back to the base mesh
        ASSERT_TRUE((MorphJob{&*mm, w, &fast}.run()));
        ASSERT_TRUE((MorphJob{&*mm, w, &scalar}.run_reference()));
        ASSERT_TRUE(apply_morphs_reference(mesh, w, p, n, tg));
        for (std::size_t v = 0; v < 500; ++v) {
          ASSERT_LT(dist(fast.positions[v], p[v]), 1e-5f) << v;
          ASSERT_LT(dist(fast.positions[v], scalar.positions[v]), 1e-5f) << v;
          if (normals) {
            ASSERT_LT(dist(fast.normals[v], n[v]), 1e-5f) << v;
          }
          if (tangents) {
            const Vec3 a{fast.tangents[v][0], fast.tangents[v][1], fast.tangents[v][2]};
            ASSERT_LT(dist(a, {tg[v][0], tg[v][1], tg[v][2]}), 1e-5f) << v;
            ASSERT_EQ(fast.tangents[v][3], mesh.tangents[v][3]) << v;
          }
        }
        if (frame == 2) {
          for (std::size_t v = 0; v < 500; ++v) ASSERT_EQ(fast.positions[v], mesh.positions[v]);
        }
      }
    }
  }
}

TEST(Morph, EverySimdLevelMatchesScalarAndTheDefinitionWithUpTo12TargetsPerVertex) {
  test::for_each_simd_level([](SimdLevel) { expect_kernels_match_definition(); });
}

TEST(Morph, VerticesNoTargetMovesAreNeverWritten) {
  std::mt19937 rng(11);
  SkinnedMesh base = test::random_mesh(rng, 200, 2, [](std::size_t) { return 1; });
  const SkinnedMesh mesh = with_targets(base, rng, 3, 0.05, true, false);
  Result<MorphMesh> mm = MorphMesh::build(mesh);
  ASSERT_TRUE(mm.ok());
  MorphedVertices out = MorphedVertices::create(*mm);
  std::vector<bool> moved(200, false);
  for (const MorphTarget& t : mesh.morph_targets)
    for (std::uint32_t v : t.vertices) moved[v] = true;
  const Vec3 marker{1e6f, 2e6f, 3e6f};
  for (std::size_t v = 0; v < 200; ++v)
    if (!moved[v]) out.positions[v] = marker;
  const float w[] = {1, 1, 1};
  ASSERT_TRUE((MorphJob{&*mm, w, &out}.run()));
  for (std::size_t v = 0; v < 200; ++v) {
    if (!moved[v]) {
      EXPECT_EQ(out.positions[v], marker) << v;
    }
  }
}

TEST(Morph, SkinningMorphedVerticesEqualsSkinningTheMorphedMesh) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<std::size_t> k(1, 6);
  SkinnedMesh base = test::random_mesh(rng, 300, 8, [&](std::size_t) { return k(rng); });
  const SkinnedMesh mesh = with_targets(base, rng, 5, 0.2, true, true);
  Result<SkinningMesh> sm = SkinningMesh::build(mesh, 8);
  ASSERT_TRUE(sm.ok());
  Result<MorphMesh> mm = MorphMesh::build(mesh, &*sm);
  ASSERT_TRUE(mm.ok());
  MorphedVertices bind = MorphedVertices::create(*mm);
  const float w[] = {0.3f, 1, -0.5f, 0.8f, 0.1f};
  ASSERT_TRUE((MorphJob{&*mm, w, &bind}.run()));
  std::vector<Mat4> palette;
  for (int j = 0; j < 8; ++j) palette.push_back(test::to_mat4(test::random_joint(rng, true)));

  SkinnedMesh morphed = mesh;
  ASSERT_TRUE(
      apply_morphs_reference(mesh, w, morphed.positions, morphed.normals, morphed.tangents));
  Result<SkinningMesh> sm2 = SkinningMesh::build(morphed, 8);
  ASSERT_TRUE(sm2.ok());
  for (SkinningMethod method : {SkinningMethod::kLinear, SkinningMethod::kDualQuaternion}) {
    std::vector<Vec3> a(300), an(300), b(300), bn(300);
    std::vector<std::array<float, 4>> at(300), bt(300);
    ASSERT_TRUE(skin(*sm, bind, palette, method, {a, an, at}, 0, 300));
    ASSERT_TRUE(skin_reference(*sm2, palette, method, {b, bn, bt}, 0, 300));
    for (std::size_t v = 0; v < 300; ++v) {
      ASSERT_LT(dist(a[v], b[v]), 1e-4f) << v;
      ASSERT_LT(dist(an[v], bn[v]), 1e-4f) << v;
    }
  }
  // Morphed vertices made for another order are refused.
  Result<MorphMesh> rigid_order = MorphMesh::build(mesh);
  ASSERT_TRUE(rigid_order.ok());
  const MorphedVertices wrong = MorphedVertices::create(*rigid_order);
  std::vector<Vec3> a(300);
  EXPECT_FALSE(skin(*sm, wrong, palette, SkinningMethod::kLinear, {a, {}, {}}, 0, 300));
  const SkinningJob job{.mesh = &*sm, .palette = palette, .bind = &wrong, .output = {a, {}, {}}};
  EXPECT_TRUE(test::run_refused(job, "SkinningJob: bind"));
}

TEST(Morph, JobRefusesShortOrNonFiniteWeightsAndForeignOutput) {
  const SkinnedMesh m = quad();
  Result<MorphMesh> mm = MorphMesh::build(m);
  ASSERT_TRUE(mm.ok());
  MorphedVertices out = MorphedVertices::create(*mm);
  const float one[] = {1};
  const float nan[] = {1, NAN};
  EXPECT_TRUE(test::refused_naming(MorphJob{&*mm, one, &out}.validate(), "MorphJob: weights"));
  EXPECT_TRUE(test::run_refused(MorphJob{&*mm, nan, &out}, "MorphJob: weights[1]"));
  MorphedVertices empty;
  const float two[] = {1, 1};
  EXPECT_TRUE(test::run_refused(MorphJob{&*mm, two, &empty}, "MorphJob: output"));
}

TEST(Morph, ValidationNamesTheMeshTargetAndVertex) {
  SkinnedMesh m = quad();
  m.morph_targets[1].vertices = {1, 9};
  Status st = validate_morph_targets(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("mesh 'quad' target 1 'out'"), std::string::npos)
      << st.error().message;
  EXPECT_NE(st.error().message.find("vertex 9"), std::string::npos);
  m = quad();
  m.morph_targets[0].position_deltas[1].y = NAN;
  EXPECT_FALSE(validate_morph_targets(m).ok());
  m = quad();
  m.morph_targets[0].vertices = {3, 2};
  EXPECT_FALSE(validate_morph_targets(m).ok());
  m = quad();
  m.default_morph_weights = {1};
  EXPECT_FALSE(validate_morph_targets(m).ok());
  EXPECT_FALSE(MorphMesh::build(m).ok());
}

TEST(Morph, SparseTargetsFromDenseDeltasKeepOnlyMovedVertices) {
  const std::vector<Vec3> p = {{0, 0, 0}, {1, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  const std::vector<Vec3> n = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 1, 0}};
  const MorphTarget t = make_sparse_target("t", p, n);
  EXPECT_EQ(t.vertices, (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(t.position_deltas[1], (Vec3{0, 0, 0}));
  EXPECT_EQ(t.normal_deltas[1], (Vec3{0, 1, 0}));
  EXPECT_TRUE(t.tangent_deltas.empty());
}

TEST(MorphLayout, OneRangePerNodeInNodeOrderWithNamesAndDefaults) {
  SkinnedMesh a = quad(), b = quad(), c = quad();
  a.node = 5;
  a.default_morph_weights = {0.5f, 0.25f};
  b.node = 2;
  b.morph_targets.pop_back();
  c.node = 5;  // a second primitive of node 5
  SkinnedMesh rigid;
  rigid.node = 1;
  const std::vector<SkinnedMesh> meshes = {a, rigid, b, c};
  const MorphLayout layout = MorphLayout::build(meshes);
  ASSERT_EQ(layout.slots().size(), 2u);
  EXPECT_EQ(layout.slots()[0].node, 2);
  EXPECT_EQ(layout.slots()[0].first, 0u);
  EXPECT_EQ(layout.slots()[0].count, 1u);
  EXPECT_EQ(layout.slots()[1].node, 5);
  EXPECT_EQ(layout.slots()[1].first, 1u);
  EXPECT_EQ(layout.slots()[1].count, 2u);
  EXPECT_EQ(layout.weight_count(), 3u);
  EXPECT_EQ(layout.default_weights()[1], 0.5f);
  EXPECT_EQ(layout.default_weights()[2], 0.25f);
  EXPECT_EQ(layout.names()[2], "out");
  const std::vector<float> w = {10, 20, 30};
  EXPECT_EQ(layout.weights_of(c, w).size(), 2u);
  EXPECT_EQ(layout.weights_of(c, w)[0], 20);
  EXPECT_TRUE(layout.weights_of(rigid, w).empty());
}

}  // namespace
}  // namespace marrow
