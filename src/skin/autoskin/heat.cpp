// Bone heat diffusion (Baran & Popovic 2007, "Automatic Rigging and Animation of 3D
// Characters", section 4). For every bone joint i the weights solve
//     (-Delta + H) w_i = H p_i
// on the surface, where Delta is the cotangent Laplacian, H_vv = k c / d_v^2 with d_v the
// distance from vertex v to its nearest bone visible from v (k bones at that distance share:
// p_i(v) = 1 / k for each), and H_vv = 0 where no bone is visible. Multiplying each row by the
// vertex's area (Delta = A^-1 L with L the symmetric cotangent matrix) gives the symmetric
// positive definite system (L + A H) w_i = A H p_i: one sparse Cholesky factorization and one
// back-substitution per bone.
//
// Robustness (where Blender reports "failed to find solution for one or more bones"): vertices
// are welded before the solve; collapsed and needle triangles are left out of the Laplacian;
// non-manifold edges simply sum their triangles; a connected piece in which no vertex sees a
// bone (an island outside the body, a strap) takes heat from its nearest bones regardless of
// visibility; every vertex ends with weights summing to one. What was done goes into the notes.
#include <embree3/rtcore.h>

#include <Eigen/Geometry>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <numeric>
#include <thread>

#include "internal.h"

namespace marrow::autoskin::detail {
namespace {

// Distances within this relative margin of the nearest one are ties.
constexpr float kTieMargin = 1e-3f;
// Weights below this are dropped as soon as a solve ends (they would be pruned anyway).
constexpr double kKeepWeight = 1e-4;

struct Heat {
  float h = 0;                        // c * k / d^2 (0: no bone visible)
  std::vector<std::uint16_t> joints;  // the k nearest visible bone joints (rig indices)
};

class RayScene {
 public:
  RayScene(const WeldedMesh& mesh) {
    device_ = rtcNewDevice("threads=1");
    if (!device_) return;
    scene_ = rtcNewScene(device_);
    RTCGeometry geometry = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    auto* vertices = static_cast<float*>(
        rtcSetNewGeometryBuffer(geometry, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                3 * sizeof(float), mesh.positions.size()));
    auto* indices = static_cast<std::uint32_t*>(
        rtcSetNewGeometryBuffer(geometry, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                3 * sizeof(std::uint32_t), mesh.triangles.size()));
    if (!vertices || !indices) {
      rtcReleaseGeometry(geometry);
      rtcReleaseScene(scene_);
      rtcReleaseDevice(device_);
      scene_ = nullptr;
      device_ = nullptr;
      return;
    }
    for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
      vertices[3 * v] = mesh.positions[v].x;
      vertices[3 * v + 1] = mesh.positions[v].y;
      vertices[3 * v + 2] = mesh.positions[v].z;
    }
    for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
      for (int c = 0; c < 3; ++c) indices[3 * t + c] = mesh.triangles[t][c];
    rtcCommitGeometry(geometry);
    rtcAttachGeometry(scene_, geometry);
    rtcReleaseGeometry(geometry);
    rtcCommitScene(scene_);
  }
  ~RayScene() {
    if (scene_) rtcReleaseScene(scene_);
    if (device_) rtcReleaseDevice(device_);
  }
  RayScene(const RayScene&) = delete;
  RayScene& operator=(const RayScene&) = delete;
  bool ok() const { return scene_ != nullptr; }

  // True when nothing of the mesh lies on the segment from `from` to `to` (after `skip`).
  bool clear(Vec3 from, Vec3 to, float skip) const {
    const Vec3 d = to - from;
    const float len = length(d);
    if (len <= skip) return true;
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRay ray{};
    ray.org_x = from.x;
    ray.org_y = from.y;
    ray.org_z = from.z;
    ray.dir_x = d.x;
    ray.dir_y = d.y;
    ray.dir_z = d.z;
    ray.tnear = skip / len;
    ray.tfar = 1.0f;
    ray.mask = 0xFFFFFFFFu;
    ray.time = 0;
    rtcOccluded1(scene_, &context, &ray);
    return ray.tfar >= 0;  // Embree sets tfar to -inf on a hit
  }

 private:
  RTCDevice device_ = nullptr;
  RTCScene scene_ = nullptr;
};

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t v) {
  while (parent[v] != v) v = parent[v] = parent[parent[v]];
  return v;
}

template <typename F>
void parallel_for(std::size_t n, unsigned threads, F&& body) {
  threads =
      std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(n, 1))));
  if (threads == 1) {
    body(0, n, 0u);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t chunk = (n + threads - 1) / threads;
  for (unsigned t = 1; t < threads; ++t) {
    const std::size_t b = std::min(n, t * chunk), e = std::min(n, (t + 1) * chunk);
    pool.emplace_back([&body, b, e, t] { body(b, e, t); });
  }
  body(0, std::min(n, chunk), 0u);
  for (auto& th : pool) th.join();
}

// The nearest bones of `p` (all bones sorted by distance), as (distance^2, bone).
void sort_bones(Vec3 p, std::span<const Bone> bones,
                std::vector<std::pair<float, std::uint32_t>>& order, std::vector<Vec3>& closest) {
  order.clear();
  closest.resize(bones.size());
  for (std::size_t b = 0; b < bones.size(); ++b) {
    const SegmentDistance d = segment_distance(p, bones[b].head, bones[b].tail);
    order.push_back({d.distance_squared, static_cast<std::uint32_t>(b)});
    closest[b] = d.closest;
  }
  std::sort(order.begin(), order.end());
}

// Heat toward the nearest bones in `order` (given as indices into it), ties sharing.
void set_heat(Heat& heat, std::span<const std::pair<float, std::uint32_t>> order,
              std::span<const std::uint32_t> candidates, std::span<const Bone> bones, double c,
              float min_distance) {
  heat.joints.clear();
  if (candidates.empty()) {
    heat.h = 0;
    return;
  }
  const float d = std::max(std::sqrt(order[candidates[0]].first), min_distance);
  for (std::uint32_t i : candidates) {
    const std::uint16_t j = bones[order[i].second].rig_joint;
    if (std::find(heat.joints.begin(), heat.joints.end(), j) == heat.joints.end())
      heat.joints.push_back(j);
  }
  heat.h = static_cast<float>(c * static_cast<double>(heat.joints.size()) / (double(d) * d));
}

}  // namespace

void heat_weights(const WeldedMesh& mesh, const Rig& rig, std::span<const Bone> bones,
                  const Options& options, RawWeights& out, std::vector<std::string>& notes) {
  const std::size_t n = mesh.positions.size();
  const std::size_t n_joints = rig.joints.size();
  const float diag = std::max(mesh.diagonal, 1e-30f);
  const float skip = 1e-4f * diag;          // rays start this far from their vertex
  const float min_distance = 1e-4f * diag;  // a vertex on a bone would get infinite heat
  auto progress = [&](std::string_view stage, float f) {
    if (options.progress) options.progress(stage, f);
  };

  // 1. Visibility and heat: nearest visible bone(s) of each vertex.
  progress("heat: visibility", 0);
  std::unique_ptr<RayScene> scene;
  if (options.heat_visibility) {
    scene = std::make_unique<RayScene>(mesh);
    if (!scene->ok()) notes.push_back("Embree could not be started: every bone counted as visible");
  }
  struct {
    const RayScene* scene;
    bool ok() const { return scene && scene->ok(); }
    bool clear(Vec3 a, Vec3 b, float skip) const { return scene->clear(a, b, skip); }
  } rays{scene.get()};
  std::vector<Heat> heat(n);
  std::vector<std::uint8_t> occluded(n, 0);
  // Vertex normals (area-weighted), for the cone test below.
  std::vector<Vec3> normals(n, Vec3{0, 0, 0});
  for (const auto& tri : mesh.triangles) {
    const Vec3 a = mesh.positions[tri[0]];
    const Vec3 f = cross(mesh.positions[tri[1]] - a, mesh.positions[tri[2]] - a);
    for (std::uint32_t c : tri) normals[c] += f;
  }
  for (Vec3& nv : normals) {
    const float len = length(nv);
    nv = len > 0 ? nv * (1 / len) : Vec3{0, 0, 0};
  }
  const float cone = static_cast<float>(options.heat_cone);
  parallel_for(n, options.threads, [&](std::size_t begin, std::size_t end, unsigned) {
    std::vector<std::pair<float, std::uint32_t>> order;
    std::vector<Vec3> closest;
    std::vector<std::uint32_t> picked;
    for (std::size_t v = begin; v < end; ++v) {
      const Vec3 p = mesh.positions[v];
      sort_bones(p, bones, order, closest);
      picked.clear();
      // Only the nearest bone(s) when asked (the authors' code); otherwise the nearest visible.
      // Bones much farther than the nearest one are not worth a ray: a vertex hidden from all
      // nearby bones takes its weights from its neighbours.
      float limit =
          options.heat_nearest_only
              ? std::sqrt(order[0].first) * (1 + kTieMargin) + 1e-7f * diag
              : std::sqrt(order[0].first) * static_cast<float>(options.heat_reach) + 1e-7f * diag;
      for (std::uint32_t i = 0; i < order.size(); ++i) {
        const float d = std::sqrt(order[i].first);
        if (d > limit) break;
        // The bone must lie within a cone around the vertex normal (either orientation, since
        // welded parts may disagree), so bones seen at a grazing angle do not count.
        if (cone > 0 && normals[v] != Vec3{0, 0, 0}) {
          const Vec3 to = p - closest[order[i].second];
          const float len = length(to);
          if (len > 0 && std::abs(dot(to, normals[v])) < cone * len) continue;
        }
        if (rays.ok() && !rays.clear(p, closest[order[i].second], skip)) continue;
        if (picked.empty()) limit = d * (1 + kTieMargin) + 1e-7f * diag;
        picked.push_back(i);
      }
      if (picked.empty()) {
        occluded[v] = 1;
        if (options.heat_hidden_to_nearest) {
          const float near = std::sqrt(order[0].first) * (1 + kTieMargin) + 1e-7f * diag;
          for (std::uint32_t i = 0; i < order.size() && std::sqrt(order[i].first) <= near; ++i)
            picked.push_back(i);
        }
      }
      set_heat(heat[v], order, picked, bones, options.heat_c, min_distance);
    }
  });

  // 2. Cotangent Laplacian over usable triangles; vertex areas (a third of each triangle).
  progress("heat: laplacian", 0);
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(mesh.triangles.size() * 9 + n);
  std::vector<double> area(n, 0.0);
  std::vector<std::uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  std::size_t needles = 0;
  double total_area = 0;
  for (const auto& tri : mesh.triangles) {
    Eigen::Vector3d q[3];
    for (int c = 0; c < 3; ++c) {
      const Vec3 p = mesh.positions[tri[c]];
      q[c] = {p.x, p.y, p.z};
    }
    const double twice_area = (q[1] - q[0]).cross(q[2] - q[0]).norm();
    double cot[3];
    bool usable = twice_area > 0;
    for (int c = 0; c < 3 && usable; ++c) {
      const Eigen::Vector3d a = q[(c + 1) % 3] - q[c], b = q[(c + 2) % 3] - q[c];
      cot[c] = a.dot(b) / twice_area;
      // A needle (an angle within ~1e-5 rad of 0 or pi) would make the system ill-conditioned.
      if (!std::isfinite(cot[c]) || std::abs(cot[c]) > 1e5) usable = false;
    }
    if (!usable) {
      ++needles;
      continue;
    }
    for (int c = 0; c < 3; ++c) {
      const std::uint32_t i = tri[(c + 1) % 3], j = tri[(c + 2) % 3];
      const double w = 0.5 * cot[c];
      triplets.emplace_back(i, j, -w);
      triplets.emplace_back(j, i, -w);
      triplets.emplace_back(i, i, w);
      triplets.emplace_back(j, j, w);
      area[tri[c]] += twice_area / 2.0;  // the one-ring area, as the authors' code has it
    }
    total_area += twice_area / 2;
    const std::uint32_t r0 = find_root(parent, tri[0]);
    const std::uint32_t r1 = find_root(parent, tri[1]);
    const std::uint32_t r2 = find_root(parent, tri[2]);
    parent[r1] = r0;
    parent[r2] = r0;
  }
  if (needles)
    notes.push_back(std::to_string(needles) +
                    " zero-area or needle triangles left out of the Laplacian");
  const double mean_area = total_area > 0 ? 3 * total_area / static_cast<double>(n) : 1.0;

  // 3. A connected piece in which no vertex sees a bone has no heat source: the system would be
  //    singular there. Such pieces (and lone vertices) take heat from their nearest bones.
  std::vector<std::uint32_t> root(n);
  std::vector<std::uint8_t> has_source(n, 0);
  for (std::size_t v = 0; v < n; ++v) {
    root[v] = find_root(parent, static_cast<std::uint32_t>(v));
    if (heat[v].h > 0) has_source[root[v]] = 1;
  }
  std::size_t fallback_vertices = 0, fallback_pieces = 0, lone = 0, diffused = 0;
  {
    std::vector<std::pair<float, std::uint32_t>> order;
    std::vector<Vec3> closest;
    std::vector<std::uint32_t> picked;
    std::vector<std::uint8_t> counted(n, 0);
    for (std::size_t v = 0; v < n; ++v) {
      if (area[v] <= 0) {
        area[v] = mean_area;  // a lone vertex: any positive area gives w = p
        ++lone;
      }
      if (has_source[root[v]]) {
        if (occluded[v]) ++diffused;
        continue;
      }
      if (!counted[root[v]]) {
        counted[root[v]] = 1;
        ++fallback_pieces;
      }
      ++fallback_vertices;
      sort_bones(mesh.positions[v], bones, order, closest);
      picked.clear();
      const float limit = std::sqrt(order[0].first) * (1 + kTieMargin) + 1e-7f * diag;
      for (std::uint32_t i = 0; i < order.size() && std::sqrt(order[i].first) <= limit; ++i)
        picked.push_back(i);
      set_heat(heat[v], order, picked, bones, options.heat_c, min_distance);
    }
  }
  if (diffused)
    notes.push_back(std::to_string(diffused) +
                    (options.heat_hidden_to_nearest
                         ? " vertices see no bone: heated by their nearest bone instead"
                         : " vertices see no bone: their weights diffuse from their neighbours"));
  if (fallback_vertices)
    notes.push_back(std::to_string(fallback_pieces) + " connected pieces (" +
                    std::to_string(fallback_vertices) +
                    " vertices) see no bone at all: heated by their nearest bones instead");
  if (lone) notes.push_back(std::to_string(lone) + " vertices lie on no usable triangle");

  for (std::size_t v = 0; v < n; ++v) {
    const double ah = area[v] * heat[v].h;
    triplets.emplace_back(static_cast<int>(v), static_cast<int>(v), ah);
  }
  Eigen::SparseMatrix<double> system(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
  system.setFromTriplets(triplets.begin(), triplets.end());
  triplets = {};

  // 4. One factorization, one solve per bone joint.
  progress("heat: factorize", 0);
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver;
  solver.compute(system);
  out.assign(n, {});
  if (solver.info() != Eigen::Success) {
    notes.push_back("the heat system could not be factorized: nearest-bone weights used");
    for (std::size_t v = 0; v < n; ++v)
      for (std::uint16_t j : heat[v].joints)
        out[v].push_back({j, 1.0f / static_cast<float>(heat[v].joints.size())});
    return;
  }

  std::vector<std::vector<std::pair<std::uint32_t, float>>> per_joint(n_joints);
  std::vector<std::uint8_t> sourced(n_joints, 0);
  for (const Heat& h : heat)
    for (std::uint16_t j : h.joints) sourced[j] = 1;
  std::atomic<std::size_t> next{0}, done{0};
  auto worker = [&](bool report) {
    Eigen::VectorXd rhs(static_cast<Eigen::Index>(n)), w;
    for (std::size_t j; (j = next.fetch_add(1)) < n_joints;) {
      if (sourced[j]) {
        rhs.setZero();
        for (std::size_t v = 0; v < n; ++v)
          for (std::uint16_t hj : heat[v].joints)
            if (hj == j)
              rhs[static_cast<Eigen::Index>(v)] =
                  area[v] * heat[v].h / static_cast<double>(heat[v].joints.size());
        w = solver.solve(rhs);
        auto& list = per_joint[j];
        for (std::size_t v = 0; v < n; ++v) {
          const double x = w[static_cast<Eigen::Index>(v)];
          if (x > kKeepWeight)
            list.push_back({static_cast<std::uint32_t>(v), float(std::min(x, 1.0))});
        }
      }
      const std::size_t finished = done.fetch_add(1) + 1;
      if (report) progress("heat: solve", float(finished) / float(n_joints));
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, options.threads); ++t) pool.emplace_back(worker, false);
  worker(true);
  for (auto& th : pool) th.join();

  for (std::size_t j = 0; j < n_joints; ++j)
    for (auto [v, x] : per_joint[j]) out[v].push_back({static_cast<std::uint16_t>(j), x});
  std::size_t unset = 0;
  for (std::size_t v = 0; v < n; ++v) {
    float sum = 0;
    for (auto& [j, x] : out[v]) sum += x;
    if (sum > 1e-3f) continue;
    // Numerically nothing arrived (should not happen): bind to the heat source bones.
    ++unset;
    out[v].clear();
    for (std::uint16_t j : heat[v].joints)
      out[v].push_back({j, 1.0f / static_cast<float>(heat[v].joints.size())});
    if (out[v].empty()) {
      std::vector<std::pair<float, std::uint32_t>> order;
      std::vector<Vec3> closest;
      sort_bones(mesh.positions[v], bones, order, closest);
      out[v].push_back({bones[order[0].second].rig_joint, 1.0f});
    }
  }
  if (unset)
    notes.push_back(std::to_string(unset) +
                    " vertices received no heat: bound to their nearest bone");
}

}  // namespace marrow::autoskin::detail
