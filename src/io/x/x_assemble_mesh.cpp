// The skeleton and the meshes of a .X file: frames to joints, mesh records to SkinnedMeshes.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "common/reader_support.h"
#include "x_assembler.h"

namespace marrow::xfile {
namespace {

// What copying a mesh record costs (a frame that references a top-level mesh gets a copy).
std::uint64_t record_bytes(const MeshRec& m) {
  std::uint64_t bytes = sizeof(MeshRec) + m.positions.size() * sizeof(Vec3) +
                        m.face_offsets.size() * 4 + m.face_indices.size() * 4 +
                        m.normals.size() * sizeof(Vec3) + m.normal_indices.size() * 4 +
                        m.uvs.size() * 8 + m.tangents.size() * 16 + m.binormals.size() * 12;
  for (const SkinWeightsRec& s : m.skin_weights) bytes += s.vertices.size() * 8 + sizeof(s);
  return bytes;
}

}  // namespace

// The D3D matrix (row-major, row vectors) as marrow's column-major, column-vector Mat4: the
// transpose, which has the same memory layout. The last row is forced to 0 0 0 1.
Mat4 to_mat4(const D3DMatrix& d, bool* projective) {
  Mat4 m;
  std::copy(d.begin(), d.end(), m.m.begin());
  const bool affine = std::fabs(m.m[3]) < 1e-6f && std::fabs(m.m[7]) < 1e-6f &&
                      std::fabs(m.m[11]) < 1e-6f && std::fabs(m.m[15] - 1) < 1e-6f;
  if (projective) *projective = !affine;
  m.m[3] = m.m[7] = m.m[11] = 0;
  m.m[15] = 1;
  return m;
}

void Assembler::run() {
  build_skeleton();
  resolve_mesh_refs();
  for (MeshRec& m : r_.meshes) build_mesh(m);
  check_ticks();
  for (std::size_t s = 0; s < r_.sets.size(); ++s) build_clip(r_.sets[s], s);
  if (!r_.loose.animations.empty()) {
    std::string stem = std::filesystem::path(file_).stem().string();
    r_.loose.name = stem.empty() ? "animation" : stem;
    asset_.warnings.push_back(tk_.where(r_.loose.place) +
                              ": Animation objects outside an AnimationSet form clip " +
                              named(r_.loose.name));
    build_clip(r_.loose, r_.sets.size());
  }
}

void Assembler::warn(std::size_t place, const std::string& what) {
  asset_.warnings.push_back(tk_.where(place) + ": " + what);
}

void Assembler::build_skeleton() {
  std::vector<JointDesc> descs(r_.frames.size());
  for (std::size_t i = 0; i < r_.frames.size(); ++i) {
    const FrameRec& f = r_.frames[i];
    descs[i].name = f.name;
    descs[i].parent = f.parent;
    bool projective = false;
    const Decomposition d = decompose(to_mat4(f.matrix, &projective));
    descs[i].rest = d.transform;
    if (projective) {
      warn(f.matrix_place,
           "Frame " + named(f.name) + ": the projective column of FrameTransformMatrix is ignored");
    }
    if (!d.exact) {
      warn(f.matrix_place, "Frame " + named(f.name) +
                               ": FrameTransformMatrix has shear or zero scale that TRS "
                               "cannot hold; the nearest TRS is used");
    }
  }
  Result<std::vector<JointIndex>> joints =
      io::build_asset_skeleton(asset_, descs, file_ + ": frames");
  if (!joints) throw XError(joints.error().message);
  joint_of_frame_ = std::move(joints).value();
  // Names that several frames share: references to them take the first.
  std::unordered_map<std::string, int> count;
  for (const FrameRec& f : r_.frames) {
    if (!f.name.empty() && ++count[f.name] == 2) {
      warn(f.place, "frame name " + named(f.name) +
                        " is used more than once; references to it bind the first");
    }
  }
}

// A frame may reference a top-level Mesh by name: the mesh then hangs under that frame (a
// copy for every further frame that references it).
void Assembler::resolve_mesh_refs() {
  std::unordered_map<std::string, std::size_t> top;
  for (std::size_t i = 0; i < r_.meshes.size(); ++i) {
    if (r_.meshes[i].top_level && !r_.meshes[i].name.empty()) {
      top.emplace(r_.meshes[i].name, i);
    }
  }
  for (const MeshRef& r : r_.mesh_refs) {
    auto it = top.find(r.name);
    if (it == top.end()) {
      warn(r.place, "Frame " + named(r_.frames[r.frame].name) + " refers to " + named(r.name) +
                        ", which is not a top-level Mesh; the reference is "
                        "ignored");
      continue;
    }
    MeshRec& m = r_.meshes[it->second];
    if (m.frame < 0) {
      m.frame = static_cast<std::int64_t>(r.frame);
    } else {
      // Copies cost memory the file does not pay for: the document's budget bounds them.
      budget_.charge(record_bytes(m), [&] {
        return tk_.where(r.place) + ": Frame " + named(r_.frames[r.frame].name) +
               " takes a copy of Mesh " + named(r.name);
      });
      MeshRec copy = m;
      copy.frame = static_cast<std::int64_t>(r.frame);
      copy.top_level = false;
      r_.meshes.push_back(std::move(copy));
    }
  }
}

// The mesh's material: the one most of its faces use (a marrow mesh has one), with its texture
// as a path beside the file. References name top-level Materials.
int Assembler::build_material(const MeshRec& m) {
  if (m.materials.empty() || m.face_materials.empty()) return -1;
  std::vector<std::size_t> uses(m.materials.size(), 0);
  for (std::uint32_t f : m.face_materials) {
    if (f < uses.size()) ++uses[f];
  }
  const std::size_t best =
      static_cast<std::size_t>(std::max_element(uses.begin(), uses.end()) - uses.begin());
  if (uses[best] < m.face_materials.size()) {
    warn(m.place, "Mesh " + named(m.name) + " uses several materials; drawn in the one most " +
                      "of its faces use");
  }
  MaterialRec rec = m.materials[best];
  if (!m.material_refs[best].empty()) {
    if (!materials_indexed_) {
      for (std::size_t i = 0; i < r_.named_materials.size(); ++i) {
        material_by_name_.emplace(io::ascii_lower(r_.named_materials[i].name),
                                  i);  // keeps the first
      }
      materials_indexed_ = true;
    }
    const auto it = material_by_name_.find(io::ascii_lower(m.material_refs[best]));
    if (it == material_by_name_.end()) {
      warn(m.place, "Mesh " + named(m.name) + ": material " + named(m.material_refs[best]) +
                        " is not in the file; drawn plain");
      return -1;
    }
    rec = r_.named_materials[it->second];
  }
  Material material;
  material.name = rec.name;
  // .X colours are display values (fixed-function Direct3D): linear for marrow's factors.
  for (int c = 0; c < 3; ++c) material.base_color_factor[c] = io::linear_from_display(rec.color[c]);
  material.base_color_factor[3] = std::clamp(rec.color[3], 0.0f, 1.0f);
  for (int c = 0; c < 3; ++c)
    material.emissive_factor[c] = io::linear_from_display(rec.emissive[c]);
  if (material.base_color_factor[3] < 1) material.alpha_mode = AlphaMode::kBlend;
  if (!rec.texture.empty()) {
    std::string file = rec.texture;
    std::replace(file.begin(), file.end(), '\\', '/');
    const std::string path =
        (std::filesystem::path(file_).parent_path() / file).lexically_normal().string();
    int image = -1;
    for (std::size_t i = 0; i < asset_.images.size(); ++i) {
      if (asset_.images[i].path == path) image = static_cast<int>(i);
    }
    if (image < 0) {
      image = static_cast<int>(asset_.images.size());
      asset_.images.push_back({rec.texture, path, {}, ""});
    }
    material.base_color.image = image;
  }
  asset_.materials.push_back(std::move(material));
  return static_cast<int>(asset_.materials.size()) - 1;
}

void Assembler::build_mesh(const MeshRec& m) {
  SkinnedMesh mesh;
  mesh.name = m.name;
  mesh.node = m.frame >= 0 ? joint_of_frame_[static_cast<std::size_t>(m.frame)] : kNoParent;
  const std::size_t nv = m.positions.size();

  // Normals are indexed per face corner; a vertex whose corners disagree is split.
  std::vector<std::uint32_t> origin(nv);
  std::iota(origin.begin(), origin.end(), 0u);
  std::vector<std::uint32_t> corner_vertex = m.face_indices;
  std::vector<std::int64_t> vertex_normal;
  if (m.has_normals) {
    vertex_normal.assign(nv, -1);
    std::unordered_map<std::uint64_t, std::uint32_t> split;
    for (std::size_t c = 0; c < m.face_indices.size(); ++c) {
      const std::uint32_t v = m.face_indices[c];
      const std::uint32_t n = m.normal_indices[c];
      if (vertex_normal[v] < 0) {
        vertex_normal[v] = n;
      } else if (vertex_normal[v] != n) {
        const std::uint64_t key = (std::uint64_t{v} << 32) | n;
        auto [it, added] = split.emplace(key, static_cast<std::uint32_t>(origin.size()));
        if (added) {
          origin.push_back(v);
          vertex_normal.push_back(n);
        }
        corner_vertex[c] = it->second;
      }
    }
    if (!split.empty()) {
      warn(m.place, "Mesh " + named(m.name) + ": " + std::to_string(split.size()) +
                        " vertices added where faces give one vertex different normals");
    }
  }
  for (std::uint32_t o : origin) mesh.positions.push_back(m.positions[o]);
  if (m.has_normals) {
    for (std::int64_t n : vertex_normal) {
      mesh.normals.push_back(n >= 0 ? m.normals[static_cast<std::size_t>(n)] : Vec3{0, 0, 0});
    }
  }
  if (m.has_uvs) {
    for (std::uint32_t o : origin) mesh.uvs.push_back(m.uvs[o]);
  }
  mesh.material = build_material(m);
  if (!m.tangents.empty()) {
    // Handedness from the binormal: glTF's convention, bitangent = cross(normal, tangent) * w.
    for (std::size_t i = 0; i < origin.size(); ++i) {
      std::array<float, 4> t = m.tangents[origin[i]];
      if (!m.binormals.empty() && !mesh.normals.empty()) {
        const Vec3 b = m.binormals[origin[i]];
        t[3] = dot(cross(mesh.normals[i], Vec3{t[0], t[1], t[2]}), b) < 0 ? -1.0f : 1.0f;
      }
      mesh.tangents.push_back(t);
    }
  }

  // Faces with more than three corners become fans; faces with fewer are dropped.
  std::size_t degenerate = 0;
  for (std::size_t f = 0; f + 1 < m.face_offsets.size(); ++f) {
    const std::uint32_t b = m.face_offsets[f], e = m.face_offsets[f + 1];
    if (e - b < 3) {
      ++degenerate;
      continue;
    }
    for (std::uint32_t i = b + 2; i < e; ++i) {
      mesh.indices.insert(mesh.indices.end(),
                          {corner_vertex[b], corner_vertex[i - 1], corner_vertex[i]});
    }
  }
  if (degenerate > 0) {
    warn(m.place, "Mesh " + named(m.name) + ": " + std::to_string(degenerate) +
                      " faces with fewer than 3 vertices are dropped");
  }

  if (!m.skin_weights.empty()) build_skin(m, origin, mesh);
  asset_.meshes.push_back(std::move(mesh));
}

void Assembler::build_skin(const MeshRec& m, const std::vector<std::uint32_t>& origin,
                           SkinnedMesh& mesh) {
  if (m.skin_weights.size() > std::numeric_limits<std::uint16_t>::max()) {
    tk_.fail(m.place, "Mesh " + named(m.name) + " has more SkinWeights than marrow can index");
  }
  Skin skin;
  skin.name = m.name;
  const std::size_t nv = m.positions.size();
  // Summed in double: each weight is a finite float, but two large ones overflow a float sum,
  // and its normalization would give NaN.
  std::vector<std::vector<std::pair<std::uint16_t, double>>> per_vertex(nv);
  for (std::size_t s = 0; s < m.skin_weights.size(); ++s) {
    const SkinWeightsRec& w = m.skin_weights[s];
    const std::optional<JointIndex> joint = asset_.skeleton.find(w.frame);
    if (!joint) {
      // Real exporters do this (anim_test.x names two bones it never wrote as frames). The
      // weights have nothing to follow, so they are dropped and the rest renormalized.
      warn(w.place, "SkinWeights names frame " + named(w.frame) +
                        ", which the file does not have: its " + std::to_string(w.vertices.size()) +
                        " weights are dropped and each vertex's other weights renormalized");
      continue;
    }
    const auto j = static_cast<std::uint16_t>(skin.joints.size());
    skin.joints.push_back(*joint);
    bool projective = false;
    skin.inverse_bind_matrices.push_back(to_mat4(w.offset, &projective));
    if (projective) {
      warn(w.offset_place, "SkinWeights for frame " + named(w.frame) +
                               ": the projective column of matrixOffset is ignored");
    }
    for (std::size_t i = 0; i < w.vertices.size(); ++i) {
      if (w.weights[i] == 0) continue;
      // Skin joints are handed out in order, so a vertex listed twice by this SkinWeights
      // can only meet itself at the back of its list: constant time, whatever the file.
      auto& list = per_vertex[w.vertices[i]];
      if (!list.empty() && list.back().first == j) {
        list.back().second += w.weights[i];
      } else {
        list.emplace_back(j, w.weights[i]);
      }
    }
  }
  if (skin.joints.empty()) {
    warn(m.place, "Mesh " + named(m.name) + ": no SkinWeights names a frame; drawn rigid");
    return;
  }
  // Strongest first, normalized (what the skinning kernels expect).
  std::size_t unweighted = 0;
  for (auto& list : per_vertex) {
    std::stable_sort(list.begin(), list.end(),
                     [](auto& a, auto& b) { return a.second > b.second; });
    double sum = 0;
    for (auto& p : list) sum += p.second;
    for (auto& p : list) p.second /= sum;
    if (list.empty()) ++unweighted;
  }
  mesh.influence_offsets.assign(1, 0);
  for (std::uint32_t o : origin) {
    for (auto& p : per_vertex[o]) {
      mesh.influence_joints.push_back(p.first);
      mesh.influence_weights.push_back(static_cast<float>(p.second));
    }
    mesh.influence_offsets.push_back(static_cast<std::uint32_t>(mesh.influence_joints.size()));
  }
  if (unweighted > 0) {
    warn(m.place, "Mesh " + named(m.name) + ": " + std::to_string(unweighted) +
                      " vertices have no skin weight");
  }
  mesh.skin = static_cast<int>(asset_.skins.size());
  asset_.skins.push_back(std::move(skin));
}

}  // namespace marrow::xfile
