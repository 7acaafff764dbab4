// SkinningMesh::build: validates a SkinnedMesh and lays it out for the kernels (setup; allocates).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "skin/skinning_data.h"

namespace marrow {

SkinningMesh::SkinningMesh() : data_(std::make_unique<Data>()) {}
SkinningMesh::SkinningMesh(SkinningMesh&&) noexcept = default;
SkinningMesh& SkinningMesh::operator=(SkinningMesh&&) noexcept = default;
SkinningMesh::~SkinningMesh() = default;

std::size_t SkinningMesh::vertex_count() const {
  return data_->vertex_count;
}
std::size_t SkinningMesh::skin_joint_count() const {
  return data_->skin_joint_count;
}
std::size_t SkinningMesh::max_influences() const {
  return data_->max_influences;
}
bool SkinningMesh::has_normals() const {
  return data_->has_normals;
}
bool SkinningMesh::has_tangents() const {
  return data_->has_tangents;
}

namespace {

std::string mesh_label(const SkinnedMesh& mesh) {
  return "skinned mesh '" + (mesh.name.empty() ? std::string("(unnamed)") : mesh.name) + "'";
}

// The mesh's arrays agree with each other and with the skin's joint count.
Status check_arrays(const SkinnedMesh& mesh, std::size_t skin_joint_count,
                    const std::string& where) {
  const std::size_t n = mesh.vertex_count();
  if (n == 0) return make_error(where, "has no vertices");
  if (n > 0xffffffffu) return make_error(where, "has more than 2^32 - 1 vertices");
  if (skin_joint_count == 0) return make_error(where, "the skin has no joints");
  if (skin_joint_count > 65536)
    return make_error(where, "the skin has " + std::to_string(skin_joint_count) +
                                 " joints, more than 16-bit joint indices can address");
  if (!mesh.normals.empty() && mesh.normals.size() != n)
    return make_error(where, std::to_string(mesh.normals.size()) + " normals for " +
                                 std::to_string(n) + " vertices");
  if (!mesh.tangents.empty() && mesh.tangents.size() != n)
    return make_error(where, std::to_string(mesh.tangents.size()) + " tangents for " +
                                 std::to_string(n) + " vertices");
  if (mesh.influence_offsets.empty())
    return make_error(where, "has no skin influences (a rigid mesh cannot be skinned)");
  if (mesh.influence_offsets.size() != n + 1)
    return make_error(where, std::to_string(mesh.influence_offsets.size()) +
                                 " influence offsets for " + std::to_string(n) +
                                 " vertices (expected vertex count + 1)");
  if (mesh.influence_joints.size() != mesh.influence_weights.size())
    return make_error(where, std::to_string(mesh.influence_joints.size()) +
                                 " influence joints but " +
                                 std::to_string(mesh.influence_weights.size()) + " weights");
  if (mesh.influence_offsets[0] != 0 || mesh.influence_offsets[n] != mesh.influence_joints.size())
    return make_error(where, "influence offsets do not start at 0 and end at the influence count");
  return {};
}

// Per vertex: validated, sorted (strongest first), reduced and renormalized influences, all
// vertices' one after the other (vertex v's from first[v] to first[v + 1]).
struct Influences {
  std::vector<std::uint32_t> counts;
  std::vector<std::pair<std::uint16_t, float>> all;
  std::vector<std::size_t> first;
};

Result<Influences> influences_of(const SkinnedMesh& mesh, std::size_t skin_joint_count,
                                 std::size_t max_influences, UnweightedVertices unweighted,
                                 const std::string& where) {
  const std::size_t n = mesh.vertex_count();
  Influences in;
  in.counts.resize(n);
  in.all.reserve(mesh.influence_joints.size());
  in.first.assign(n + 1, 0);
  std::vector<std::pair<std::uint16_t, float>> list;
  for (std::size_t v = 0; v < n; ++v) {
    // Built only on failure: a string per vertex would dominate setup on big meshes.
    auto vwhere = [&] { return where + ": vertex " + std::to_string(v); };
    const std::uint32_t b = mesh.influence_offsets[v], e = mesh.influence_offsets[v + 1];
    if (e < b || e > mesh.influence_joints.size())
      return make_error(vwhere(), "influence offsets decrease or run past the influence arrays");
    if (!is_finite(mesh.positions[v])) return make_error(vwhere(), "position is not finite");
    list.clear();
    for (std::uint32_t i = b; i < e; ++i) {
      const std::uint16_t j = mesh.influence_joints[i];
      const float w = mesh.influence_weights[i];
      if (!std::isfinite(w)) return make_error(vwhere(), "has a non-finite weight");
      if (w < 0) return make_error(vwhere(), "has a negative weight " + std::to_string(w));
      if (j >= skin_joint_count)
        return make_error(vwhere(), "uses skin joint " + std::to_string(j) + " but the skin has " +
                                        std::to_string(skin_joint_count));
      if (w > 0) list.emplace_back(j, w);
    }
    if (list.empty()) {
      if (unweighted == UnweightedVertices::kError)
        return make_error(vwhere(), "has no influence with a weight above zero");
      in.counts[v] = 0;  // a group of its own that keeps the stored vertex
      in.first[v + 1] = in.all.size();
      continue;
    }
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& c) { return a.second > c.second; });
    if (max_influences > 0 && list.size() > max_influences) list.resize(max_influences);
    double sum = 0;
    for (const auto& p : list) sum += p.second;
    if (!(sum > 0) || !std::isfinite(sum))
      return make_error(vwhere(), "weights do not sum to a finite positive value");
    for (auto& p : list) in.all.emplace_back(p.first, static_cast<float>(p.second / sum));
    in.counts[v] = static_cast<std::uint32_t>(list.size());
    in.first[v + 1] = in.all.size();
  }
  return in;
}

}  // namespace

Result<SkinningMesh> SkinningMesh::build(const SkinnedMesh& mesh, std::size_t skin_joint_count,
                                         std::size_t max_influences,
                                         UnweightedVertices unweighted) {
  const std::string where = mesh_label(mesh);
  if (Status s = check_arrays(mesh, skin_joint_count, where); !s) return s.error();
  Result<Influences> influences =
      influences_of(mesh, skin_joint_count, max_influences, unweighted, where);
  if (!influences) return influences.error();
  const Influences& in = *influences;
  const std::size_t n = mesh.vertex_count();

  SkinningMesh result;
  Data& d = *result.data_;
  d.name = mesh.name;
  d.vertex_count = n;
  d.skin_joint_count = skin_joint_count;
  d.has_normals = !mesh.normals.empty();
  d.has_tangents = !mesh.tangents.empty();
  d.max_influences = *std::max_element(in.counts.begin(), in.counts.end());

  // Slots: a stable sort of the vertices by influence count.
  std::vector<std::uint32_t> order(n);
  for (std::size_t v = 0; v < n; ++v) order[v] = static_cast<std::uint32_t>(v);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t c) { return in.counts[a] < in.counts[c]; });

  d.original_index = order;
  d.positions.reserve(n + 1);
  for (std::uint32_t v : order) d.positions.push_back(mesh.positions[v]);
  d.positions.push_back({});  // padding for 4-float loads
  if (d.has_normals) {
    d.normals.reserve(n + 1);
    for (std::uint32_t v : order) d.normals.push_back(mesh.normals[v]);
    d.normals.push_back({});
  }
  if (d.has_tangents) {
    d.tangents.reserve(n);
    for (std::uint32_t v : order) d.tangents.push_back(mesh.tangents[v]);
  }
  d.joints.reserve(in.all.size());
  d.weights.reserve(in.all.size() + 1);
  d.joint_bounds.assign(skin_joint_count, Aabb{});
  for (std::size_t s = 0; s < n; ++s) {
    const std::uint32_t v = order[s];
    const std::uint32_t k = in.counts[v];
    if (d.groups.empty() || d.groups.back().influences != k) {
      if (!d.groups.empty()) d.groups.back().end = s;
      d.groups.push_back({k, s, s, d.joints.size()});
    }
    for (std::size_t i = in.first[v]; i < in.first[v + 1]; ++i) {
      d.joints.push_back(in.all[i].first);
      d.weights.push_back(in.all[i].second);
      d.joint_bounds[in.all[i].first].extend(mesh.positions[v]);
    }
    if (k == 0) d.unweighted_bounds.extend(mesh.positions[v]);
  }
  d.groups.back().end = n;
  d.weights.push_back(0);
  return result;
}

Aabb compute_bounds(std::span<const Vec3> positions) {
  Aabb box;
  for (const Vec3& p : positions) box.extend(p);
  return box;
}

Aabb conservative_skinned_bounds(const SkinningMesh& mesh, std::span<const Mat4> palette) {
  const skin_detail::SkinningMeshData& d = skin_detail::data_of(mesh);
  Aabb box;
  if (palette.size() < d.skin_joint_count) return box;
  box.extend(d.unweighted_bounds);  // vertices that never move
  for (std::size_t j = 0; j < d.skin_joint_count; ++j) {
    const Aabb& b = d.joint_bounds[j];
    if (b.empty()) continue;
    // Transform the box by its centre and half extent: |M| * half gives the new half extent.
    const Mat4& m = palette[j];
    const Vec3 c = (b.min + b.max) * 0.5f, h = (b.max - b.min) * 0.5f;
    const Vec3 tc = transform_point(m, c);
    const Vec3 th{std::fabs(m.m[0]) * h.x + std::fabs(m.m[4]) * h.y + std::fabs(m.m[8]) * h.z,
                  std::fabs(m.m[1]) * h.x + std::fabs(m.m[5]) * h.y + std::fabs(m.m[9]) * h.z,
                  std::fabs(m.m[2]) * h.x + std::fabs(m.m[6]) * h.y + std::fabs(m.m[10]) * h.z};
    box.extend(tc - th);
    box.extend(tc + th);
  }
  return box;
}

}  // namespace marrow
