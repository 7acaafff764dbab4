#include "marrow/skin/vertex_order.h"

#include <algorithm>
#include <numeric>

namespace marrow {
namespace {

template <class T>
void permute(std::vector<T>& values, const std::vector<std::uint32_t>& old_of_new) {
  if (values.size() != old_of_new.size()) return;  // an absent (or malformed) attribute
  std::vector<T> reordered;
  reordered.reserve(values.size());
  for (std::uint32_t old : old_of_new) reordered.push_back(values[old]);
  values = std::move(reordered);
}

}  // namespace

std::vector<std::uint32_t> order_vertices_for_skinning(SkinnedMesh& mesh,
                                                       std::size_t max_influences) {
  const std::size_t n = mesh.vertex_count();
  std::vector<std::uint32_t> old_of_new(n);
  std::iota(old_of_new.begin(), old_of_new.end(), 0u);
  const bool skinned = mesh.influence_offsets.size() == n + 1 &&
                       mesh.influence_joints.size() == mesh.influence_weights.size() &&
                       mesh.influence_offsets[n] == mesh.influence_weights.size();
  if (!skinned) return old_of_new;

  // Influence counts as SkinningMesh::build makes them.
  std::vector<std::uint32_t> count(n, 0);
  for (std::size_t v = 0; v < n; ++v) {
    const std::uint32_t b = mesh.influence_offsets[v], e = mesh.influence_offsets[v + 1];
    if (e < b || e > mesh.influence_weights.size()) return old_of_new;  // build() refuses it
    std::size_t c = 0;
    for (std::uint32_t i = b; i < e; ++i) c += mesh.influence_weights[i] > 0 ? 1 : 0;
    if (max_influences > 0) c = std::min(c, max_influences);
    count[v] = static_cast<std::uint32_t>(c);
  }
  std::stable_sort(old_of_new.begin(), old_of_new.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return count[a] < count[b]; });
  bool identity = true;
  for (std::size_t v = 0; v < n && identity; ++v) identity = old_of_new[v] == v;
  if (identity) return old_of_new;

  std::vector<std::uint32_t> new_of_old(n);
  for (std::size_t v = 0; v < n; ++v) new_of_old[old_of_new[v]] = static_cast<std::uint32_t>(v);

  permute(mesh.positions, old_of_new);
  permute(mesh.normals, old_of_new);
  permute(mesh.tangents, old_of_new);
  permute(mesh.uvs, old_of_new);
  permute(mesh.colors, old_of_new);
  std::vector<std::uint32_t> offsets{0};
  std::vector<std::uint16_t> joints;
  std::vector<float> weights;
  offsets.reserve(n + 1);
  joints.reserve(mesh.influence_joints.size());
  weights.reserve(mesh.influence_weights.size());
  for (std::uint32_t old : old_of_new) {
    const std::uint32_t b = mesh.influence_offsets[old], e = mesh.influence_offsets[old + 1];
    joints.insert(joints.end(), mesh.influence_joints.begin() + b,
                  mesh.influence_joints.begin() + e);
    weights.insert(weights.end(), mesh.influence_weights.begin() + b,
                   mesh.influence_weights.begin() + e);
    offsets.push_back(static_cast<std::uint32_t>(joints.size()));
  }
  mesh.influence_offsets = std::move(offsets);
  mesh.influence_joints = std::move(joints);
  mesh.influence_weights = std::move(weights);
  for (std::uint32_t& i : mesh.indices) {
    if (i < n) i = new_of_old[i];
  }
  // Morph targets list their vertices in increasing order: renumbered, then sorted again with
  // their deltas.
  for (MorphTarget& t : mesh.morph_targets) {
    const std::size_t m = t.vertices.size();
    std::vector<std::size_t> by_new(m);
    std::iota(by_new.begin(), by_new.end(), std::size_t{0});
    const auto renumbered = [&](std::size_t k) {
      return t.vertices[k] < n ? new_of_old[t.vertices[k]] : t.vertices[k];
    };
    std::sort(by_new.begin(), by_new.end(),
              [&](std::size_t a, std::size_t b) { return renumbered(a) < renumbered(b); });
    std::vector<std::uint32_t> vertices;
    vertices.reserve(m);
    for (std::size_t k : by_new) vertices.push_back(renumbered(k));
    const auto reorder = [&](std::vector<Vec3>& deltas) {
      if (deltas.size() != m) return;
      std::vector<Vec3> r;
      r.reserve(m);
      for (std::size_t k : by_new) r.push_back(deltas[k]);
      deltas = std::move(r);
    };
    reorder(t.position_deltas);
    reorder(t.normal_deltas);
    reorder(t.tangent_deltas);
    t.vertices = std::move(vertices);
  }
  return old_of_new;
}

}  // namespace marrow
