// glTF 2.0 → Asset. Every node becomes a joint of the skeleton (so scene ancestors of the skin
// joints and mesh nodes get global transforms too); skins pick their joints out of it.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "accessors.h"
#include "common/json_depth.h"
#include "common/reader_support.h"
#include "common/text_lines.h"
#include "glb_container.h"
#include "gltf_error.h"
#include "gltf_morph.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/gltf.h"
#include "marrow/skin/morph.h"
#include "materials.h"

namespace marrow {
namespace {

using gltf::Document;
using gltf::fail;
using gltf::Json;
using gltf::path;

std::vector<float> numbers(const Document& doc, const Json& value, std::size_t count,
                           const std::string& where) {
  if (!value.is_array() || value.size() != count) {
    fail(doc.name, where + " must be an array of " + std::to_string(count) + " numbers");
  }
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!value[i].is_number()) fail(doc.name, path(where, i) + " is not a number");
    out[i] = value[i].get<float>();
    if (!std::isfinite(out[i])) fail(doc.name, path(where, i) + " is not finite");
  }
  return out;
}

std::string name_of(const Json& object) {
  const Json* n = gltf::find_member(object, "name");
  return n && n->is_string() ? n->get<std::string>() : std::string();
}

struct NodeTable {
  std::vector<JointDesc> joints;  // one per glTF node, in file order
};

NodeTable read_nodes(const Document& doc, Asset& asset) {
  const std::size_t n = gltf::array_size(doc, "nodes");
  NodeTable table;
  table.joints.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string np = path("nodes", i);
    const Json& node = gltf::element(doc, "nodes", i, np);
    JointDesc& joint = table.joints[i];
    joint.name = name_of(node);
    if (const Json* matrix = gltf::find_member(node, "matrix")) {
      const std::vector<float> m = numbers(doc, *matrix, 16, path(np, "matrix"));
      Mat4 mat;
      std::copy(m.begin(), m.end(), mat.m.begin());
      const Decomposition d = decompose(mat);
      joint.rest = d.transform;
      if (!d.exact) {
        asset.warnings.push_back(np +
                                 ".matrix has shear or zero scale that TRS cannot hold; "
                                 "the nearest TRS is used");
      }
    }
    if (const Json* t = gltf::find_member(node, "translation")) {
      const auto v = numbers(doc, *t, 3, path(np, "translation"));
      joint.rest.translation = {v[0], v[1], v[2]};
    }
    if (const Json* r = gltf::find_member(node, "rotation")) {
      const auto v = numbers(doc, *r, 4, path(np, "rotation"));
      joint.rest.rotation = normalize(Quat{v[0], v[1], v[2], v[3]});
    }
    if (const Json* s = gltf::find_member(node, "scale")) {
      const auto v = numbers(doc, *s, 3, path(np, "scale"));
      joint.rest.scale = {v[0], v[1], v[2]};
    }
  }
  // Parents come from the children lists; a node listed twice would have two parents.
  std::vector<std::size_t> child_slot(n, 0);  // where in its parent's children a node is listed
  for (std::size_t i = 0; i < n; ++i) {
    const std::string np = path("nodes", i);
    const Json* children = gltf::find_member(doc.json["nodes"][i], "children");
    if (!children) continue;
    if (!children->is_array()) fail(doc.name, path(np, "children") + " must be an array");
    for (std::size_t c = 0; c < children->size(); ++c) {
      const std::string cp = path(path(np, "children"), c);
      const std::uint64_t child = gltf::require_index(doc, (*children)[c], cp);
      if (child >= n) {
        fail(doc.name, cp + " = " + std::to_string(child) + " is out of range: the file has " +
                           std::to_string(n) + " nodes");
      }
      if (child == i)
        fail(doc.name, cp + ": node " + std::to_string(i) + " is its own child (cycle)");
      if (table.joints[child].parent >= 0) {
        fail(doc.name, cp + ": node " + std::to_string(child) + " already has parent node " +
                           std::to_string(table.joints[child].parent) + " (a node has one parent)");
      }
      table.joints[child].parent = static_cast<std::int64_t>(i);
      child_slot[child] = c;
    }
  }
  // A parent chain that comes back on itself is a cycle. Skeleton::build refuses it too, but
  // cannot name the children entry; this walk visits every node once.
  std::vector<std::size_t> walk(n, 0);  // 0: not seen; s + 1: seen by the walk from node s
  for (std::size_t start = 0; start < n; ++start) {
    if (walk[start] != 0) continue;
    for (std::size_t j = start;;) {
      walk[j] = start + 1;
      if (table.joints[j].parent < 0) break;
      const auto parent = static_cast<std::size_t>(table.joints[j].parent);
      if (walk[parent] == start + 1) {
        fail(doc.name, path(path(path("nodes", parent), "children"), child_slot[j]) + ": node " +
                           std::to_string(j) + " is also an ancestor of node " +
                           std::to_string(parent) + " (cycle)");
      }
      if (walk[parent] != 0) break;  // joins a chain already checked
      j = parent;
    }
  }
  return table;
}

void read_skins(const Document& doc, Asset& asset, const std::vector<JointIndex>& joint_of_node) {
  const std::size_t n = gltf::array_size(doc, "skins");
  for (std::size_t s = 0; s < n; ++s) {
    const std::string sp = path("skins", s);
    const Json& skin_json = gltf::element(doc, "skins", s, sp);
    Skin skin;
    skin.name = name_of(skin_json);
    const Json& joints = gltf::require_member(doc, skin_json, "joints", sp);
    if (!joints.is_array() || joints.empty())
      fail(doc.name, path(sp, "joints") + " must be a non-empty array");
    for (std::size_t j = 0; j < joints.size(); ++j) {
      const std::string jp = path(path(sp, "joints"), j);
      const std::uint64_t node = gltf::require_index(doc, joints[j], jp);
      if (node >= joint_of_node.size()) {
        fail(doc.name, jp + " = " + std::to_string(node) + " is out of range: the file has " +
                           std::to_string(joint_of_node.size()) + " nodes");
      }
      skin.joints.push_back(joint_of_node[node]);
    }
    skin.inverse_bind_matrices.assign(skin.joints.size(), Mat4::identity());
    if (const Json* ibm = gltf::find_member(skin_json, "inverseBindMatrices")) {
      const std::string ip = path(sp, "inverseBindMatrices");
      const std::uint64_t accessor = gltf::require_index(doc, *ibm, ip);
      const gltf::AccessorShape shape = gltf::accessor_shape(doc, accessor, ip);
      if (shape.type != "MAT4" || shape.component_type != 5126) {
        fail(doc.name, ip + ": accessor " + std::to_string(accessor) + " must be MAT4 of floats");
      }
      if (shape.count < skin.joints.size()) {
        fail(doc.name, ip + ": " + std::to_string(shape.count) + " matrices for " +
                           std::to_string(skin.joints.size()) + " joints");
      }
      const std::vector<float> m = gltf::read_floats(doc, accessor, ip);
      for (std::size_t j = 0; j < skin.joints.size(); ++j) {
        std::copy_n(m.begin() + static_cast<std::ptrdiff_t>(j * 16), 16,
                    skin.inverse_bind_matrices[j].m.begin());
        for (float f : skin.inverse_bind_matrices[j].m) {
          if (!std::isfinite(f))
            fail(doc.name, ip + ": matrix " + std::to_string(j) + " is not finite");
        }
      }
    }
    if (const Json* root = gltf::find_member(skin_json, "skeleton")) {
      const std::uint64_t node = gltf::require_index(doc, *root, path(sp, "skeleton"));
      if (node >= joint_of_node.size()) fail(doc.name, path(sp, "skeleton") + " is out of range");
      skin.root_hint = joint_of_node[node];
    }
    asset.skins.push_back(std::move(skin));
  }
}

std::vector<std::uint32_t> triangles(const Document& doc, int mode, std::vector<std::uint32_t> idx,
                                     const std::string& where) {
  std::vector<std::uint32_t> out;
  if (mode == 4) {
    if (idx.size() % 3 != 0)
      fail(doc.name, where + ": triangle list of " + std::to_string(idx.size()) + " indices");
    return idx;
  }
  if (mode == 5) {  // strip: alternate winding so every triangle faces the same way
    for (std::size_t i = 2; i < idx.size(); ++i) {
      if (i % 2 == 0)
        out.insert(out.end(), {idx[i - 2], idx[i - 1], idx[i]});
      else
        out.insert(out.end(), {idx[i - 1], idx[i - 2], idx[i]});
    }
  } else if (mode == 6) {  // fan
    for (std::size_t i = 2; i < idx.size(); ++i)
      out.insert(out.end(), {idx[0], idx[i - 1], idx[i]});
  }
  return out;
}

// Vertex attributes marrow's meshes have no place for, gathered over the file's primitives for
// one note: further colour sets and application attributes, and further UV sets where the
// primitive's material reads them (a UV set no texture reads changes nothing drawn).
void gather_attributes_not_kept(const Json& attributes, const Material* material,
                                std::set<std::string>& dropped) {
  if (!attributes.is_object()) return;
  static const std::set<std::string> kept = {"POSITION", "NORMAL", "TANGENT", "TEXCOORD_0",
                                             "COLOR_0"};
  auto read_by_material = [&](const std::string& name) {
    if (!material) return false;
    for (const TextureRef* t : {&material->base_color, &material->metallic_roughness,
                                &material->normal, &material->occlusion, &material->emissive})
      if (t->present() && name == "TEXCOORD_" + std::to_string(t->texcoord)) return true;
    return false;
  };
  for (const auto& [name, value] : attributes.items()) {
    if (kept.count(name) || name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_")) continue;
    if (name.starts_with("TEXCOORD_") && !read_by_material(name)) continue;
    dropped.insert(name);
  }
}

void read_influences(const Document& doc, const Json& attributes, const std::string& where,
                     std::size_t skin_joint_count, SkinnedMesh& mesh) {
  const std::size_t vertex_count = mesh.positions.size();
  // Summed in double: each weight is a finite float, but two large ones of one joint, or of one
  // vertex, overflow a float sum, and its normalization would give NaN.
  std::vector<std::vector<std::pair<std::uint32_t, double>>> per_vertex(vertex_count);
  bool any = false;
  for (int set = 0;; ++set) {
    const std::string jn = "JOINTS_" + std::to_string(set), wn = "WEIGHTS_" + std::to_string(set);
    const Json* ja = gltf::find_member(attributes, jn.c_str());
    const Json* wa = gltf::find_member(attributes, wn.c_str());
    if (!ja && !wa) break;
    if (!ja || !wa)
      fail(doc.name, where + ": " + (ja ? wn : jn) + " is missing beside " + (ja ? jn : wn));
    any = true;
    const std::string jp = path(where, jn.c_str()), wp = path(where, wn.c_str());
    const std::uint64_t jacc = gltf::require_index(doc, *ja, jp);
    const std::uint64_t wacc = gltf::require_index(doc, *wa, wp);
    const auto jshape = gltf::accessor_shape(doc, jacc, jp);
    const auto wshape = gltf::accessor_shape(doc, wacc, wp);
    if (jshape.components != 4 || wshape.components != 4)
      fail(doc.name, where + ": " + jn + "/" + wn + " must be VEC4");
    if (jshape.count != vertex_count || wshape.count != vertex_count) {
      fail(doc.name, where + ": " + jn + "/" + wn + " count differs from POSITION's " +
                         std::to_string(vertex_count));
    }
    const std::vector<std::uint32_t> joints = gltf::read_uints(doc, jacc, jp);
    const std::vector<float> weights = gltf::read_floats(doc, wacc, wp);
    for (std::size_t v = 0; v < vertex_count; ++v) {
      for (int k = 0; k < 4; ++k) {
        const float w = weights[v * 4 + k];
        if (!std::isfinite(w) || w < 0) {
          fail(doc.name, wp + ": vertex " + std::to_string(v) + " has weight " + std::to_string(w));
        }
        if (w == 0) continue;  // unused slots are allowed to hold any joint index
        const std::uint32_t j = joints[v * 4 + k];
        if (j >= skin_joint_count) {
          fail(doc.name, jp + ": vertex " + std::to_string(v) + " uses joint " + std::to_string(j) +
                             " but the skin has " + std::to_string(skin_joint_count));
        }
        auto& list = per_vertex[v];
        auto it = std::find_if(list.begin(), list.end(), [&](auto& p) { return p.first == j; });
        if (it != list.end())
          it->second += w;
        else
          list.emplace_back(j, w);
      }
    }
  }
  if (!any) return;
  // Strongest first, normalized: the skinning kernels and influence reduction rely on it.
  mesh.influence_offsets.assign(1, 0);
  for (auto& list : per_vertex) {
    std::stable_sort(list.begin(), list.end(),
                     [](auto& a, auto& b) { return a.second > b.second; });
    double sum = 0;
    for (auto& p : list) sum += p.second;
    for (auto& p : list) {
      mesh.influence_joints.push_back(static_cast<std::uint16_t>(p.first));
      mesh.influence_weights.push_back(static_cast<float>(p.second / sum));
    }
    mesh.influence_offsets.push_back(static_cast<std::uint32_t>(mesh.influence_joints.size()));
  }
}

// COLOR_0 (RGB or RGBA, alpha 1 when absent) and the primitive's material.
void read_colors_and_material(const Document& doc, const Json& prim, const Json& attributes,
                              const std::string& ap, const std::string& pp,
                              std::size_t vertex_count, Asset& asset, SkinnedMesh& mesh) {
  mesh.material = gltf::primitive_material(prim, pp, asset);
  const Json* c = gltf::find_member(attributes, "COLOR_0");
  if (!c) return;
  const std::string where = path(ap, "COLOR_0");
  const std::uint64_t acc = gltf::require_index(doc, *c, where);
  const auto shape = gltf::accessor_shape(doc, acc, where);
  if ((shape.components != 3 && shape.components != 4) || shape.count != vertex_count) {
    fail(doc.name,
         where + ": expected " + std::to_string(vertex_count) + " elements of 3 or 4 components");
  }
  const std::vector<float> colors = gltf::read_floats(doc, acc, where);
  const std::size_t k = static_cast<std::size_t>(shape.components);
  for (std::size_t v = 0; v < vertex_count; ++v) {
    mesh.colors.push_back(
        {colors[v * k], colors[v * k + 1], colors[v * k + 2], k == 4 ? colors[v * k + 3] : 1.0f});
  }
}

void read_meshes(const Document& doc, Asset& asset, const std::vector<JointIndex>& joint_of_node) {
  const std::size_t node_count = gltf::array_size(doc, "nodes");
  std::set<std::string> dropped_attributes;
  for (std::size_t i = 0; i < node_count; ++i) {
    const std::string np = path("nodes", i);
    const Json& node = doc.json["nodes"][i];
    const Json* mesh_ref = gltf::find_member(node, "mesh");
    if (!mesh_ref) continue;
    const std::uint64_t mesh_index = gltf::require_index(doc, *mesh_ref, path(np, "mesh"));
    const std::string mp = path("meshes", mesh_index);
    const Json& mesh_json = gltf::element(doc, "meshes", mesh_index, path(np, "mesh"));
    int skin = -1;
    if (const Json* s = gltf::find_member(node, "skin")) {
      const std::uint64_t si = gltf::require_index(doc, *s, path(np, "skin"));
      if (si >= asset.skins.size()) {
        fail(doc.name, path(np, "skin") + " = " + std::to_string(si) +
                           " is out of range: the file has " + std::to_string(asset.skins.size()) +
                           " skins");
      }
      skin = static_cast<int>(si);
    }
    const Json& primitives = gltf::require_member(doc, mesh_json, "primitives", mp);
    if (!primitives.is_array()) fail(doc.name, path(mp, "primitives") + " must be an array");
    for (std::size_t p = 0; p < primitives.size(); ++p) {
      const std::string pp = path(path(mp, "primitives"), p);
      const Json& prim = primitives[p];
      const Json& attributes = gltf::require_member(doc, prim, "attributes", pp);
      const std::string ap = path(pp, "attributes");
      // Range-checked before narrowing: 2^32 + 4 is not mode 4.
      const std::uint64_t mode_value = gltf::index_member(doc, prim, "mode", pp, 4);
      if (mode_value > 6) {
        fail(doc.name, path(pp, "mode") + " = " + std::to_string(mode_value) + " is unknown");
      }
      const int mode = static_cast<int>(mode_value);
      if (mode < 4) {
        asset.warnings.push_back(pp + ": points and lines (mode " + std::to_string(mode) +
                                 ") are skipped");
        continue;
      }
      SkinnedMesh mesh;
      mesh.name = name_of(mesh_json);
      if (primitives.size() > 1) mesh.name += "#" + std::to_string(p);
      mesh.node = joint_of_node[i];
      mesh.skin = skin;

      const std::uint64_t pos = gltf::require_index(
          doc, gltf::require_member(doc, attributes, "POSITION", ap), path(ap, "POSITION"));
      if (gltf::accessor_shape(doc, pos, path(ap, "POSITION")).components != 3)
        fail(doc.name, path(ap, "POSITION") + " must be VEC3");
      const std::vector<float> positions = gltf::read_floats(doc, pos, path(ap, "POSITION"));
      const std::size_t vertex_count = positions.size() / 3;
      for (std::size_t v = 0; v < vertex_count; ++v) {
        mesh.positions.push_back({positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2]});
        if (!is_finite(mesh.positions.back()))
          fail(doc.name, path(ap, "POSITION") + ": vertex " + std::to_string(v) + " is not finite");
      }
      auto optional_attribute = [&](const char* key, int components) -> std::vector<float> {
        const Json* a = gltf::find_member(attributes, key);
        if (!a) return {};
        const std::string where = path(ap, key);
        const std::uint64_t acc = gltf::require_index(doc, *a, where);
        const auto shape = gltf::accessor_shape(doc, acc, where);
        if (shape.components != components || shape.count != vertex_count) {
          fail(doc.name, where + ": expected " + std::to_string(vertex_count) + " elements of " +
                             std::to_string(components) + " components");
        }
        std::vector<float> values = gltf::read_floats(doc, acc, where);
        // Like positions: a non-finite normal, tangent or UV would reach the skinning kernels.
        for (std::size_t k = 0; k < values.size(); ++k) {
          if (!std::isfinite(values[k]))
            fail(doc.name,
                 where + ": element " + std::to_string(k / components) + " is not finite");
        }
        return values;
      };
      const std::vector<float> normals = optional_attribute("NORMAL", 3);
      for (std::size_t v = 0; v * 3 < normals.size(); ++v)
        mesh.normals.push_back({normals[v * 3], normals[v * 3 + 1], normals[v * 3 + 2]});
      const std::vector<float> tangents = optional_attribute("TANGENT", 4);
      for (std::size_t v = 0; v * 4 < tangents.size(); ++v)
        mesh.tangents.push_back(
            {tangents[v * 4], tangents[v * 4 + 1], tangents[v * 4 + 2], tangents[v * 4 + 3]});
      const std::vector<float> uvs = optional_attribute("TEXCOORD_0", 2);
      for (std::size_t v = 0; v * 2 < uvs.size(); ++v)
        mesh.uvs.push_back({uvs[v * 2], uvs[v * 2 + 1]});
      read_colors_and_material(doc, prim, attributes, ap, pp, vertex_count, asset, mesh);
      gather_attributes_not_kept(
          attributes,
          mesh.material >= 0 ? &asset.materials[static_cast<std::size_t>(mesh.material)] : nullptr,
          dropped_attributes);

      std::vector<std::uint32_t> indices;
      if (const Json* idx = gltf::find_member(prim, "indices")) {
        const std::string ip = path(pp, "indices");
        const std::uint64_t acc = gltf::require_index(doc, *idx, ip);
        if (gltf::accessor_shape(doc, acc, ip).components != 1)
          fail(doc.name, ip + " must be SCALAR");
        indices = gltf::read_uints(doc, acc, ip);
        for (std::size_t k = 0; k < indices.size(); ++k) {
          if (indices[k] >= vertex_count) {
            fail(doc.name, ip + ": index " + std::to_string(k) + " = " +
                               std::to_string(indices[k]) + " is out of range: the primitive has " +
                               std::to_string(vertex_count) + " vertices");
          }
        }
      } else {
        indices.resize(vertex_count);
        for (std::size_t v = 0; v < vertex_count; ++v) indices[v] = static_cast<std::uint32_t>(v);
      }
      mesh.indices = triangles(doc, mode, std::move(indices), pp);
      gltf::read_morph_targets(doc, mesh_json, mp, prim, pp, node, np, mesh, asset.warnings);

      if (skin >= 0) {
        read_influences(doc, attributes, ap, asset.skins[skin].joints.size(), mesh);
        if (mesh.influence_offsets.empty())
          asset.warnings.push_back(pp + ": skinned node without JOINTS_0/WEIGHTS_0");
        std::size_t unweighted = 0;
        for (std::size_t v = 0; v + 1 < mesh.influence_offsets.size(); ++v)
          unweighted += mesh.influence_offsets[v] == mesh.influence_offsets[v + 1];
        if (unweighted > 0) {
          // The spec asks for weights summing to 1; SkinningMesh::build will refuse the mesh.
          asset.warnings.push_back(pp + ": " + std::to_string(unweighted) +
                                   " vertices have no weight above zero");
        }
      } else if (gltf::find_member(attributes, "JOINTS_0")) {
        asset.warnings.push_back(pp + ": JOINTS_0 on a node without a skin; drawn rigid");
      }
      asset.meshes.push_back(std::move(mesh));
    }
  }
  if (!dropped_attributes.empty()) {
    std::string names;
    for (const std::string& n : dropped_attributes) names += (names.empty() ? "" : ", ") + n;
    asset.warnings.push_back("vertex attributes " + names +
                             " not kept (marrow's meshes keep one UV set and one colour set)");
  }
}

// What marrow's glTF writer keeps in `extras.marrow` because glTF has no place for it: a clip
// duration longer than its last key, the source's ticks per second and where that rate came from
// (absent: the source file), events. Extras are free-form, so anything malformed is skipped with
// a warning rather than failing the file.
void read_marrow_extras(const Json& anim, const std::string& ap, ClipBuilder& builder,
                        RateSource& rate_source, Asset& asset) {
  const Json* extras = gltf::find_member(anim, "extras");
  if (!extras || !extras->is_object()) return;
  const auto it = extras->find("marrow");
  if (it == extras->end() || !it->is_object()) return;
  const Json& m = *it;
  auto finite_number = [](const Json& j) {
    return j.is_number() && std::isfinite(j.get<double>()) && j.get<double>() >= 0;
  };
  if (const auto d = m.find("duration"); d != m.end()) {
    if (finite_number(*d) && d->get<double>() <= 3.0e38)
      builder.set_duration(d->get<float>());
    else
      asset.warnings.push_back(ap + ".extras.marrow.duration is not a duration; ignored");
  }
  if (const auto t = m.find("ticksPerSecond"); t != m.end()) {
    if (finite_number(*t))
      builder.set_ticks_per_second(t->get<double>());
    else
      asset.warnings.push_back(ap + ".extras.marrow.ticksPerSecond is not a rate; ignored");
  }
  if (const auto r = m.find("ticksPerSecondFrom"); r != m.end()) {
    const std::string from = r->is_string() ? r->get<std::string>() : std::string();
    if (from == rate_source_name(RateSource::kDefault))
      rate_source = RateSource::kDefault;
    else if (from == rate_source_name(RateSource::kOption))
      rate_source = RateSource::kOption;
    else if (from != rate_source_name(RateSource::kFile))
      asset.warnings.push_back(ap +
                               ".extras.marrow.ticksPerSecondFrom is not \"file\", \"default\" "
                               "or \"option\"; ignored");
  }
  if (const auto e = m.find("events"); e != m.end() && e->is_array()) {
    for (const Json& event : *e) {
      if (event.is_object() && event.contains("time") && finite_number(event["time"]) &&
          event["time"].get<double>() <= 3.0e38 && event.contains("name") &&
          event["name"].is_string()) {
        builder.add_event(event["time"].get<float>(), event["name"].get<std::string>());
      } else {
        asset.warnings.push_back(ap + ".extras.marrow.events: a malformed event is ignored");
      }
    }
  }
}

void read_animations(const Document& doc, Asset& asset,
                     const std::vector<JointIndex>& joint_of_node, const NodeTable& nodes) {
  const MorphLayout morphs = MorphLayout::build(asset.meshes);
  const std::size_t n = gltf::array_size(doc, "animations");
  for (std::size_t a = 0; a < n; ++a) {
    const std::string ap = path("animations", a);
    const Json& anim = gltf::element(doc, "animations", a, ap);
    std::string name = name_of(anim);
    if (name.empty()) name = "animation_" + std::to_string(a);
    ClipBuilder builder(name);
    builder.set_weight_count(morphs.weight_count());
    const Json& channels = gltf::require_member(doc, anim, "channels", ap);
    const Json& samplers = gltf::require_member(doc, anim, "samplers", ap);
    if (!channels.is_array() || !samplers.is_array())
      fail(doc.name, ap + ": channels and samplers must be arrays");
    for (std::size_t c = 0; c < channels.size(); ++c) {
      const std::string cp = path(path(ap, "channels"), c);
      const Json& channel = channels[c];
      const Json& target = gltf::require_member(doc, channel, "target", cp);
      const std::string tp = path(cp, "target");
      const Json& path_json = gltf::require_member(doc, target, "path", tp);
      if (!path_json.is_string()) fail(doc.name, path(tp, "path") + " must be a string");
      const std::string target_path = path_json.get<std::string>();
      const Json* node_json = gltf::find_member(target, "node");
      if (!node_json) continue;  // allowed: an extension supplies the target
      const std::uint64_t node = gltf::require_index(doc, *node_json, path(tp, "node"));
      if (node >= joint_of_node.size()) {
        fail(doc.name, path(tp, "node") + " = " + std::to_string(node) +
                           " is out of range: the file has " +
                           std::to_string(joint_of_node.size()) + " nodes");
      }
      TrackTarget track_target = TrackTarget::kTranslation;
      const MorphSlots* slots = nullptr;  // for the weights path
      if (target_path == "translation")
        track_target = TrackTarget::kTranslation;
      else if (target_path == "rotation")
        track_target = TrackTarget::kRotation;
      else if (target_path == "scale")
        track_target = TrackTarget::kScale;
      else if (target_path == "weights") {
        slots = morphs.find(joint_of_node[node]);
        if (!slots) {
          fail(doc.name, path(tp, "node") + " = " + std::to_string(node) +
                             ": the weights path animates morph targets, but that node's mesh " +
                             "has none");
        }
      } else {
        fail(doc.name, path(tp, "path") + " = '" + target_path + "' is unknown");
      }
      const std::uint64_t sampler_index = gltf::require_index(
          doc, gltf::require_member(doc, channel, "sampler", cp), path(cp, "sampler"));
      if (sampler_index >= samplers.size()) {
        fail(doc.name, path(cp, "sampler") + " = " + std::to_string(sampler_index) +
                           " is out of range: the animation has " +
                           std::to_string(samplers.size()) + " samplers");
      }
      const std::string sp = path(path(ap, "samplers"), sampler_index);
      const Json& sampler = samplers[sampler_index];
      Interpolation interpolation = Interpolation::kLinear;
      if (const Json* interp = gltf::find_member(sampler, "interpolation")) {
        const std::string s = interp->is_string() ? interp->get<std::string>() : "";
        if (s == "STEP")
          interpolation = Interpolation::kStep;
        else if (s == "LINEAR")
          interpolation = Interpolation::kLinear;
        else if (s == "CUBICSPLINE")
          interpolation = Interpolation::kCubicSpline;
        else
          fail(doc.name, path(sp, "interpolation") + " = " + gltf::brief(*interp) + " is unknown");
      }
      const std::uint64_t input = gltf::require_index(
          doc, gltf::require_member(doc, sampler, "input", sp), path(sp, "input"));
      const std::uint64_t output = gltf::require_index(
          doc, gltf::require_member(doc, sampler, "output", sp), path(sp, "output"));
      const auto in_shape = gltf::accessor_shape(doc, input, path(sp, "input"));
      if (in_shape.components != 1 || in_shape.component_type != 5126)
        fail(doc.name, path(sp, "input") + " must be SCALAR floats");
      const auto out_shape = gltf::accessor_shape(doc, output, path(sp, "output"));
      const int components = slots ? 1 : static_cast<int>(components_of(track_target));
      if (out_shape.components != components) {
        fail(doc.name,
             path(sp, "output") + ": " + out_shape.type + " for a " + target_path + " channel");
      }
      if (slots) {
        // One scalar per target and key (three per target and key for CUBICSPLINE).
        const std::size_t per_key =
            std::size_t{slots->count} * (interpolation == Interpolation::kCubicSpline ? 3 : 1);
        if (out_shape.count != in_shape.count * per_key) {
          fail(doc.name, path(sp, "output") + ": " + std::to_string(out_shape.count) +
                             " weights for " + std::to_string(in_shape.count) + " keys of " +
                             std::to_string(slots->count) + " morph targets (" +
                             std::string(to_string(interpolation)) + " needs " +
                             std::to_string(in_shape.count * per_key) + ")");
        }
      }
      const std::vector<float> times = gltf::read_floats(doc, input, path(sp, "input"));
      const std::vector<float> values = gltf::read_floats(doc, output, path(sp, "output"));
      const JointIndex joint = joint_of_node[node];
      if (slots) {
        const Status st = builder.add_weight_track(
            joint, nodes.joints[node].name, slots->first, slots->count, interpolation, times,
            values, doc.name + ": " + cp + " (sampler " + std::to_string(sampler_index) + ")");
        if (!st) throw gltf::GltfError(st.error().message);
        continue;
      }
      const Status st = builder.add_track(
          joint, nodes.joints[node].name, track_target, interpolation, times, values,
          doc.name + ": " + cp + " (sampler " + std::to_string(sampler_index) + ")");
      if (!st) throw gltf::GltfError(st.error().message);
    }
    RateSource rate_source = RateSource::kFile;
    read_marrow_extras(anim, ap, builder, rate_source, asset);
    Result<Clip> clip = builder.build(asset.skeleton.size(), doc.name + ": " + ap);
    if (!clip) throw gltf::GltfError(clip.error().message);
    asset.clips.push_back(std::move(clip).value());
    asset.rate_sources.resize(asset.clips.size() - 1, RateSource::kFile);
    asset.rate_sources.push_back(rate_source);
  }
}

// "line:column" of a byte, lines counted by the rule every text reader shares.
std::string json_error_place(std::span<const std::uint8_t> json, std::size_t byte) {
  const std::string_view text(reinterpret_cast<const char*>(json.data()), json.size());
  byte = std::min(byte, text.size());
  std::size_t start = byte;
  while (start > 0 && !io::is_line_break(text[start - 1])) --start;
  return std::to_string(io::line_of_byte(text, byte)) + ":" + std::to_string(byte - start + 1);
}

bool has_glb_extension(const std::string& name) {
  if (name.size() < 4) return false;
  std::string ext = name.substr(name.size() - 4);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".glb";
}

bool starts_with_json_object(std::span<const std::uint8_t> bytes) {
  std::size_t i = 0;
  if (bytes.size() >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF) i = 3;
  while (i < bytes.size() &&
         (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' || bytes[i] == '\n'))
    ++i;
  return i < bytes.size() && bytes[i] == '{';
}

// Where a JSON parse fails (1-based byte count read, as parse_error::byte), for the failures
// that do not carry it. Only run after a parse has failed.
std::size_t json_error_byte(std::span<const std::uint8_t> json) {
  struct Locator : nlohmann::json_sax<Json> {
    std::size_t byte = 0;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string&, const Json::exception&) override {
      byte = position;
      return false;
    }
  } locator;
  Json::sax_parse(json.begin(), json.end(), &locator);
  return locator.byte;
}

// The extensions marrow reads (KHR_mesh_quantization's integer attributes are read as the core
// types are); the material ones it does not are named material by material (materials.cpp).
bool reads_extension(std::string_view extension) {
  return extension == "KHR_texture_transform" || extension == "KHR_materials_emissive_strength" ||
         extension == "KHR_materials_unlit" || extension == "KHR_mesh_quantization";
}

// An image format marrow does not decode: without it a texture only loses its image.
bool is_image_format_extension(std::string_view extension) {
  return extension == "KHR_texture_basisu" || extension == "EXT_texture_webp" ||
         extension == "EXT_texture_avif";
}

// What an extension holds, for the errors of the ones that change what a file means.
std::string extension_content(std::string_view extension) {
  if (extension == "KHR_draco_mesh_compression") return " (Draco-compressed meshes)";
  if (extension == "EXT_meshopt_compression" || extension == "KHR_meshopt_compression")
    return " (meshoptimizer-compressed buffers)";
  if (extension == "EXT_mesh_gpu_instancing") return " (instanced meshes)";
  return "";
}

std::vector<std::string> extension_names(const Document& doc, const char* member) {
  std::vector<std::string> names;
  const Json* list = gltf::find_member(doc.json, member);
  if (list == nullptr) return names;
  if (!list->is_array()) fail(doc.name, std::string(member) + " must be an array of names");
  for (std::size_t i = 0; i < list->size(); ++i) {
    if (!(*list)[i].is_string()) fail(doc.name, path(member, i) + " must be a name");
    names.push_back((*list)[i].get<std::string>());
  }
  return names;
}

// Whether some material carries `extension` in its own extensions, where the material reader
// names what it does not keep (materials.cpp).
bool named_by_a_material(const Document& doc, const std::string& extension) {
  const Json* materials = gltf::find_member(doc.json, "materials");
  if (materials == nullptr || !materials->is_array()) return false;
  for (const Json& material : *materials) {
    const Json* ext = material.is_object() ? gltf::find_member(material, "extensions") : nullptr;
    if (ext != nullptr && ext->is_object() && ext->contains(extension)) return true;
  }
  return false;
}

// A file that requires an extension marrow does not read is refused, as the specification asks
// of a loader: read without it, a Draco or meshopt file gives zeros or noise for its meshes,
// which nothing downstream could tell from a real shape. What changes only how a surface looks
// is the exception: an image format costs a texture its image, a material extension (the
// specular-glossiness model of older exporters among them) the material's look, both named, and
// the skeleton, meshes and clips are whole. Extensions used but not required are named.
void check_extensions(const Document& doc, Asset& asset) {
  const std::vector<std::string> required = extension_names(doc, "extensionsRequired");
  for (const std::string& extension : required) {
    if (reads_extension(extension)) continue;
    if (is_image_format_extension(extension)) {
      asset.warnings.push_back("requires " + extension +
                               ", an image format marrow does not decode: textures with no "
                               "other image are drawn without one");
      continue;
    }
    if (extension.starts_with("KHR_materials_")) {
      asset.warnings.push_back("requires " + extension +
                               ", a material extension marrow does not read: materials are "
                               "read without it");
      continue;
    }
    fail(doc.name, "requires the extension " + extension + extension_content(extension) +
                       ", which marrow does not read; export the file without it");
  }
  std::string unread;
  for (const std::string& extension : extension_names(doc, "extensionsUsed")) {
    if (reads_extension(extension) || named_by_a_material(doc, extension) ||
        std::find(required.begin(), required.end(), extension) != required.end())
      continue;
    unread += (unread.empty() ? "" : ", ") + extension + extension_content(extension);
  }
  if (!unread.empty())
    asset.warnings.push_back("uses " + unread +
                             ", which marrow does not read: what it adds is left out");
}

Asset read_document(std::span<const std::uint8_t> bytes, const std::string& name,
                    const std::string& base_dir) {
  Document doc;
  doc.name = name;
  doc.base_dir = base_dir;
  std::span<const std::uint8_t> json_bytes = bytes;
  std::vector<std::uint8_t> bin;
  // A .glb name makes the content a GLB too, so a file cut inside the header reads "truncated";
  // but a JSON document under a .glb name (a .gltf saved with the wrong extension) is read as
  // the JSON it is, with a note.
  const bool json_named_glb =
      !gltf::has_glb_magic(bytes) && has_glb_extension(name) && starts_with_json_object(bytes);
  const bool glb = gltf::has_glb_magic(bytes) || (has_glb_extension(name) && !json_named_glb);
  bool has_bin = false;
  if (glb) {
    const gltf::GlbChunks chunks = gltf::split_glb(bytes, name);
    json_bytes = chunks.json;
    bin.assign(chunks.bin.begin(), chunks.bin.end());
    has_bin = chunks.has_bin;
  }
  doc.budget = io::DocumentBudget(bytes.size());
  if (const auto deep = io::json_nested_too_deep(json_bytes, io::kMaxNestingDepth)) {
    fail(name + ":" + json_error_place(json_bytes, *deep),
         "JSON nests arrays and objects deeper than " + std::to_string(io::kMaxNestingDepth) +
             " levels, the most marrow reads");
  }
  try {
    doc.json = Json::parse(json_bytes.begin(), json_bytes.end());
  } catch (const nlohmann::json::exception& e) {
    // Syntax errors are parse_errors with a byte; a number out of range ("1e400") is an
    // out_of_range without one, so the place comes from a second, position-tracking pass.
    std::string what = e.what();
    const auto bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    // nlohmann quotes the last token read, which for a file cut inside a data URI is most of
    // the file: keep the message short.
    constexpr std::size_t kLongest = 200;
    if (what.size() > kLongest) what = what.substr(0, kLongest) + "...";
    const auto* pe = dynamic_cast<const nlohmann::json::parse_error*>(&e);
    const std::size_t byte = pe ? pe->byte : json_error_byte(json_bytes);
    fail(name + ":" + json_error_place(json_bytes, byte ? byte - 1 : 0), "JSON " + what);
  }
  if (!doc.json.is_object()) fail(name, "the top level is not a JSON object");
  const Json* asset_info = gltf::find_member(doc.json, "asset");
  const Json* version = asset_info ? gltf::find_member(*asset_info, "version") : nullptr;
  if (!version || !version->is_string()) fail(name, "asset.version is missing");
  if (version->get<std::string>().rfind("2.", 0) != 0) {
    fail(name, "asset.version is " + gltf::brief(*version) + "; only glTF 2.x is supported");
  }
  Asset asset;
  asset.source = name;
  if (json_named_glb)
    asset.warnings.push_back(
        "its content is glTF JSON, not the binary glTF (GLB) its '.glb' "
        "name says: read as JSON");
  check_extensions(doc, asset);
  gltf::load_buffers(doc, has_bin ? &bin : nullptr);
  const NodeTable nodes = read_nodes(doc, asset);
  std::vector<JointIndex> joint_of_node;
  Result<Skeleton> skeleton = Skeleton::build(nodes.joints, name + ": nodes", &joint_of_node);
  if (!skeleton) throw gltf::GltfError(skeleton.error().message);
  asset.skeleton = std::move(skeleton).value();
  asset.source_index.assign(asset.skeleton.size(), -1);
  for (std::size_t i = 0; i < joint_of_node.size(); ++i)
    asset.source_index[joint_of_node[i]] = static_cast<std::int64_t>(i);
  if (const std::optional<JointIndex> deep = io::joint_nested_too_deep(asset.skeleton)) {
    fail(name, gltf::path("nodes", static_cast<std::size_t>(asset.source_index[*deep])) +
                   " lies more than " + std::to_string(io::kMaxNestingDepth) +
                   " nodes below its root; marrow reads hierarchies at most that deep");
  }
  read_skins(doc, asset, joint_of_node);
  gltf::read_materials(doc, asset);
  read_meshes(doc, asset, joint_of_node);
  read_animations(doc, asset, joint_of_node, nodes);
  return asset;
}

}  // namespace

Result<Asset> read_gltf(std::span<const std::uint8_t> bytes, const std::string& name,
                        const std::string& base_dir) {
  try {
    return read_document(bytes, name, base_dir);
  } catch (const gltf::GltfError& e) {
    return Error{e.what()};
  } catch (const io::BudgetExceeded& e) {
    return Error{e.what()};
  } catch (const nlohmann::json::exception& e) {
    return Error{name + ": " + e.what()};
  } catch (const std::bad_alloc&) {
    return Error{name + ": out of memory"};
  }
}

Result<Asset> read_gltf(const std::string& file) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(file);
  if (!bytes) return bytes.error();
  const std::string base_dir = std::filesystem::path(file).parent_path().string();
  return read_gltf(*bytes, file, base_dir);
}

}  // namespace marrow
