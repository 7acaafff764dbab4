#include "gltf_morph.h"

#include <algorithm>
#include <cmath>

#include "gltf_error.h"
#include "marrow/skin/morph.h"

namespace marrow::gltf {
namespace {

// `weights` of a mesh or node: an array of finite numbers, one per target.
std::vector<float> read_weights(const Document& doc, const Json& value, std::size_t targets,
                                const std::string& where) {
  if (!value.is_array())
    fail(doc.name, where + " must be an array of numbers, found " + brief(value));
  if (value.size() != targets) {
    fail(doc.name, where + " has " + std::to_string(value.size()) + " weights for " +
                       std::to_string(targets) + " morph targets");
  }
  std::vector<float> out(targets);
  for (std::size_t i = 0; i < targets; ++i) {
    if (!value[i].is_number() || !std::isfinite(value[i].get<double>()))
      fail(doc.name, path(where, i) + " is not a finite number");
    out[i] = value[i].get<float>();
  }
  return out;
}

// One delta attribute of a target as Vec3s, checked against the vertex count.
std::vector<Vec3> read_deltas(const Document& doc, const Json& target, const char* key,
                              std::size_t vertex_count, const std::string& tp) {
  const Json* a = find_member(target, key);
  if (!a) return {};
  const std::string where = path(tp, key);
  const std::uint64_t acc = require_index(doc, *a, where);
  const AccessorShape shape = accessor_shape(doc, acc, where);
  if (shape.components != 3)
    fail(doc.name, where + ": accessor " + std::to_string(acc) + " is " + shape.type +
                       "; morph target deltas are VEC3");
  if (shape.count != vertex_count) {
    fail(doc.name, where + ": accessor " + std::to_string(acc) + " has " +
                       std::to_string(shape.count) + " elements, the primitive " +
                       std::to_string(vertex_count) + " vertices");
  }
  const std::vector<float> f = read_floats(doc, acc, where);
  std::vector<Vec3> out(vertex_count);
  for (std::size_t v = 0; v < vertex_count; ++v) {
    out[v] = {f[v * 3], f[v * 3 + 1], f[v * 3 + 2]};
    if (!is_finite(out[v]))
      fail(doc.name, where + ": the delta of vertex " + std::to_string(v) + " is not finite");
  }
  return out;
}

}  // namespace

void read_morph_targets(const Document& doc, const Json& mesh_json, const std::string& mp,
                        const Json& prim, const std::string& pp, const Json& node_json,
                        const std::string& np, SkinnedMesh& mesh,
                        std::vector<std::string>& warnings) {
  const Json* targets = find_member(prim, "targets");
  std::size_t count = 0;
  if (targets) {
    if (!targets->is_array()) fail(doc.name, path(pp, "targets") + " must be an array");
    count = targets->size();
  }
  // All primitives of a mesh carry the same number of targets.
  const Json& primitives = mesh_json["primitives"];
  for (std::size_t p = 0; p < primitives.size(); ++p) {
    const Json* other = find_member(primitives[p], "targets");
    const std::size_t n = other && other->is_array() ? other->size() : 0;
    if (n != count) {
      fail(doc.name, pp + " has " + std::to_string(count) + " morph targets but " +
                         path(path(mp, "primitives"), p) + " has " + std::to_string(n) +
                         " (every primitive of a mesh must have the same number)");
    }
  }
  const Json* mesh_weights = find_member(mesh_json, "weights");
  const Json* node_weights = find_member(node_json, "weights");
  if (count == 0) {
    if (mesh_weights && mesh_weights->is_array() && !mesh_weights->empty())
      fail(doc.name, path(mp, "weights") + " is given but the mesh has no morph targets");
    if (node_weights && node_weights->is_array() && !node_weights->empty())
      fail(doc.name, path(np, "weights") + " is given but its mesh has no morph targets");
    return;
  }
  // Names: the extras.targetNames convention (Blender, three.js), one string per target.
  std::vector<std::string> names(count);
  if (const Json* extras = find_member(mesh_json, "extras")) {
    if (const Json* tn = find_member(*extras, "targetNames")) {
      if (tn->is_array() && tn->size() == count &&
          std::all_of(tn->begin(), tn->end(), [](const Json& j) { return j.is_string(); })) {
        for (std::size_t t = 0; t < count; ++t) names[t] = (*tn)[t].get<std::string>();
      } else {
        warnings.push_back(path(path(mp, "extras"), "targetNames") +
                           " is not an array of one string per target; names ignored");
      }
    }
  }
  const std::size_t n = mesh.vertex_count();
  bool skipped_other = false;
  for (std::size_t t = 0; t < count; ++t) {
    const std::string tp = path(path(pp, "targets"), t);
    const Json& target = (*targets)[t];
    if (!target.is_object()) fail(doc.name, tp + " must be an object");
    const std::vector<Vec3> dp = read_deltas(doc, target, "POSITION", n, tp);
    const std::vector<Vec3> dn =
        mesh.normals.empty() ? std::vector<Vec3>{} : read_deltas(doc, target, "NORMAL", n, tp);
    const std::vector<Vec3> dt =
        mesh.tangents.empty() ? std::vector<Vec3>{} : read_deltas(doc, target, "TANGENT", n, tp);
    for (const auto& [key, value] : target.items()) {
      if (key != "POSITION" && key != "NORMAL" && key != "TANGENT") skipped_other = true;
    }
    // A target without POSITION moves no vertex (its normal deltas may still count).
    const std::vector<Vec3> zeros(dp.empty() ? n : 0, Vec3{0, 0, 0});
    mesh.morph_targets.push_back(make_sparse_target(names[t], dp.empty() ? zeros : dp, dn, dt));
  }
  if (skipped_other)
    warnings.push_back(path(pp, "targets") +
                       ": only POSITION, NORMAL and TANGENT deltas are read (others ignored)");
  if (node_weights)
    mesh.default_morph_weights = read_weights(doc, *node_weights, count, path(np, "weights"));
  else if (mesh_weights)
    mesh.default_morph_weights = read_weights(doc, *mesh_weights, count, path(mp, "weights"));
}

}  // namespace marrow::gltf
