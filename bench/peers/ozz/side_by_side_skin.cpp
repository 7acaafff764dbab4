// (c) Skinning side by side: the same vertices, influences and palette on both sides, positions
// and normals, one thread, in cache. See README.md for how each library treats normals.
#include <algorithm>
#include <map>
#include <random>

#include "marrow/clip/sampling.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/skinning.h"
#include "marrow/skin/vertex_order.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/geometry/runtime/skinning_job.h"
#include "peer_scene.h"

namespace peer {
namespace {

using namespace marrow;

// One mesh in both forms: marrow's SkinningMesh, and ozz's parts (one SkinningJob per influence
// count, the way ozz's own mesh pipeline splits a mesh) with the same influences.
struct SkinScene {
  std::string name;
  std::size_t vertices = 0;
  std::unique_ptr<SkinningMesh> mesh;
  // The same mesh after order_vertices_for_skinning: what ozz's parts amount to, every full
  // block of 8 writing consecutive vertices.
  std::unique_ptr<SkinningMesh> mesh_in_order;
  std::vector<Mat4> palette;
  std::vector<ozz::math::Float4x4> ozz_palette, ozz_palette_it;
  struct Part {
    int influences = 0;
    std::vector<std::uint16_t> joints;
    std::vector<float> weights;  // influences - 1 per vertex: ozz restores the last one
    std::vector<float> positions, normals, out_positions, out_normals;
  };
  std::vector<Part> parts;
  std::vector<Vec3> out_positions, out_normals;
};

ozz::math::Float4x4 to_ozz(const Mat4& m) {
  ozz::math::Float4x4 r;
  for (int c = 0; c < 4; ++c) r.cols[c] = ozz::math::simd_float4::LoadPtrU(m.m.data() + 4 * c);
  return r;
}

std::shared_ptr<SkinScene> prepare(std::string name, const SkinnedMesh& mesh,
                                   const std::vector<Mat4>& palette) {
  auto sk = std::make_shared<SkinScene>();
  sk->name = std::move(name);
  sk->palette = palette;
  for (const Mat4& m : palette) {
    const ozz::math::Float4x4 o = to_ozz(m);
    sk->ozz_palette.push_back(o);
    sk->ozz_palette_it.push_back(ozz::math::Transpose(ozz::math::Invert(o)));
  }
  auto built = SkinningMesh::build(mesh, palette.size());
  if (!built) fail(built.error().message);
  sk->mesh = std::make_unique<SkinningMesh>(std::move(built).value());
  SkinnedMesh in_order = mesh;
  order_vertices_for_skinning(in_order);
  auto built_in_order = SkinningMesh::build(in_order, palette.size());
  if (!built_in_order) fail(built_in_order.error().message);
  sk->mesh_in_order = std::make_unique<SkinningMesh>(std::move(built_in_order).value());
  sk->vertices = mesh.vertex_count();
  std::map<int, SkinScene::Part> by_count;
  for (std::size_t v = 0; v < mesh.vertex_count(); ++v) {
    // The influences as SkinningMesh::build keeps them: weights above zero, strongest first,
    // renormalized.
    std::vector<std::pair<std::uint16_t, float>> list;
    for (std::uint32_t i = mesh.influence_offsets[v]; i < mesh.influence_offsets[v + 1]; ++i)
      if (mesh.influence_weights[i] > 0)
        list.emplace_back(mesh.influence_joints[i], mesh.influence_weights[i]);
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    double sum = 0;
    for (const auto& p : list) sum += p.second;
    SkinScene::Part& part = by_count[static_cast<int>(list.size())];
    part.influences = static_cast<int>(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      part.joints.push_back(list[i].first);
      if (i + 1 < list.size()) part.weights.push_back(static_cast<float>(list[i].second / sum));
    }
    const Vec3 p = mesh.positions[v], n = mesh.normals[v];
    part.positions.insert(part.positions.end(), {p.x, p.y, p.z});
    part.normals.insert(part.normals.end(), {n.x, n.y, n.z});
  }
  for (auto& [count, part] : by_count) {
    part.out_positions.resize(part.positions.size());
    part.out_normals.resize(part.normals.size());
    sk->parts.push_back(std::move(part));
  }
  sk->out_positions.resize(sk->vertices);
  sk->out_normals.resize(sk->vertices);
  return sk;
}

// Normals through ozz's joint matrices (its default: right for rotations and uniform scale) or
// through the inverse transposes (its path for non-uniform scale); ozz renormalizes neither.
std::size_t ozz_skin(SkinScene& sk, bool inverse_transpose, std::size_t repeat) {
  for (std::size_t r = 0; r < repeat; ++r) {
    for (SkinScene::Part& p : sk.parts) {
      ozz::geometry::SkinningJob job;
      job.vertex_count = static_cast<int>(p.positions.size() / 3);
      job.influences_count = p.influences;
      job.joint_matrices = ozz::make_span(sk.ozz_palette);
      if (inverse_transpose)
        job.joint_inverse_transpose_matrices = ozz::make_span(sk.ozz_palette_it);
      job.joint_indices = ozz::make_span(p.joints);
      job.joint_indices_stride = sizeof(std::uint16_t) * static_cast<std::size_t>(p.influences);
      job.joint_weights = ozz::make_span(p.weights);
      job.joint_weights_stride = sizeof(float) * static_cast<std::size_t>(p.influences - 1);
      job.in_positions = ozz::make_span(p.positions);
      job.in_positions_stride = 3 * sizeof(float);
      job.in_normals = ozz::make_span(p.normals);
      job.in_normals_stride = 3 * sizeof(float);
      job.out_positions = ozz::make_span(p.out_positions);
      job.out_positions_stride = 3 * sizeof(float);
      job.out_normals = ozz::make_span(p.out_normals);
      job.out_normals_stride = 3 * sizeof(float);
      if (!job.Run()) fail("ozz's SkinningJob refused its arguments");
    }
  }
  return repeat * sk.vertices;
}

// Normals through the inverse transpose of the blended 3x3 (its cofactor), renormalized
// (kExact), or through the blended 3x3, not renormalized (kLinearUnnormalized: ozz's default).
std::size_t marrow_skin(SkinScene& sk, bool reference, std::size_t repeat, bool in_order = false,
                        NormalTransform normals = NormalTransform::kExact) {
  const SkinningOutput out{sk.out_positions, sk.out_normals, {}, normals};
  const SkinningMesh& mesh = in_order ? *sk.mesh_in_order : *sk.mesh;
  for (std::size_t r = 0; r < repeat; ++r) {
    const bool ok =
        reference ? skin_reference(mesh, sk.palette, SkinningMethod::kLinear, out, 0, sk.vertices)
                  : skin(mesh, sk.palette, SkinningMethod::kLinear, out);
    if (!ok) fail("skin() refused its arguments");
  }
  return repeat * sk.vertices;
}

// 4 influences per vertex on 64 joints (as bench/skinning_bench.cpp's mesh) with random unit
// normals, and a palette of rigid transforms.
std::shared_ptr<SkinScene> synthetic(std::size_t vertices) {
  constexpr std::size_t kJoints = 64, kInfluences = 4;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1), w(0.05f, 1);
  std::uniform_int_distribution<int> joint(0, kJoints - kInfluences);
  SkinnedMesh m;
  m.name = "synthetic";
  m.influence_offsets.push_back(0);
  for (std::size_t v = 0; v < vertices; ++v) {
    m.positions.push_back({u(rng), u(rng), u(rng)});
    const Vec3 n{u(rng), u(rng), u(rng)};
    m.normals.push_back(n * (1.0f / length(n)));
    const int first = joint(rng);
    float ws[kInfluences], sum = 0;
    for (float& x : ws) sum += (x = w(rng));
    for (std::size_t i = 0; i < kInfluences; ++i) {
      m.influence_joints.push_back(static_cast<std::uint16_t>(first + static_cast<int>(i)));
      m.influence_weights.push_back(ws[i] / sum);
    }
    m.influence_offsets.push_back(static_cast<std::uint32_t>(m.influence_joints.size()));
  }
  std::vector<Mat4> palette(kJoints);
  std::mt19937 prng(2);
  for (Mat4& p : palette)
    p = mat4_from_trs({u(prng), u(prng), u(prng)},
                      normalize(Quat{u(prng) * 0.3f, u(prng) * 0.3f, u(prng) * 0.3f, 1}),
                      {1, 1, 1});
  return prepare("synthetic", m, palette);
}

// Soldier's two skinned meshes (the body and the visor share one skin) as one mesh, posed by
// Walk at 0.5 s.
std::shared_ptr<SkinScene> soldier(const Scene& s) {
  const Skeleton& skeleton = s.asset.skeleton;
  SkinnedMesh all;
  all.name = "Soldier";
  all.influence_offsets.push_back(0);
  int skin_index = -1;
  for (const SkinnedMesh& m : s.asset.meshes) {
    if (m.skin < 0) continue;
    if (skin_index >= 0 && m.skin != skin_index) fail("Soldier.glb's meshes use different skins");
    if (m.normals.size() != m.positions.size()) fail("Soldier.glb's meshes lack normals");
    skin_index = m.skin;
    const auto base = static_cast<std::uint32_t>(all.influence_joints.size());
    all.positions.insert(all.positions.end(), m.positions.begin(), m.positions.end());
    all.normals.insert(all.normals.end(), m.normals.begin(), m.normals.end());
    all.influence_joints.insert(all.influence_joints.end(), m.influence_joints.begin(),
                                m.influence_joints.end());
    all.influence_weights.insert(all.influence_weights.end(), m.influence_weights.begin(),
                                 m.influence_weights.end());
    for (std::size_t v = 1; v < m.influence_offsets.size(); ++v)
      all.influence_offsets.push_back(base + m.influence_offsets[v]);
  }
  if (skin_index < 0) fail("Soldier.glb has no skinned mesh");
  std::vector<Transform> local(skeleton.size());
  SamplingCursor cursor(*s.exact[1]);
  sample(*s.exact[1], skeleton.rest_pose(), 0.5f, cursor, local);
  std::vector<Mat4> model(skeleton.size());
  local_to_model(skeleton, local, model);
  const Skin& skin = s.asset.skins[static_cast<std::size_t>(skin_index)];
  std::vector<Mat4> palette(skin.joints.size());
  if (!compute_skinning_palette(skin, model, palette)) fail("Soldier.glb's skin is malformed");
  return prepare("Soldier", all, palette);
}

}  // namespace

void add_skinning_workloads(const Scene& scene, std::size_t repeat, std::vector<Workload>& out) {
  for (const std::shared_ptr<SkinScene>& sk : {synthetic(8192), soldier(scene)}) {
    const std::string group = "c " + sk->name + " " + std::to_string(sk->vertices);
    auto add = [&](const char* name, std::function<std::size_t()> run) {
      out.emplace_back(group, name, std::move(run));
    };
    add("ozz, normals by joint matrices", [sk, repeat] { return ozz_skin(*sk, false, repeat); });
    add("ozz, normals by inverse transposes", [sk, repeat] { return ozz_skin(*sk, true, repeat); });
    add("marrow", [sk, repeat] { return marrow_skin(*sk, false, repeat); });
    add("marrow, vertices in influence order (order_vertices_for_skinning)",
        [sk, repeat] { return marrow_skin(*sk, false, repeat, true); });
    add("marrow, normals by the blended 3x3 (kLinearUnnormalized)", [sk, repeat] {
      return marrow_skin(*sk, false, repeat, false, NormalTransform::kLinearUnnormalized);
    });
    add("marrow, normals by the blended 3x3, vertices in influence order", [sk, repeat] {
      return marrow_skin(*sk, false, repeat, true, NormalTransform::kLinearUnnormalized);
    });
    add("marrow scalar reference", [sk, repeat] { return marrow_skin(*sk, true, repeat); });
  }
}

}  // namespace peer
