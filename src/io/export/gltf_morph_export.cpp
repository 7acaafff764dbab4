#include "export/gltf_morph_export.h"

namespace marrow::gltf_out {

void write_targets(Document& doc, const SkinnedMesh& mesh, const std::string& what,
                   const MorphSlots* slots, Json& primitive, std::vector<std::string>* notes,
                   const std::string& source) {
  if (mesh.morph_targets.empty() && !slots) return;
  if (Status st = validate_morph_targets(mesh); !st)
    throw ExportError{source + ": " + st.error().message};
  const std::size_t n = mesh.vertex_count();
  const bool normals = mesh.normals.size() == n, tangents = mesh.tangents.size() == n;
  Json targets = Json::array();
  const std::size_t count = slots ? slots->count : mesh.morph_targets.size();
  for (std::size_t t = 0; t < count; ++t) {
    const MorphTarget empty;
    const MorphTarget& target = t < mesh.morph_targets.size() ? mesh.morph_targets[t] : empty;
    Json out = {
        {"POSITION", doc.add_sparse_vec3(n, target.vertices, target.position_deltas, true)}};
    if (normals && !target.normal_deltas.empty())
      out["NORMAL"] = doc.add_sparse_vec3(n, target.vertices, target.normal_deltas, false);
    if (tangents && !target.tangent_deltas.empty())
      out["TANGENT"] = doc.add_sparse_vec3(n, target.vertices, target.tangent_deltas, false);
    targets.push_back(std::move(out));
  }
  if (mesh.morph_targets.size() < count && notes)
    notes->push_back(what + ": padded with " + std::to_string(count - mesh.morph_targets.size()) +
                     " empty morph targets to its node's " + std::to_string(count));
  primitive["targets"] = std::move(targets);
}

void write_mesh_morph_info(const MorphLayout& layout, const MorphSlots& slots, Json& mesh) {
  const auto defaults = layout.default_weights().subspan(slots.first, slots.count);
  if (std::any_of(defaults.begin(), defaults.end(), [](float w) { return w != 0; })) {
    Json weights = Json::array();
    for (float w : defaults) weights.push_back(static_cast<double>(w));
    mesh["weights"] = std::move(weights);
  }
  const auto names = layout.names().subspan(slots.first, slots.count);
  if (std::any_of(names.begin(), names.end(), [](const std::string& n) { return !n.empty(); }))
    mesh["extras"]["targetNames"] = Json(std::vector<std::string>(names.begin(), names.end()));
}

void write_weight_channels(Document& doc, const Clip& clip, const MorphLayout& layout,
                           const std::map<JointIndex, std::vector<int>>& morph_nodes,
                           Json& samplers, Json& channels, std::vector<std::string>* notes) {
  for (std::size_t t = 0; t < clip.weight_tracks().size(); ++t) {
    const WeightTrack& track = clip.weight_tracks()[t];
    const MorphSlots* slots = layout.find(track.node);
    const auto nodes = morph_nodes.find(track.node);
    if (!slots || slots->first != track.first_weight || slots->count != track.weight_count ||
        nodes == morph_nodes.end()) {
      if (notes)
        notes->push_back("clip '" + clip.name() + "': the weights of node '" +
                         clip.weight_track_node_names()[t] +
                         "' do not match the morph targets of its meshes; not written");
      continue;
    }
    Interpolation interpolation = track.interpolation;
    const std::span<const float> values = clip.values().subspan(
        track.first_value, std::size_t{track.key_count} * floats_per_key(track));
    std::vector<float> out;
    if (track.key_count == 1 && interpolation == Interpolation::kCubicSpline) {
      // A one-key spline is that key's values; glTF wants two keys for CUBICSPLINE.
      out.assign(values.begin() + track.weight_count, values.begin() + 2 * track.weight_count);
      interpolation = Interpolation::kStep;
    } else {
      out.assign(values.begin(), values.end());
    }
    const std::span<const float> times = clip.times().subspan(track.first_key, track.key_count);
    const int input = doc.add_floats(std::vector<float>(times.begin(), times.end()), 1, "SCALAR",
                                     std::nullopt, true);
    const int output = doc.add_floats(out, 1, "SCALAR", std::nullopt, false);
    samplers.push_back({{"input", input},
                        {"output", output},
                        {"interpolation", std::string(to_string(interpolation))}});
    for (int node : nodes->second) {
      channels.push_back(
          {{"sampler", samplers.size() - 1}, {"target", {{"node", node}, {"path", "weights"}}}});
    }
  }
}

}  // namespace marrow::gltf_out
