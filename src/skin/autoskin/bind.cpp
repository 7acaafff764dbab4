// Binding: weld the parts, run a method on the welded vertices, limit and normalize the
// influences, and hand every input vertex the row of its welded vertex.
#include <algorithm>
#include <cmath>

#include "internal.h"

namespace marrow::autoskin {

void limit_influences(std::vector<std::pair<std::uint16_t, float>>& row, std::size_t max_influences,
                      float min_weight) {
  // Merge repeated joints and drop non-positive or non-finite weights.
  std::sort(row.begin(), row.end());
  std::size_t k = 0;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (!(row[i].second > 0) || !std::isfinite(row[i].second)) continue;
    if (k > 0 && row[k - 1].first == row[i].first)
      row[k - 1].second += row[i].second;
    else
      row[k++] = row[i];
  }
  row.resize(k);
  if (row.empty()) return;
  // Strongest first; ties by joint index so results do not depend on input order.
  std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (max_influences > 0 && row.size() > max_influences) row.resize(max_influences);
  float total = 0;
  for (const auto& [j, w] : row) total += w;
  // Prune small weights (relative to what is kept), but never the strongest.
  std::size_t keep = 1;
  while (keep < row.size() && row[keep].second >= min_weight * total) ++keep;
  row.resize(keep);
  total = 0;
  for (const auto& [j, w] : row) total += w;
  for (auto& [j, w] : row) w /= total;
}

namespace {

// Heat diffusion needs triangles small next to the bones: on a coarse mesh (a cylinder made of
// three rings) the discrete solution leaks weight across a whole limb. Such meshes are split
// (each triangle in four, repeatedly) for the solve, and the weights read back at the original
// vertices, which stay the first ones.
void heat_on_fine_enough_mesh(const detail::WeldedMesh& mesh, const Rig& rig,
                              std::span<const Bone> bones, const Options& options,
                              detail::RawWeights& raw, std::vector<std::string>& notes) {
  auto median = [](std::vector<float> v) {
    if (v.empty()) return 0.0f;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  std::vector<float> bone_lengths, longest_edges;
  for (const Bone& b : bones)
    if (length(b.tail - b.head) > 0) bone_lengths.push_back(length(b.tail - b.head));
  for (const auto& t : mesh.triangles) {
    float e = 0;
    for (int c = 0; c < 3; ++c)
      e = std::max(e, length(mesh.positions[t[c]] - mesh.positions[t[(c + 1) % 3]]));
    longest_edges.push_back(e);
  }
  const float bone = median(bone_lengths);
  float edge = median(longest_edges);
  int levels = 0;
  std::size_t triangles = mesh.triangles.size();
  while (bone > 0 && edge > 0.25f * bone && levels < 4 && triangles * 4 <= 400000) {
    ++levels;
    edge *= 0.5f;
    triangles *= 4;
  }
  if (levels == 0) {
    detail::heat_weights(mesh, rig, bones, options, raw, notes);
    return;
  }
  detail::WeldedMesh fine = detail::subdivide(mesh);
  for (int l = 1; l < levels; ++l) fine = detail::subdivide(fine);
  notes.push_back("the mesh is coarse next to its bones: the heat is solved on it split " +
                  std::to_string(levels) + " times (" + std::to_string(fine.positions.size()) +
                  " vertices)");
  detail::heat_weights(fine, rig, bones, options, raw, notes);
  raw.resize(mesh.positions.size());
}

}  // namespace

Result<Binding> bind_mesh(std::span<const MeshPart> parts, const Rig& rig, const Options& options) {
  if (!rig.skeleton || rig.skeleton->empty()) return make_error("autoskin", "no skeleton");
  if (rig.bind_model.size() != rig.skeleton->size())
    return make_error("autoskin", "the rig has " + std::to_string(rig.bind_model.size()) +
                                      " bind matrices for " + std::to_string(rig.skeleton->size()) +
                                      " joints");
  if (rig.joints.empty()) return make_error("autoskin", "the rig has no bone joints");
  for (const Mat4& m : rig.bind_model)
    for (float x : m.m)
      if (!std::isfinite(x)) return make_error("autoskin", "a bind matrix is not finite");
  if (options.method == Method::kProximity) {
    for (const auto& [joint, r] : options.range_overrides)
      if (!(r.lower <= r.upper))
        return make_error(
            "autoskin", "proximity range of joint " + std::to_string(joint) + " has lower > upper");
    if (!(options.range.lower <= options.range.upper))
      return make_error("autoskin", "proximity range has lower > upper");
  }

  Result<detail::WeldedMesh> welded = detail::weld(parts, options.weld_tolerance);
  if (!welded) return welded.error();
  const detail::WeldedMesh& mesh = *welded;
  std::vector<Bone> bones = build_bones(rig);
  detail::fit_leaf_bones(bones, mesh);

  Binding binding;
  if (mesh.duplicate_vertices)
    binding.notes.push_back(std::to_string(mesh.duplicate_vertices) +
                            " vertices share a place with another: welded, same weights");
  if (mesh.collapsed_triangles)
    binding.notes.push_back(std::to_string(mesh.collapsed_triangles) +
                            " triangles collapsed by welding (repeated corners): ignored");

  detail::RawWeights raw;
  if (options.method == Method::kProximity)
    detail::proximity_weights(mesh, rig, bones, options, raw);
  else
    heat_on_fine_enough_mesh(mesh, rig, bones, options, raw, binding.notes);

  for (auto& row : raw) limit_influences(row, options.max_influences, options.min_weight);

  binding.parts.resize(parts.size());
  for (std::size_t p = 0; p < parts.size(); ++p) {
    PartWeights& out = binding.parts[p];
    const std::uint32_t first = mesh.part_offsets[p], last = mesh.part_offsets[p + 1];
    out.offsets.reserve(last - first + 1);
    out.offsets.push_back(0);
    for (std::uint32_t v = first; v < last; ++v) {
      for (const auto& [j, w] : raw[mesh.welded_of_input[v]]) {
        out.joints.push_back(j);
        out.weights.push_back(w);
      }
      out.offsets.push_back(static_cast<std::uint32_t>(out.joints.size()));
    }
  }

  binding.skin.name = "autoskin";
  binding.skin.joints = rig.joints;
  for (JointIndex j : rig.joints) {
    Mat4 inverse = Mat4::identity();
    if (!invert_affine(rig.bind_model[j], inverse))
      return make_error("autoskin",
                        "bind matrix of joint '" + rig.skeleton->name(j) + "' is singular");
    binding.skin.inverse_bind_matrices.push_back(inverse);
  }
  return binding;
}

void apply(const PartWeights& weights, int skin_index, SkinnedMesh& mesh) {
  mesh.skin = skin_index;
  mesh.influence_offsets = weights.offsets;
  mesh.influence_joints = weights.joints;
  mesh.influence_weights = weights.weights;
}

}  // namespace marrow::autoskin
