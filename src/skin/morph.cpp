// Morph targets: validation, the weight layout, MorphMesh::build (setup; allocates), the job and
// the scalar kernels, and skinning of morphed vertices.
#include "marrow/skin/morph.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/job_problem.h"
#include "skin/morph_data.h"
#include "skin/skinning_kernels.h"
#include "skin/skinning_simd.h"

namespace marrow {

MorphTarget make_sparse_target(std::string name, std::span<const Vec3> position_deltas,
                               std::span<const Vec3> normal_deltas,
                               std::span<const Vec3> tangent_deltas) {
  MorphTarget t;
  t.name = std::move(name);
  const Vec3 zero{0, 0, 0};
  const bool normals = !normal_deltas.empty(), tangents = !tangent_deltas.empty();
  for (std::size_t v = 0; v < position_deltas.size(); ++v) {
    const Vec3 n = normals && v < normal_deltas.size() ? normal_deltas[v] : zero;
    const Vec3 g = tangents && v < tangent_deltas.size() ? tangent_deltas[v] : zero;
    if (position_deltas[v] == zero && n == zero && g == zero) continue;
    t.vertices.push_back(static_cast<std::uint32_t>(v));
    t.position_deltas.push_back(position_deltas[v]);
    if (normals) t.normal_deltas.push_back(n);
    if (tangents) t.tangent_deltas.push_back(g);
  }
  return t;
}

Status validate_morph_targets(const SkinnedMesh& mesh) {
  const std::string where = "mesh '" + mesh.name + "'";
  const std::size_t n = mesh.vertex_count();
  if (!mesh.default_morph_weights.empty() &&
      mesh.default_morph_weights.size() != mesh.morph_targets.size())
    return make_error(where, std::to_string(mesh.default_morph_weights.size()) +
                                 " default morph weights for " +
                                 std::to_string(mesh.morph_targets.size()) + " targets");
  for (std::size_t i = 0; i < mesh.default_morph_weights.size(); ++i) {
    if (!std::isfinite(mesh.default_morph_weights[i]))
      return make_error(where, "default weight of target " + std::to_string(i) + " is not finite");
  }
  for (std::size_t t = 0; t < mesh.morph_targets.size(); ++t) {
    const MorphTarget& target = mesh.morph_targets[t];
    const std::string tw = where + " target " + std::to_string(t) +
                           (target.name.empty() ? "" : " '" + target.name + "'");
    const std::size_t m = target.vertices.size();
    if (target.position_deltas.size() != m)
      return make_error(tw, std::to_string(target.position_deltas.size()) +
                                " position deltas for " + std::to_string(m) + " listed vertices");
    if (!target.normal_deltas.empty() && target.normal_deltas.size() != m)
      return make_error(tw, std::to_string(target.normal_deltas.size()) + " normal deltas for " +
                                std::to_string(m) + " listed vertices");
    if (!target.tangent_deltas.empty() && target.tangent_deltas.size() != m)
      return make_error(tw, std::to_string(target.tangent_deltas.size()) + " tangent deltas for " +
                                std::to_string(m) + " listed vertices");
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint32_t v = target.vertices[i];
      if (v >= n)
        return make_error(tw, "vertex " + std::to_string(v) + " is out of range (the mesh has " +
                                  std::to_string(n) + ")");
      if (i > 0 && v <= target.vertices[i - 1])
        return make_error(tw,
                          "listed vertices not strictly increasing at entry " + std::to_string(i));
      if (!is_finite(target.position_deltas[i]) ||
          (!target.normal_deltas.empty() && !is_finite(target.normal_deltas[i])) ||
          (!target.tangent_deltas.empty() && !is_finite(target.tangent_deltas[i])))
        return make_error(tw, "delta of vertex " + std::to_string(v) + " is not finite");
    }
  }
  return {};
}

// ------------------------------------------------------------------------------- MorphLayout

MorphLayout MorphLayout::build(std::span<const SkinnedMesh> meshes) {
  MorphLayout layout;
  std::vector<const SkinnedMesh*> morphed;
  for (const SkinnedMesh& m : meshes) {
    if (!m.morph_targets.empty()) morphed.push_back(&m);
  }
  std::stable_sort(morphed.begin(), morphed.end(),
                   [](const SkinnedMesh* a, const SkinnedMesh* b) { return a->node < b->node; });
  for (std::size_t i = 0; i < morphed.size();) {
    const JointIndex node = morphed[i]->node;
    std::size_t end = i;
    std::uint32_t count = 0;
    while (end < morphed.size() && morphed[end]->node == node) {
      count = std::max(count, static_cast<std::uint32_t>(morphed[end]->morph_targets.size()));
      ++end;
    }
    const auto first = static_cast<std::uint32_t>(layout.default_weights_.size());
    layout.slots_.push_back({node, first, count});
    layout.default_weights_.resize(first + count, 0.0f);
    layout.names_.resize(first + count);
    std::vector<bool> named(count, false), weighted(count, false);
    for (std::size_t k = i; k < end; ++k) {
      const SkinnedMesh& m = *morphed[k];
      for (std::size_t t = 0; t < m.morph_targets.size(); ++t) {
        if (!named[t] && !m.morph_targets[t].name.empty()) {
          layout.names_[first + t] = m.morph_targets[t].name;
          named[t] = true;
        }
        if (!weighted[t] && t < m.default_morph_weights.size()) {
          layout.default_weights_[first + t] = m.default_morph_weights[t];
          weighted[t] = true;
        }
      }
    }
    i = end;
  }
  return layout;
}

Result<std::vector<std::uint32_t>> MorphLayout::find_slots(std::string_view name) const {
  std::vector<std::uint32_t> found;
  if (name.size() > 1 && name[0] == '#') {
    std::uint32_t slot = 0;
    const char* end = name.data() + name.size();
    const auto [ptr, ec] = std::from_chars(name.data() + 1, end, slot);
    if (ec == std::errc() && ptr == end && slot < weight_count()) return std::vector{slot};
  }
  for (std::uint32_t s = 0; s < names_.size(); ++s) {
    if (!name.empty() && names_[s] == name) found.push_back(s);
  }
  if (!found.empty()) return found;
  std::string known;
  for (const std::string& n : names_) {
    if (!n.empty() && known.find("'" + n + "'") == std::string::npos)
      known += (known.empty() ? "'" : ", '") + n + "'";
  }
  const std::string slots = weight_count() == 0 ? "" : "#0..#" + std::to_string(weight_count() - 1);
  return Error{"no morph target '" + std::string(name) + "' (" +
               (weight_count() == 0 ? std::string("the file has no morph targets")
                                    : "targets: " + (known.empty() ? "all unnamed" : known) +
                                          "; by slot: " + slots) +
               ")"};
}

const MorphSlots* MorphLayout::find(JointIndex node) const {
  for (const MorphSlots& s : slots_) {
    if (s.node == node) return &s;
  }
  return nullptr;
}

std::span<const float> MorphLayout::weights_of(const SkinnedMesh& mesh,
                                               std::span<const float> weights) const {
  const MorphSlots* s = mesh.morph_targets.empty() ? nullptr : find(mesh.node);
  if (!s || weights.size() < std::size_t{s->first} + mesh.morph_targets.size()) return {};
  return weights.subspan(s->first, mesh.morph_targets.size());
}

// --------------------------------------------------------------------------------- MorphMesh

MorphMesh::MorphMesh() : data_(std::make_unique<Data>()) {}
MorphMesh::MorphMesh(MorphMesh&&) noexcept = default;
MorphMesh& MorphMesh::operator=(MorphMesh&&) noexcept = default;
MorphMesh::~MorphMesh() = default;

std::size_t MorphMesh::vertex_count() const {
  return data_->vertex_count;
}
std::size_t MorphMesh::target_count() const {
  return data_->target_count;
}
std::size_t MorphMesh::moved_vertex_count() const {
  return data_->moved.size();
}
bool MorphMesh::has_normals() const {
  return data_->has_normals;
}
bool MorphMesh::has_tangents() const {
  return data_->has_tangents;
}

Result<MorphMesh> MorphMesh::build(const SkinnedMesh& mesh, const SkinningMesh* skinning) {
  if (Status st = validate_morph_targets(mesh); !st) return st.error();
  const std::string where = "mesh '" + mesh.name + "'";
  const std::size_t n = mesh.vertex_count();
  if (!mesh.normals.empty() && mesh.normals.size() != n)
    return make_error(where, "normal count differs from the vertex count");
  if (!mesh.tangents.empty() && mesh.tangents.size() != n)
    return make_error(where, "tangent count differs from the vertex count");
  // Output order: the skinning slots, or the mesh's own.
  std::vector<std::uint32_t> slot_of(n);
  for (std::size_t v = 0; v < n; ++v) slot_of[v] = static_cast<std::uint32_t>(v);
  if (skinning) {
    const skin_detail::SkinningMeshData& sd = skin_detail::data_of(*skinning);
    if (sd.vertex_count != n)
      return make_error(where, "the skinning layout has " + std::to_string(sd.vertex_count) +
                                   " vertices, the mesh " + std::to_string(n));
    for (std::size_t s = 0; s < n; ++s)
      slot_of[sd.original_index[s]] = static_cast<std::uint32_t>(s);
  }

  MorphMesh result;
  Data& d = *result.data_;
  d.vertex_count = n;
  d.target_count = mesh.morph_targets.size();
  d.has_normals = !mesh.normals.empty();
  d.has_tangents = !mesh.tangents.empty();
  d.order = skinning ? static_cast<const void*>(&skin_detail::data_of(*skinning)) : nullptr;
  for (const MorphTarget& t : mesh.morph_targets) {
    d.morph_normals = d.morph_normals || (d.has_normals && !t.normal_deltas.empty());
    d.morph_tangents = d.morph_tangents || (d.has_tangents && !t.tangent_deltas.empty());
  }
  d.base_positions.resize(n + 1);
  for (std::size_t v = 0; v < n; ++v) d.base_positions[slot_of[v]] = mesh.positions[v];
  if (d.has_normals) {
    d.base_normals.resize(n + 1);
    for (std::size_t v = 0; v < n; ++v) d.base_normals[slot_of[v]] = mesh.normals[v];
  }
  if (d.has_tangents) {
    d.base_tangents.resize(n);
    for (std::size_t v = 0; v < n; ++v) d.base_tangents[slot_of[v]] = mesh.tangents[v];
  }

  // Per vertex, how many targets move it; then the moved vertices sorted by that count (ties
  // in output order, so a group streams through memory).
  std::vector<std::uint32_t> count(n, 0);
  for (const MorphTarget& t : mesh.morph_targets) {
    for (std::uint32_t v : t.vertices) ++count[v];
  }
  std::vector<std::uint32_t> moved;  // mesh vertex indices
  for (std::size_t v = 0; v < n; ++v) {
    if (count[v] > 0) moved.push_back(static_cast<std::uint32_t>(v));
  }
  std::sort(moved.begin(), moved.end(), [&](std::uint32_t a, std::uint32_t b) {
    return count[a] != count[b] ? count[a] < count[b] : slot_of[a] < slot_of[b];
  });
  // Where each moved vertex's entries start; entries filled target by target.
  std::vector<std::size_t> next(n, 0);
  std::size_t entries = 0;
  for (std::uint32_t v : moved) {
    next[v] = entries;
    entries += count[v];
  }
  d.entry_target.resize(entries);
  d.position_deltas.assign(entries + 1, Vec3{});
  if (d.morph_normals) d.normal_deltas.assign(entries + 1, Vec3{});
  if (d.morph_tangents) d.tangent_deltas.assign(entries + 1, Vec3{});
  for (std::size_t t = 0; t < mesh.morph_targets.size(); ++t) {
    const MorphTarget& target = mesh.morph_targets[t];
    for (std::size_t i = 0; i < target.vertices.size(); ++i) {
      const std::size_t e = next[target.vertices[i]]++;
      d.entry_target[e] = static_cast<std::uint32_t>(t);
      d.position_deltas[e] = target.position_deltas[i];
      if (d.morph_normals && !target.normal_deltas.empty())
        d.normal_deltas[e] = target.normal_deltas[i];
      if (d.morph_tangents && !target.tangent_deltas.empty())
        d.tangent_deltas[e] = target.tangent_deltas[i];
    }
  }
  d.moved.reserve(moved.size());
  std::size_t entry = 0;
  for (std::size_t m = 0; m < moved.size(); ++m) {
    const std::uint32_t k = count[moved[m]];
    if (d.groups.empty() || d.groups.back().targets != k) {
      if (!d.groups.empty()) d.groups.back().end = m;
      d.groups.push_back({k, m, m, entry});
    }
    d.moved.push_back(slot_of[moved[m]]);
    entry += k;
  }
  if (!d.groups.empty()) d.groups.back().end = moved.size();
  return result;
}

MorphedVertices MorphedVertices::create(const MorphMesh& mesh) {
  const skin_detail::MorphMeshData& d = skin_detail::data_of(mesh);
  MorphedVertices out;
  out.positions = d.base_positions;
  out.normals = d.base_normals;
  out.tangents = d.base_tangents;
  out.order = d.order;
  return out;
}

// ----------------------------------------------------------------------------------- MorphJob

namespace detail {

void morph_group_scalar(const skin_detail::MorphMeshData& d,
                        const skin_detail::MorphMeshData::Group& g, const float* weights,
                        MorphedVertices& out) {
  std::size_t e = g.first_entry;
  for (std::size_t m = g.begin; m < g.end; ++m) {
    const std::uint32_t v = d.moved[m];
    Vec3 p = d.base_positions[v];
    Vec3 nrm = d.morph_normals ? d.base_normals[v] : Vec3{};
    Vec3 tan{};
    if (d.morph_tangents)
      tan = {d.base_tangents[v][0], d.base_tangents[v][1], d.base_tangents[v][2]};
    for (std::uint32_t i = 0; i < g.targets; ++i, ++e) {
      const float w = weights[d.entry_target[e]];
      p += d.position_deltas[e] * w;
      if (d.morph_normals) nrm += d.normal_deltas[e] * w;
      if (d.morph_tangents) tan += d.tangent_deltas[e] * w;
    }
    out.positions[v] = p;
    if (d.morph_normals) out.normals[v] = nrm;
    if (d.morph_tangents) out.tangents[v] = {tan.x, tan.y, tan.z, d.base_tangents[v][3]};
  }
}

void morph_group_simd(const skin_detail::MorphMeshData& d,
                      const skin_detail::MorphMeshData::Group& g, const float* weights,
                      MorphedVertices& out) {
  const std::size_t e = g.first_entry;
  const skin_detail::MorphGroupArgs args{g.end - g.begin,
                                         g.targets,
                                         d.moved.data() + g.begin,
                                         d.entry_target.data() + e,
                                         &d.position_deltas[e].x,
                                         d.morph_normals ? &d.normal_deltas[e].x : nullptr,
                                         d.morph_tangents ? &d.tangent_deltas[e].x : nullptr,
                                         weights,
                                         &d.base_positions[0].x,
                                         d.morph_normals ? &d.base_normals[0].x : nullptr,
                                         d.morph_tangents ? d.base_tangents[0].data() : nullptr,
                                         &out.positions[0].x,
                                         d.morph_normals ? &out.normals[0].x : nullptr,
                                         d.morph_tangents ? out.tangents[0].data() : nullptr};
  skin_detail::skin_kernels().morph(args);
}

}  // namespace detail

namespace {

detail::JobProblem find_problem(const MorphJob& job) {
  if (job.mesh == nullptr) return {"mesh", "is null"};
  if (job.output == nullptr) return {"output", "is null"};
  const skin_detail::MorphMeshData& d = skin_detail::data_of(*job.mesh);
  if (job.weights.size() < d.target_count) return {"weights", "is shorter than target_count()"};
  for (std::size_t t = 0; t < d.target_count; ++t) {
    if (!std::isfinite(job.weights[t])) return {"weights[]", "is not finite", t};
  }
  const MorphedVertices& out = *job.output;
  if (out.order != d.order || out.positions.size() < d.vertex_count + 1 ||
      (d.morph_normals && out.normals.size() < d.vertex_count + 1) ||
      (d.morph_tangents && out.tangents.size() < d.vertex_count)) {
    return {"output", "was not made by MorphedVertices::create for this mesh"};
  }
  return {};
}

}  // namespace

Status MorphJob::validate() const {
  return detail::to_status("MorphJob", find_problem(*this));
}

bool MorphJob::run() const {
  if (find_problem(*this)) return false;
  const skin_detail::MorphMeshData& d = skin_detail::data_of(*mesh);
  for (const skin_detail::MorphMeshData::Group& g : d.groups)
    detail::morph_group_simd(d, g, weights.data(), *output);
  return true;
}

bool MorphJob::run_reference() const {
  if (find_problem(*this)) return false;
  const skin_detail::MorphMeshData& d = skin_detail::data_of(*mesh);
  for (const skin_detail::MorphMeshData::Group& g : d.groups)
    detail::morph_group_scalar(d, g, weights.data(), *output);
  return true;
}

bool apply_morphs_reference(const SkinnedMesh& mesh, std::span<const float> weights,
                            std::span<Vec3> positions, std::span<Vec3> normals,
                            std::span<std::array<float, 4>> tangents) {
  const std::size_t n = mesh.vertex_count();
  if (weights.size() < mesh.morph_targets.size() || positions.size() < n) return false;
  if (!validate_morph_targets(mesh)) return false;
  const bool do_normals = !normals.empty() && mesh.normals.size() == n;
  const bool do_tangents = !tangents.empty() && mesh.tangents.size() == n;
  if ((do_normals && normals.size() < n) || (do_tangents && tangents.size() < n)) return false;
  std::copy(mesh.positions.begin(), mesh.positions.end(), positions.begin());
  if (do_normals) std::copy(mesh.normals.begin(), mesh.normals.end(), normals.begin());
  if (do_tangents) std::copy(mesh.tangents.begin(), mesh.tangents.end(), tangents.begin());
  for (std::size_t t = 0; t < mesh.morph_targets.size(); ++t) {
    const MorphTarget& target = mesh.morph_targets[t];
    const float w = weights[t];
    for (std::size_t i = 0; i < target.vertices.size(); ++i) {
      const std::uint32_t v = target.vertices[i];
      positions[v] += target.position_deltas[i] * w;
      if (do_normals && !target.normal_deltas.empty()) normals[v] += target.normal_deltas[i] * w;
      if (do_tangents && !target.tangent_deltas.empty()) {
        const Vec3 d = target.tangent_deltas[i] * w;
        tangents[v][0] += d.x, tangents[v][1] += d.y, tangents[v][2] += d.z;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------- skinning

bool skin(const SkinningMesh& mesh, const MorphedVertices& bind, std::span<const Mat4> palette,
          SkinningMethod method, SkinningOutput out, std::size_t begin, std::size_t end) {
  return SkinningJob{&mesh, method, palette, {}, &bind, out, begin, end}.run();
}

bool skin_reference(const SkinningMesh& mesh, const MorphedVertices& bind,
                    std::span<const Mat4> palette, SkinningMethod method, SkinningOutput out,
                    std::size_t begin, std::size_t end) {
  return SkinningJob{&mesh, method, palette, {}, &bind, out, begin, end}.run_reference();
}

}  // namespace marrow
