// The JSON document of `marrow info --format json` (docs/info_json.md).
#include "marrow/io/asset_info.h"
#include "io/common/float_chars.h"

#include "base/enum_names.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "marrow/skin/morph.h"

namespace marrow {
namespace {

// Members in the order the schema lists them (clips first), not sorted.
using json = nlohmann::ordered_json;

// A node by its index in the source file, or null for a node the importer made.
json source_node(const Asset& asset, JointIndex joint) {
  if (joint == kNoParent || joint >= asset.source_index.size()) return nullptr;
  const std::int64_t index = asset.source_index[joint];
  return index < 0 ? json(nullptr) : json(index);
}

json joint_name(const Asset& asset, JointIndex joint) {
  const std::string& name = asset.skeleton.name(joint);
  return name.empty() ? json(nullptr) : json(name);
}

// A float as the shortest decimal that reads back as it (0.1f is 0.1, not 0.10000000149).
json num(float value) {
  if (!std::isfinite(value)) return nullptr;
  char text[32];
  const auto end = io::print_shortest(text, text + sizeof text, value).ptr;
  return std::strtod(std::string(text, end).c_str(), nullptr);
}

template <std::size_t N>
json floats(const std::array<float, N>& values) {
  json out = json::array();
  for (float v : values) out.push_back(num(v));
  return out;
}

json vec3(const Vec3& v) {
  return json::array({num(v.x), num(v.y), num(v.z)});
}

json node_list(const Asset& asset) {
  const Skeleton& s = asset.skeleton;
  json nodes = json::array();
  for (std::size_t j = 0; j < s.size(); ++j) {
    const auto joint = static_cast<JointIndex>(j);
    const Transform& r = s.rest_pose()[j];
    nodes.push_back({{"joint_index", j},
                     {"source_index", source_node(asset, joint)},
                     {"name", joint_name(asset, joint)},
                     {"parent", s.parent(j) == kNoParent ? json(nullptr) : json(s.parent(j))},
                     {"skin_joint", asset.is_skin_joint(joint)},
                     {"translation", vec3(r.translation)},
                     {"rotation", json::array({num(r.rotation.x), num(r.rotation.y),
                                               num(r.rotation.z), num(r.rotation.w)})},
                     {"scale", vec3(r.scale)}});
  }
  return nodes;
}

// Keys per second over the channel's span; null for a single key.
json keys_per_second(std::span<const float> times) {
  const float span = times.back() - times.front();
  if (times.size() < 2 || !(span > 0)) return nullptr;
  return num(static_cast<float>(times.size() - 1) / span);
}

json channel_list(const Asset& asset, const Clip& clip) {
  json channels = json::array();
  for (const Track& t : clip.tracks()) {
    const std::span<const float> times = clip.times().subspan(t.first_key, t.key_count);
    channels.push_back({{"joint_index", t.joint},
                        {"joint", joint_name(asset, t.joint)},
                        {"property", to_string(t.target)},
                        {"interpolation", to_string(t.interpolation)},
                        {"keys", t.key_count},
                        {"first_time", num(times.front())},
                        {"last_time", num(times.back())},
                        {"keys_per_second", keys_per_second(times)}});
  }
  return channels;
}

json weight_channel_list(const Asset& asset, const Clip& clip) {
  json channels = json::array();
  for (const WeightTrack& t : clip.weight_tracks()) {
    channels.push_back({{"node_index", t.node},
                        {"node", joint_name(asset, t.node)},
                        {"first_slot", t.first_weight},
                        {"weights", t.weight_count},
                        {"interpolation", to_string(t.interpolation)},
                        {"keys", t.key_count}});
  }
  return channels;
}

json clip_list(const Asset& asset) {
  json clips = json::array();
  for (std::size_t c = 0; c < asset.clips.size(); ++c) {
    const Clip& clip = asset.clips[c];
    std::set<JointIndex> joints;
    for (const Track& t : clip.tracks()) joints.insert(t.joint);
    json entry = {{"index", c},
                  {"name", clip.name()},
                  {"duration", num(clip.duration())},
                  {"ticks_per_second",
                   clip.ticks_per_second() > 0 ? json(clip.ticks_per_second()) : json(nullptr)},
                  {"rate_source", rate_source_name(asset.rate_source(c))},
                  {"animated_joints", joints.size()},
                  {"channels", channel_list(asset, clip)},
                  {"weight_channels", weight_channel_list(asset, clip)},
                  {"compiled", nullptr}};
    if (const CompiledClip* compiled = asset.compiled_clip(c)) {
      const CompiledClipReport& r = compiled->report();
      entry["compiled"] = {{"bytes", compiled->size_bytes()},
                           {"error_bound", num(r.bound)},
                           {"max_error", num(r.max_error)},
                           {"distance", num(r.distance)}};
    }
    clips.push_back(std::move(entry));
  }
  return clips;
}

json morph_target_list(const SkinnedMesh& mesh) {
  json targets = json::array();
  for (std::size_t t = 0; t < mesh.morph_targets.size(); ++t) {
    const MorphTarget& target = mesh.morph_targets[t];
    targets.push_back(
        {{"name", target.name},
         {"moved_vertices", target.vertices.size()},
         {"normals", !target.normal_deltas.empty()},
         {"tangents", !target.tangent_deltas.empty()},
         {"default_weight",
          num(t < mesh.default_morph_weights.size() ? mesh.default_morph_weights[t] : 0.0f)}});
  }
  return targets;
}

json mesh_list(const Asset& asset) {
  json meshes = json::array();
  for (const SkinnedMesh& mesh : asset.meshes) {
    json attributes = json::array({"positions"});
    if (!mesh.normals.empty()) attributes.push_back("normals");
    if (!mesh.tangents.empty()) attributes.push_back("tangents");
    if (!mesh.uvs.empty()) attributes.push_back("uvs");
    if (!mesh.colors.empty()) attributes.push_back("colors");
    if (mesh.skin >= 0) attributes.push_back("weights");
    meshes.push_back({{"name", mesh.name},
                      {"node_index", mesh.node == kNoParent ? json(nullptr) : json(mesh.node)},
                      {"vertices", mesh.vertex_count()},
                      {"triangles", mesh.indices.size() / 3},
                      {"skin", mesh.skin >= 0 ? json(mesh.skin) : json(nullptr)},
                      {"max_influences", mesh.skin >= 0 ? mesh.max_influences() : 0},
                      {"attributes", attributes},
                      {"material", mesh.material >= 0 ? json(mesh.material) : json(nullptr)},
                      {"morph_targets", morph_target_list(mesh)}});
  }
  return meshes;
}

json skin_list(const Asset& asset) {
  json skins = json::array();
  for (const Skin& skin : asset.skins)
    skins.push_back({{"name", skin.name}, {"joints", skin.joints}});
  return skins;
}

json morph_slot_list(const Asset& asset) {
  const MorphLayout layout = MorphLayout::build(asset.meshes);
  json slots = json::array();
  for (const MorphSlots& s : layout.slots()) {
    json names = json::array();
    for (std::uint32_t t = 0; t < s.count; ++t) names.push_back(layout.names()[s.first + t]);
    slots.push_back({{"node_index", s.node},
                     {"node", joint_name(asset, s.node)},
                     {"first_slot", s.first},
                     {"targets", names}});
  }
  return slots;
}

json texture(const TextureRef& t) {
  if (!t.present()) return nullptr;
  return {{"image", t.image}, {"texcoord", t.texcoord}, {"transformed", t.transform.has_value()}};
}

std::string_view alpha_mode_name(AlphaMode mode) {
  static constexpr std::array<std::string_view, 3> kNames{"opaque", "mask", "blend"};
  static_assert(detail::names_cover(kNames, AlphaMode::kBlend));
  return detail::enum_name(mode, kNames, "opaque");
}

json material_list(const Asset& asset) {
  json materials = json::array();
  for (const Material& m : asset.materials) {
    materials.push_back({{"name", m.name},
                         {"base_color", floats(m.base_color_factor)},
                         {"base_color_texture", texture(m.base_color)},
                         {"metallic", num(m.metallic_factor)},
                         {"roughness", num(m.roughness_factor)},
                         {"metallic_roughness_texture", texture(m.metallic_roughness)},
                         {"normal_texture", texture(m.normal)},
                         {"occlusion_texture", texture(m.occlusion)},
                         {"emissive", floats(m.emissive_factor)},
                         {"emissive_strength", num(m.emissive_strength)},
                         {"emissive_texture", texture(m.emissive)},
                         {"alpha_mode", alpha_mode_name(m.alpha_mode)},
                         {"alpha_cutoff", num(m.alpha_cutoff)},
                         {"double_sided", m.double_sided},
                         {"unlit", m.unlit}});
  }
  return materials;
}

json image_list(const Asset& asset) {
  json images = json::array();
  for (const MaterialImage& image : asset.images) {
    const bool embedded = image.path.empty();
    images.push_back(
        {{"name", image.name},
         {"embedded", embedded},
         {"path", embedded ? json(nullptr) : json(image.path)},
         {"bytes", embedded ? json(image.bytes.size()) : json(nullptr)},
         {"mime_type", image.mime_type.empty() ? json(nullptr) : json(image.mime_type)}});
  }
  return images;
}

}  // namespace

std::string asset_info_json(const Asset& asset, AssetInfoParts parts, int indent) {
  json doc = {{"schema", "marrow-info"},
              {"version", kAssetInfoSchemaVersion},
              {"file", asset.source},
              {"clips", clip_list(asset)}};
  if (parts == AssetInfoParts::kAll) {
    doc["nodes"] = node_list(asset);
    doc["skins"] = skin_list(asset);
    doc["meshes"] = mesh_list(asset);
    doc["morph_slots"] = morph_slot_list(asset);
    doc["materials"] = material_list(asset);
    doc["images"] = image_list(asset);
  }
  doc["notes"] = asset.warnings;
  // Names from files need not be UTF-8 (an .X or .smd in Latin-1): replaced, not thrown.
  return doc.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace marrow
