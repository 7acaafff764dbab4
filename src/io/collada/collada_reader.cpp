// Collada -> Asset: document, scene, instances, animation model, bake (one file per stage, in
// the order data flows through them). docs/formats_collada.md.
#include <filesystem>

#include "collada/collada_animation.h"
#include "collada/collada_bake.h"
#include "collada/collada_document.h"
#include "collada/collada_geometry.h"
#include "collada/collada_scene.h"
#include "common/reader_support.h"
#include "marrow/io/collada.h"

namespace marrow {

struct ColladaReference::State {
  std::unique_ptr<collada::Document> doc;
  collada::Scene scene;
  collada::MorphInstances morphs;
  std::unique_ptr<collada::AnimationModel> model;
  Asset asset;
  std::vector<JointIndex> joint_of_node;
  std::vector<std::size_t> node_of_joint;
  MorphLayout layout;
  ColladaBakeTolerance tolerance;
};

namespace {

using collada::ColladaError;

std::unique_ptr<ColladaReference::State> read_state(std::span<const std::uint8_t> bytes,
                                                    const std::string& name,
                                                    const ColladaBakeTolerance& tolerance) {
  auto s = std::make_unique<ColladaReference::State>();
  s->doc = std::make_unique<collada::Document>(bytes, name);
  const collada::Document& doc = *s->doc;
  Asset& asset = s->asset;
  asset.source = name;
  s->scene = collada::read_scene(doc, asset.warnings);
  const collada::Scene& scene = s->scene;

  // The skeleton: every scene node, the visual scene first.
  std::vector<JointDesc> descs(scene.nodes.size());
  std::size_t sheared = 0;
  double longest = 0;
  for (std::size_t n = 0; n < scene.nodes.size(); ++n) {
    descs[n].name = scene.nodes[n].name;
    descs[n].parent = scene.nodes[n].parent;
    const Decomposition d = decompose(scene.local(n).to_mat4());
    if (!is_finite(d.transform)) doc.fail(scene.nodes[n].element, "its transform is not finite");
    descs[n].rest = d.transform;
    sheared += !d.exact;
    if (n > 0) longest = std::max<double>(longest, length(d.transform.translation));
  }
  if (sheared)
    asset.warnings.push_back(std::to_string(sheared) +
                             " node(s) have shear or zero scale that TRS cannot hold; the "
                             "nearest TRS is used");
  Result<Skeleton> skeleton = Skeleton::build(descs, name + ": nodes", &s->joint_of_node);
  if (!skeleton) throw ColladaError(skeleton.error().message);
  asset.skeleton = std::move(skeleton).value();
  s->node_of_joint.resize(scene.nodes.size());
  asset.source_index.assign(asset.skeleton.size(), -1);
  for (std::size_t n = 0; n < scene.nodes.size(); ++n) {
    s->node_of_joint[s->joint_of_node[n]] = n;
    asset.source_index[s->joint_of_node[n]] = static_cast<std::int64_t>(n);
  }

  s->morphs = collada::read_instances(doc, scene, s->joint_of_node, asset);
  for (const SkinnedMesh& m : asset.meshes) {
    if (Status st = validate_morph_targets(m); !st)
      throw ColladaError(name + ": " + st.error().message);
  }
  s->layout = MorphLayout::build(asset.meshes);

  const std::string stem = std::filesystem::path(name).stem().string();
  s->model = std::make_unique<collada::AnimationModel>(
      doc, scene, s->morphs, stem.empty() ? "animation" : stem, asset.warnings);
  // The translation tolerance scales with the file: the longest local translation of any node,
  // at rest or at any key time of any clip.
  for (std::size_t c = 0; c < s->model->clips().size(); ++c) {
    for (std::size_t n = 1; n < scene.nodes.size(); ++n) {
      for (const auto& [channel, binding] : s->model->bindings(c, n)) {
        const collada::Channel& ch = s->model->channels()[channel];
        if (ch.bindings[binding].weight) continue;
        for (float t : s->model->curves()[ch.curve].times)
          longest =
              std::max<double>(longest, length(s->model->local(c, n, t).to_mat4().translation()));
      }
    }
  }
  s->tolerance = tolerance;
  if (!(s->tolerance.translation > 0)) s->tolerance.translation = std::max(1e-9, 1e-5 * longest);
  collada::BakeInput input;
  input.file = name;
  input.model = s->model.get();
  input.scene = &scene;
  input.joint_of_node = &s->joint_of_node;
  input.skeleton = &asset.skeleton;
  input.morphs = &s->layout;
  input.tolerance = s->tolerance;
  std::size_t file_keys = 0;
  for (const collada::Curve& c : s->model->curves()) file_keys += c.times.size();
  input.key_budget =
      std::min(collada::kMaxBakedKeys, collada::kBakedKeysPerFileKey * file_keys + 65536);
  for (std::size_t c = 0; c < s->model->clips().size(); ++c)
    asset.clips.push_back(collada::bake_clip(input, c, asset.warnings));
  return s;
}

}  // namespace

ColladaReference::ColladaReference() = default;
ColladaReference::ColladaReference(ColladaReference&&) noexcept = default;
ColladaReference& ColladaReference::operator=(ColladaReference&&) noexcept = default;
ColladaReference::~ColladaReference() = default;

Result<ColladaReference> ColladaReference::read(std::span<const std::uint8_t> bytes,
                                                const std::string& name,
                                                const ColladaBakeTolerance& tolerance) {
  Result<std::unique_ptr<State>> state = io::catch_parse_errors<ColladaError>(
      name, [&] { return read_state(bytes, name, tolerance); });
  if (!state) return state.error();
  ColladaReference r;
  r.state_ = std::move(state).value();
  return r;
}

const Asset& ColladaReference::asset() const {
  return state_->asset;
}

const ColladaBakeTolerance& ColladaReference::tolerance() const {
  return state_->tolerance;
}

Mat4 ColladaReference::local_matrix(std::size_t clip, JointIndex joint, double time) const {
  const collada::ClipRange& range = state_->model->clips().at(clip);
  return state_->model->local(clip, state_->node_of_joint.at(joint), range.start + time).to_mat4();
}

float ColladaReference::morph_weight(std::size_t clip, std::size_t slot, double time) const {
  const collada::ClipRange& range = state_->model->clips().at(clip);
  for (const MorphSlots& s : state_->layout.slots()) {
    if (slot < s.first || slot >= s.first + s.count) continue;
    return state_->model->weight(clip, state_->node_of_joint.at(s.node), slot - s.first,
                                 range.start + time, state_->layout.default_weights()[slot]);
  }
  return 0;
}

Result<Asset> read_collada(std::span<const std::uint8_t> bytes, const std::string& name,
                           const ColladaBakeTolerance& tolerance) {
  Result<ColladaReference> r = ColladaReference::read(bytes, name, tolerance);
  if (!r) return r.error();
  return std::move(r->state_->asset);
}

Result<Asset> read_collada(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  return read_collada(*bytes, path);
}

}  // namespace marrow
