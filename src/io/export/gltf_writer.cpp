// glTF 2.0 writer. One buffer; one bufferView per accessor, 4-byte aligned; floats everywhere but
// indices and joints. Everything the Khronos validator checks as an error is enforced here:
// unit rotations, normals and tangents, tangent handedness of exactly +-1, weights that sum to
// one with no joint repeated per vertex, min/max on positions and animation inputs, and
// inverse bind matrices whose last row is 0 0 0 1.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "export/gltf_document.h"
#include "export/gltf_morph_export.h"
#include "marrow/io/atomic_file.h"
#include "marrow/io/gltf_export.h"
#include "marrow/io/material.h"
#include "marrow/skin/morph.h"

namespace marrow {
namespace {

using gltf_out::Document;
using gltf_out::ExportError;
using gltf_out::Json;
using gltf_out::kArrayBuffer;
using gltf_out::kElementArrayBuffer;
using gltf_out::kFloat;
using gltf_out::kUnsignedByte;
using gltf_out::kUnsignedInt;
using gltf_out::kUnsignedShort;

class Writer {
 public:
  Writer(const Asset& asset, std::vector<std::string>* notes)
      : asset_(asset), notes_(notes), morphs_(MorphLayout::build(asset.meshes)) {}

  Document run() {
    doc_.json["asset"] = {{"version", "2.0"}, {"generator", "marrow"}};
    offset_ = skins_need_a_common_root() ? 1 : 0;
    write_nodes();
    write_skins();
    write_materials();
    write_meshes();
    write_animations();
    if (!roots_.empty()) {
      doc_.json["scenes"] = Json::array({{{"nodes", roots_}}});
      doc_.json["scene"] = 0;
    }
    return std::move(doc_);
  }

 private:
  const Asset& asset_;
  std::vector<std::string>* notes_;
  Document doc_;
  Json nodes_ = Json::array();
  std::vector<int> roots_;
  // 1 when a node is put above the skeleton's roots (see skins_need_a_common_root): every
  // joint's node index is then its joint index + 1.
  int offset_ = 0;
  MorphLayout morphs_;
  // Per joint with morph targets: the glTF nodes holding its meshes (usually the joint's own).
  std::map<JointIndex, std::vector<int>> morph_nodes_;
  std::set<std::string> used_extensions_;

  int node_of(std::size_t joint) const { return static_cast<int>(joint) + offset_; }

  // glTF requires a skin's joints to share a common root; a skeleton that is a forest may give
  // a skin joints under two roots. Then one root node is added above all of them.
  bool skins_need_a_common_root() const {
    const Skeleton& s = asset_.skeleton;
    auto top = [&s](JointIndex j) {
      while (j < s.size() && s.parent(j) != kNoParent) j = s.parent(j);
      return j;
    };
    for (const Skin& skin : asset_.skins) {
      for (JointIndex j : skin.joints) {
        if (j < s.size() && !skin.joints.empty() && skin.joints[0] < s.size() &&
            top(j) != top(skin.joints[0]))
          return true;
      }
    }
    return false;
  }

  void note(std::string text) {
    if (notes_) notes_->push_back(std::move(text));
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw ExportError{(asset_.source.empty() ? std::string("asset") : asset_.source) + ": " + what};
  }

  static Json vec(std::initializer_list<float> v) {
    Json a = Json::array();
    for (float f : v) a.push_back(static_cast<double>(f));
    return a;
  }

  void write_nodes() {
    const Skeleton& s = asset_.skeleton;
    if (offset_ == 1) {
      nodes_.push_back({{"name", "marrow_root"}});
      roots_.push_back(0);
      note(
          "a skin's joints lie under different roots, which glTF forbids: a node 'marrow_root' "
          "was added above the skeleton's roots (a re-import reads it as an extra joint)");
    }
    for (std::size_t j = 0; j < s.size(); ++j) {
      const Transform& r = s.rest_pose()[j];
      if (!is_finite(r)) fail("joint '" + s.name(j) + "': rest transform is not finite");
      Json node = Json::object();
      if (!s.name(j).empty()) node["name"] = s.name(j);
      if (r.translation != Vec3{0, 0, 0})
        node["translation"] = vec({r.translation.x, r.translation.y, r.translation.z});
      const Quat q = normalize(r.rotation);
      if (q != Quat::identity()) node["rotation"] = vec({q.x, q.y, q.z, q.w});
      if (r.scale != Vec3{1, 1, 1}) node["scale"] = vec({r.scale.x, r.scale.y, r.scale.z});
      nodes_.push_back(std::move(node));
      if (s.parent(j) == kNoParent) {
        if (offset_ == 1)
          nodes_[0]["children"].push_back(node_of(j));
        else
          roots_.push_back(node_of(j));
      } else {
        nodes_[static_cast<std::size_t>(node_of(s.parent(j)))]["children"].push_back(node_of(j));
      }
    }
  }

  // The glTF skin's `skeleton` must be a common root of its joints; written only when it is.
  bool is_common_root(JointIndex root, const Skin& skin) const {
    for (JointIndex j : skin.joints) {
      if (!asset_.skeleton.is_descendant(j, root)) return false;
    }
    return true;
  }

  void write_skins() {
    if (asset_.skins.empty()) return;
    Json skins = Json::array();
    for (std::size_t k = 0; k < asset_.skins.size(); ++k) {
      const Skin& skin = asset_.skins[k];
      if (skin.joints.empty()) fail("skin " + std::to_string(k) + " has no joints");
      if (skin.inverse_bind_matrices.size() != skin.joints.size())
        fail("skin " + std::to_string(k) + ": joints and inverse bind matrices differ in count");
      Json out = Json::object();
      if (!skin.name.empty()) out["name"] = skin.name;
      Json joints = Json::array();
      for (JointIndex j : skin.joints) {
        if (j >= asset_.skeleton.size())
          fail("skin " + std::to_string(k) + ": joint " + std::to_string(j) + " out of range");
        joints.push_back(node_of(j));
      }
      out["joints"] = std::move(joints);
      std::vector<float> matrices;
      for (const Mat4& m : skin.inverse_bind_matrices) {
        for (int i = 0; i < 16; ++i) {
          if (!std::isfinite(m.m[static_cast<std::size_t>(i)]))
            fail("skin " + std::to_string(k) + ": inverse bind matrix not finite");
        }
        Mat4 affine = m;  // glTF requires the last row to be exactly 0 0 0 1
        affine.m[3] = affine.m[7] = affine.m[11] = 0;
        affine.m[15] = 1;
        matrices.insert(matrices.end(), affine.m.begin(), affine.m.end());
      }
      out["inverseBindMatrices"] = doc_.add_floats(matrices, 16, "MAT4", std::nullopt, false);
      if (skin.root_hint != kNoParent && skin.root_hint < asset_.skeleton.size() &&
          is_common_root(skin.root_hint, skin))
        out["skeleton"] = node_of(skin.root_hint);
      skins.push_back(std::move(out));
    }
    doc_.json["skins"] = std::move(skins);
  }

  // A primitive's attributes; returns nothing for a mesh with no vertices.
  std::optional<Json> write_primitive(const SkinnedMesh& mesh, std::size_t index, bool skinned) {
    const std::string what = "mesh " + std::to_string(index) + " '" + mesh.name + "'";
    const std::size_t n = mesh.vertex_count();
    if (n == 0) {
      note(what + ": has no vertices and is not written");
      return std::nullopt;
    }
    Json attributes = Json::object();
    std::vector<float> floats;
    floats.reserve(n * 3);
    for (const Vec3& p : mesh.positions) {
      if (!is_finite(p)) fail(what + ": a position is not finite");
      floats.insert(floats.end(), {p.x, p.y, p.z});
    }
    attributes["POSITION"] = doc_.add_floats(floats, 3, "VEC3", kArrayBuffer, true);

    if (mesh.normals.size() == n) {
      floats.clear();
      std::size_t replaced = 0;
      for (const Vec3& v : mesh.normals) {
        const float len = length(v);
        if (!(len > 1e-12f) || !std::isfinite(len)) {
          ++replaced;
          floats.insert(floats.end(), {0, 0, 1});
        } else {
          floats.insert(floats.end(), {v.x / len, v.y / len, v.z / len});
        }
      }
      if (replaced > 0)
        note(what + ": " + std::to_string(replaced) +
             " zero or non-finite normals written as (0, 0, 1)");
      attributes["NORMAL"] = doc_.add_floats(floats, 3, "VEC3", kArrayBuffer, false);
    }
    if (mesh.tangents.size() == n) {
      floats.clear();
      bool usable = true;
      for (const auto& t : mesh.tangents) {
        const float len = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        if (!(len > 1e-12f) || !std::isfinite(len) || !std::isfinite(t[3])) {
          usable = false;
          break;
        }
        floats.insert(floats.end(), {t[0] / len, t[1] / len, t[2] / len, t[3] < 0 ? -1.f : 1.f});
      }
      if (usable)
        attributes["TANGENT"] = doc_.add_floats(floats, 4, "VEC4", kArrayBuffer, false);
      else
        note(what + ": tangents dropped (some are zero or not finite)");
    }
    if (mesh.uvs.size() == n) {
      floats.clear();
      for (const auto& uv : mesh.uvs) {
        if (!std::isfinite(uv[0]) || !std::isfinite(uv[1])) fail(what + ": a UV is not finite");
        floats.insert(floats.end(), {uv[0], uv[1]});
      }
      attributes["TEXCOORD_0"] = doc_.add_floats(floats, 2, "VEC2", kArrayBuffer, false);
    }
    if (mesh.colors.size() == n) {
      floats.clear();
      for (const auto& c : mesh.colors) {
        for (float f : c)
          if (!std::isfinite(f)) fail(what + ": a vertex colour is not finite");
        // glTF's colours are linear in [0, 1].
        for (float f : c) floats.push_back(std::clamp(f, 0.0f, 1.0f));
      }
      attributes["COLOR_0"] = doc_.add_floats(floats, 4, "VEC4", kArrayBuffer, false);
    }
    if (skinned) write_influences(mesh, what, attributes);

    Json primitive = {{"attributes", std::move(attributes)}};
    if (mesh.material >= 0 && static_cast<std::size_t>(mesh.material) < asset_.materials.size())
      primitive["material"] = mesh.material;
    gltf_out::write_targets(doc_, mesh, what, morphs_.find(mesh.node), primitive, notes_,
                            asset_.source.empty() ? std::string("asset") : asset_.source);
    if (!mesh.indices.empty()) {
      if (mesh.indices.size() % 3 != 0)
        fail(what + ": " + std::to_string(mesh.indices.size()) +
             " indices do not make whole triangles");
      for (std::uint32_t i : mesh.indices) {
        if (i >= n) fail(what + ": index " + std::to_string(i) + " is past the last vertex");
      }
      // 0xFFFF and 0xFFFFFFFF are primitive-restart values glTF forbids as indices.
      if (n < 0xFFFF) {
        std::vector<std::uint16_t> shorts(mesh.indices.begin(), mesh.indices.end());
        primitive["indices"] =
            doc_.add_integers(shorts, kUnsignedShort, "SCALAR", shorts.size(), kElementArrayBuffer);
      } else {
        primitive["indices"] = doc_.add_integers(mesh.indices, kUnsignedInt, "SCALAR",
                                                 mesh.indices.size(), kElementArrayBuffer);
      }
      primitive["mode"] = 4;
    } else if (n % 3 == 0) {
      primitive["mode"] = 4;
    } else {
      primitive["mode"] = 0;
      note(what + ": no indices and a vertex count not divisible by 3; written as points");
    }
    return primitive;
  }

  // The images glTF can hold (PNG, JPEG), with their bytes as the source encoded them; -1 for
  // one left out, with a note saying why.
  std::vector<int> write_images() {
    std::vector<int> index_of(asset_.images.size(), -1);
    Json images = Json::array();
    for (std::size_t i = 0; i < asset_.images.size(); ++i) {
      const MaterialImage& image = asset_.images[i];
      const std::string what = "image '" + image.name + "'";
      Result<std::vector<std::uint8_t>> bytes = image_bytes(image);
      if (!bytes) {
        note(what + ": " + bytes.error().message + "; its textures are left out");
        continue;
      }
      const std::string mime = image_mime_type(*bytes);
      if (mime.empty()) {
        note(what +
             ": not PNG or JPEG, the encodings glTF holds; its textures are left out "
             "(the .marrow archive keeps it)");
        continue;
      }
      index_of[i] = static_cast<int>(images.size());
      Json entry = {{"mimeType", mime}};
      if (!image.name.empty()) entry["name"] = image.name;
      images.push_back(std::move(entry));
      doc_.images.push_back({static_cast<std::size_t>(index_of[i]), std::move(*bytes), mime});
    }
    if (!images.empty()) doc_.json["images"] = std::move(images);
    return index_of;
  }

  // A textureInfo for `ref`, adding its sampler and texture (each once); nullopt when its image
  // was left out.
  std::optional<Json> texture_info(const TextureRef& ref, const std::string& what,
                                   const std::vector<int>& image_of,
                                   std::map<std::vector<int>, int>& samplers,
                                   std::map<std::pair<int, int>, int>& textures) {
    if (ref.image < 0 || static_cast<std::size_t>(ref.image) >= image_of.size() ||
        image_of[static_cast<std::size_t>(ref.image)] < 0)
      return std::nullopt;
    if (ref.texcoord != 0) {
      // The meshes carry one UV set (TEXCOORD_0): a texture reading another would need an
      // attribute the file does not have, which glTF forbids.
      note(what + " reads TEXCOORD_" + std::to_string(ref.texcoord) +
           ", which marrow's meshes do not carry; left out (the .marrow archive keeps it)");
      return std::nullopt;
    }
    auto wrap = [](TextureWrap w) {
      return w == TextureWrap::kClampToEdge      ? 33071
             : w == TextureWrap::kMirroredRepeat ? 33648
                                                 : 10497;
    };
    const std::vector<int> sampler_key{wrap(ref.wrap_u), wrap(ref.wrap_v), ref.mag_filter,
                                       ref.min_filter};
    auto [s, new_sampler] = samplers.emplace(sampler_key, static_cast<int>(samplers.size()));
    if (new_sampler) {
      Json sampler = {{"wrapS", sampler_key[0]}, {"wrapT", sampler_key[1]}};
      if (ref.mag_filter) sampler["magFilter"] = ref.mag_filter;
      if (ref.min_filter) sampler["minFilter"] = ref.min_filter;
      doc_.json["samplers"].push_back(std::move(sampler));
    }
    const auto texture_key =
        std::make_pair(image_of[static_cast<std::size_t>(ref.image)], s->second);
    auto [t, new_texture] = textures.emplace(texture_key, static_cast<int>(textures.size()));
    if (new_texture)
      doc_.json["textures"].push_back({{"source", texture_key.first}, {"sampler", s->second}});
    Json info = {{"index", t->second}};
    if (ref.transform) {
      const TextureTransform& x = *ref.transform;
      info["extensions"]["KHR_texture_transform"] = {{"offset", vec({x.offset[0], x.offset[1]})},
                                                     {"rotation", static_cast<double>(x.rotation)},
                                                     {"scale", vec({x.scale[0], x.scale[1]})}};
      used_extensions_.insert("KHR_texture_transform");
    }
    return info;
  }

  // glTF's metallic-roughness materials, which is what Material is: everything is kept.
  void write_materials() {
    if (asset_.materials.empty()) return;
    const std::vector<int> image_of = write_images();
    doc_.json["samplers"] = Json::array();
    doc_.json["textures"] = Json::array();
    std::map<std::vector<int>, int> samplers;
    std::map<std::pair<int, int>, int> textures;
    Json materials = Json::array();
    for (const Material& m : asset_.materials) {
      auto texture = [&](const TextureRef& ref, const char* slot = "") {
        return texture_info(ref, "material '" + m.name + "': its " + slot + " texture", image_of,
                            samplers, textures);
      };
      Json pbr = {{"baseColorFactor", vec({m.base_color_factor[0], m.base_color_factor[1],
                                           m.base_color_factor[2], m.base_color_factor[3]})},
                  {"metallicFactor", static_cast<double>(m.metallic_factor)},
                  {"roughnessFactor", static_cast<double>(m.roughness_factor)}};
      if (auto t = texture(m.base_color, "base colour")) pbr["baseColorTexture"] = std::move(*t);
      if (auto t = texture(m.metallic_roughness, "metallic-roughness"))
        pbr["metallicRoughnessTexture"] = std::move(*t);
      Json out = {{"pbrMetallicRoughness", std::move(pbr)}};
      if (!m.name.empty()) out["name"] = m.name;
      if (auto t = texture(m.normal, "normal")) {
        (*t)["scale"] = static_cast<double>(m.normal_scale);
        out["normalTexture"] = std::move(*t);
      }
      if (auto t = texture(m.occlusion, "occlusion")) {
        (*t)["strength"] = static_cast<double>(m.occlusion_strength);
        out["occlusionTexture"] = std::move(*t);
      }
      if (auto t = texture(m.emissive, "emissive")) out["emissiveTexture"] = std::move(*t);
      if (m.emissive_factor != std::array<float, 3>{0, 0, 0})
        out["emissiveFactor"] =
            vec({m.emissive_factor[0], m.emissive_factor[1], m.emissive_factor[2]});
      if (m.emissive_strength != 1) {
        out["extensions"]["KHR_materials_emissive_strength"] = {
            {"emissiveStrength", static_cast<double>(m.emissive_strength)}};
        used_extensions_.insert("KHR_materials_emissive_strength");
      }
      if (m.unlit) {
        out["extensions"]["KHR_materials_unlit"] = Json::object();
        used_extensions_.insert("KHR_materials_unlit");
      }
      if (m.alpha_mode != AlphaMode::kOpaque)
        out["alphaMode"] = m.alpha_mode == AlphaMode::kMask ? "MASK" : "BLEND";
      if (m.alpha_mode == AlphaMode::kMask)
        out["alphaCutoff"] = static_cast<double>(m.alpha_cutoff);
      if (m.double_sided) out["doubleSided"] = true;
      materials.push_back(std::move(out));
    }
    doc_.json["materials"] = std::move(materials);
    if (doc_.json["samplers"].empty()) doc_.json.erase("samplers");
    if (doc_.json["textures"].empty()) doc_.json.erase("textures");
    if (!used_extensions_.empty())
      doc_.json["extensionsUsed"] =
          Json(std::vector<std::string>(used_extensions_.begin(), used_extensions_.end()));
  }

  // JOINTS_n / WEIGHTS_n, four influences per set, weights summing to one per vertex.
  void write_influences(const SkinnedMesh& mesh, const std::string& what, Json& attributes) {
    const std::size_t n = mesh.vertex_count();
    const Skin& skin = asset_.skins[static_cast<std::size_t>(mesh.skin)];
    const std::size_t skin_joints = skin.joints.size();
    if (mesh.influence_joints.size() != mesh.influence_weights.size() ||
        mesh.influence_offsets.front() != 0 ||
        mesh.influence_offsets.back() != mesh.influence_joints.size() ||
        !std::is_sorted(mesh.influence_offsets.begin(), mesh.influence_offsets.end()))
      fail(what + ": influence arrays are inconsistent");
    std::vector<std::vector<std::pair<std::uint16_t, double>>> per_vertex(n);
    std::size_t unweighted = 0, widest = 0;
    for (std::size_t v = 0; v < n; ++v) {
      auto& list = per_vertex[v];
      for (std::uint32_t i = mesh.influence_offsets[v]; i < mesh.influence_offsets[v + 1]; ++i) {
        const std::uint16_t j = mesh.influence_joints[i];
        const float w = mesh.influence_weights[i];
        if (j >= skin_joints)
          fail(what + ": vertex " + std::to_string(v) + " names skin joint " + std::to_string(j) +
               " of " + std::to_string(skin_joints));
        if (!std::isfinite(w) || w < 0)
          fail(what + ": vertex " + std::to_string(v) + " has a negative or non-finite weight");
        if (w == 0) continue;
        auto same = std::find_if(list.begin(), list.end(), [j](auto& p) { return p.first == j; });
        if (same != list.end())
          same->second += w;  // glTF forbids a joint twice per vertex: merge
        else
          list.emplace_back(j, w);
      }
      if (list.empty()) {
        ++unweighted;
        list.emplace_back(0, 1.0);
      }
      std::stable_sort(list.begin(), list.end(),
                       [](auto& a, auto& b) { return a.second > b.second; });
      widest = std::max(widest, list.size());
    }
    if (unweighted > 0)
      note(what + ": " + std::to_string(unweighted) +
           " vertices have no influence; bound to skin joint 0 with weight 1");
    const std::size_t sets = (widest + 3) / 4;
    const bool bytes = skin_joints <= 256;
    std::vector<float> weights(n * sets * 4, 0.f);
    std::vector<std::uint16_t> joints(n * sets * 4, 0);
    for (std::size_t v = 0; v < n; ++v) {
      const auto& list = per_vertex[v];
      double sum = 0;
      for (const auto& p : list) sum += p.second;
      float* w = &weights[v * sets * 4];
      std::uint16_t* jt = &joints[v * sets * 4];
      for (std::size_t i = 0; i < list.size(); ++i) {
        jt[(i / 4) * 4 + i % 4] = list[i].first;
        w[i] = static_cast<float>(list[i].second / sum);
      }
      // The validator sums the stored floats; put the rounding residue on the largest weight.
      float stored = 0;
      for (std::size_t i = 0; i < list.size(); ++i) stored += w[i];
      w[0] += 1.0f - stored;
    }
    // Weights and joints are laid out per vertex above as [set0 x4, set1 x4, ...]; split by set.
    for (std::size_t s = 0; s < sets; ++s) {
      std::vector<float> ws(n * 4);
      std::vector<std::uint16_t> js(n * 4);
      for (std::size_t v = 0; v < n; ++v) {
        for (std::size_t c = 0; c < 4; ++c) {
          ws[v * 4 + c] = weights[v * sets * 4 + s * 4 + c];
          js[v * 4 + c] = joints[v * sets * 4 + s * 4 + c];
        }
      }
      const std::string suffix = "_" + std::to_string(s);
      if (bytes) {
        std::vector<std::uint8_t> jb(js.begin(), js.end());
        attributes["JOINTS" + suffix] =
            doc_.add_integers(jb, kUnsignedByte, "VEC4", n, kArrayBuffer);
      } else {
        attributes["JOINTS" + suffix] =
            doc_.add_integers(js, kUnsignedShort, "VEC4", n, kArrayBuffer);
      }
      attributes["WEIGHTS" + suffix] = doc_.add_floats(ws, 4, "VEC4", kArrayBuffer, false);
    }
  }

  void write_meshes() {
    // Meshes sharing a node and a skin become the primitives of one glTF mesh on that node; a
    // mesh on no node, or on a node already holding a mesh of another skin, gets a new node.
    std::map<std::pair<int, int>, std::vector<std::size_t>> groups;  // (node, skin) -> meshes
    std::vector<std::pair<int, int>> order;
    for (std::size_t m = 0; m < asset_.meshes.size(); ++m) {
      const SkinnedMesh& mesh = asset_.meshes[m];
      const std::string what = "mesh " + std::to_string(m) + " '" + mesh.name + "'";
      int skin = mesh.skin;
      if (skin >= static_cast<int>(asset_.skins.size()) || skin < -1)
        fail(what + ": skin " + std::to_string(skin) + " out of range");
      if (skin >= 0 && mesh.influence_offsets.size() != mesh.vertex_count() + 1) {
        if (!mesh.influence_offsets.empty())
          fail(what + ": influence offsets do not match the vertex count");
        note(what + ": skinned without influences; written as a rigid mesh");
        skin = -1;
      }
      if (mesh.node != kNoParent && mesh.node >= asset_.skeleton.size())
        fail(what + ": node " + std::to_string(mesh.node) + " out of range");
      const int node = mesh.node == kNoParent ? -1 : mesh.node;
      const auto key = std::make_pair(node, skin);
      if (!groups.count(key)) order.push_back(key);
      groups[key].push_back(m);
    }
    std::map<int, bool> node_taken;
    Json meshes = Json::array();
    for (const auto& key : order) {
      Json primitives = Json::array();
      std::string name;
      for (std::size_t m : groups[key]) {
        std::optional<Json> p = write_primitive(asset_.meshes[m], m, key.second >= 0);
        if (p) primitives.push_back(std::move(*p));
        if (name.empty()) name = asset_.meshes[m].name;
      }
      if (primitives.empty()) continue;
      Json mesh = {{"primitives", std::move(primitives)}};
      const MorphSlots* slots =
          key.first < 0 ? nullptr : morphs_.find(static_cast<JointIndex>(key.first));
      if (slots) gltf_out::write_mesh_morph_info(morphs_, *slots, mesh);
      if (!name.empty()) {
        // Our reader names primitives "mesh#p"; strip that so names survive a round trip.
        if (groups[key].size() > 1 && name.size() > 2 && name.ends_with("#0"))
          name.resize(name.size() - 2);
        mesh["name"] = name;
      }
      meshes.push_back(std::move(mesh));
      const int mesh_index = static_cast<int>(meshes.size() - 1);
      int node = key.first < 0 ? -1 : node_of(static_cast<std::size_t>(key.first));
      if (node < 0 || node_taken[node]) {
        Json extra = {{"name", name.empty() ? "mesh" : name}};
        nodes_.push_back(std::move(extra));
        const int added = static_cast<int>(nodes_.size() - 1);
        if (node < 0)
          roots_.push_back(added);
        else
          nodes_[static_cast<std::size_t>(node)]["children"].push_back(added);
        note("mesh '" + name + "': given a node of its own ('" +
             nodes_[static_cast<std::size_t>(added)]["name"].get<std::string>() +
             "'), which a re-import reads as an extra joint");
        node = added;
      }
      node_taken[node] = true;
      if (slots) morph_nodes_[slots->node].push_back(node);
      nodes_[static_cast<std::size_t>(node)]["mesh"] = mesh_index;
      if (key.second >= 0) nodes_[static_cast<std::size_t>(node)]["skin"] = key.second;
    }
    if (!meshes.empty()) doc_.json["meshes"] = std::move(meshes);
    if (!nodes_.empty()) doc_.json["nodes"] = nodes_;
  }

  void write_animations() {
    Json animations = Json::array();
    for (std::size_t c = 0; c < asset_.clips.size(); ++c) {
      const Clip& clip = asset_.clips[c];
      if (clip.tracks().empty() && clip.weight_tracks().empty()) {
        note("clip '" + clip.name() + "': has no tracks; glTF cannot hold an empty animation");
        continue;
      }
      Json samplers = Json::array(), channels = Json::array();
      std::map<std::pair<std::uint32_t, std::uint32_t>, int> inputs;  // shared key times
      for (const Track& track : clip.tracks()) {
        if (track.joint >= asset_.skeleton.size())
          fail("clip '" + clip.name() + "': a track names joint " + std::to_string(track.joint) +
               " of " + std::to_string(asset_.skeleton.size()));
        Interpolation interpolation = track.interpolation;
        const std::uint32_t comps = components_of(track.target);
        const std::span<const float> values = clip.values().subspan(
            track.first_value,
            std::size_t{track.key_count} * floats_per_key(track.target, interpolation));
        std::vector<float> out;
        if (track.key_count == 1 && interpolation == Interpolation::kCubicSpline) {
          // A one-key spline is that key's value; glTF wants two keys for CUBICSPLINE.
          out.assign(values.begin() + comps, values.begin() + 2 * comps);
          interpolation = Interpolation::kStep;
        } else {
          out.assign(values.begin(), values.end());
        }
        const auto input_key = std::make_pair(track.first_key, track.key_count);
        int input;
        if (auto it = inputs.find(input_key); it != inputs.end()) {
          input = it->second;
        } else {
          const std::span<const float> t = clip.times().subspan(track.first_key, track.key_count);
          input = doc_.add_floats(std::vector<float>(t.begin(), t.end()), 1, "SCALAR", std::nullopt,
                                  true);
          inputs[input_key] = input;
        }
        const int output = doc_.add_floats(out, static_cast<int>(comps),
                                           comps == 4 ? "VEC4" : "VEC3", std::nullopt, false);
        samplers.push_back({{"input", input},
                            {"output", output},
                            {"interpolation", std::string(to_string(interpolation))}});
        channels.push_back(
            {{"sampler", samplers.size() - 1},
             {"target",
              {{"node", node_of(track.joint)}, {"path", std::string(to_string(track.target))}}}});
      }
      gltf_out::write_weight_channels(doc_, clip, morphs_, morph_nodes_, samplers, channels,
                                      notes_);
      if (channels.empty()) {
        note("clip '" + clip.name() + "': no channel reaches a node of the output; not written");
        continue;
      }
      Json animation = {{"samplers", std::move(samplers)}, {"channels", std::move(channels)}};
      animation["name"] = clip.name();
      // What glTF has no place for, kept where other tools ignore it.
      Json extras = {{"duration", static_cast<double>(clip.duration())}};
      if (clip.ticks_per_second() > 0) {
        extras["ticksPerSecond"] = clip.ticks_per_second();
        // A rate the source file did not give (a format's default, --ticks-per-second) stays
        // marked as such, so that a later reading can tell it from the file's own.
        if (asset_.rate_source(c) != RateSource::kFile)
          extras["ticksPerSecondFrom"] = std::string(rate_source_name(asset_.rate_source(c)));
      }
      if (!clip.events().empty()) {
        Json events = Json::array();
        for (const ClipEvent& e : clip.events())
          events.push_back({{"time", static_cast<double>(e.time)}, {"name", e.name}});
        extras["events"] = std::move(events);
      }
      animation["extras"] = {{"marrow", std::move(extras)}};
      animations.push_back(std::move(animation));
    }
    if (!animations.empty()) doc_.json["animations"] = std::move(animations);
  }
};

Result<Document> build_document(const Asset& asset, std::vector<std::string>* notes) {
  try {
    return Writer(asset, notes).run();
  } catch (const ExportError& e) {
    return Error{e.message};
  }
}

// Images into the binary buffer (bufferView and mimeType), then the buffer's entry.
void place_images_in_buffer(Document& doc) {
  for (const gltf_out::ImageOut& image : doc.images) {
    doc.json["images"][image.index]["bufferView"] =
        doc.add_view(image.bytes.data(), image.bytes.size(), std::nullopt);
  }
  doc.images.clear();
}

void finish_buffer(Document& doc) {
  if (doc.bin.empty()) return;
  while (doc.bin.size() % 4 != 0) doc.bin.push_back(0);
  doc.json["buffers"] = Json::array({{{"byteLength", doc.bin.size()}}});
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

std::vector<std::uint8_t> glb_bytes(const Document& doc) {
  std::string json = doc.json.dump();
  while (json.size() % 4 != 0) json.push_back(' ');
  std::vector<std::uint8_t> out;
  const std::size_t total = 12 + 8 + json.size() + (doc.bin.empty() ? 0 : 8 + doc.bin.size());
  out.reserve(total);
  put_u32(out, 0x46546C67);  // "glTF"
  put_u32(out, 2);
  put_u32(out, static_cast<std::uint32_t>(total));
  put_u32(out, static_cast<std::uint32_t>(json.size()));
  put_u32(out, 0x4E4F534A);  // "JSON"
  out.insert(out.end(), json.begin(), json.end());
  if (!doc.bin.empty()) {
    put_u32(out, static_cast<std::uint32_t>(doc.bin.size()));
    put_u32(out, 0x004E4942);  // "BIN\0"
    out.insert(out.end(), doc.bin.begin(), doc.bin.end());
  }
  return out;
}

std::string base64(const std::vector<std::uint8_t>& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t b = std::uint32_t(bytes[i]) << 16 |
                            (i + 1 < bytes.size() ? std::uint32_t(bytes[i + 1]) << 8 : 0) |
                            (i + 2 < bytes.size() ? std::uint32_t(bytes[i + 2]) : 0);
    out.push_back(table[(b >> 18) & 63]);
    out.push_back(table[(b >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? table[(b >> 6) & 63] : '=');
    out.push_back(i + 2 < bytes.size() ? table[b & 63] : '=');
  }
  return out;
}

// A relative URI for a file name: everything but RFC 3986's unreserved characters escaped.
std::string uri_of(const std::string& name) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', hex[c >> 4], hex[c & 15]};
    }
  }
  return out;
}

std::vector<std::uint8_t> json_bytes(const Json& json) {
  const std::string text = json.dump(1);
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

// Checked here so the writers fail before producing anything: GLB lengths are 32-bit.
Status check_size(const Document& doc, const Asset& asset) {
  if (doc.bin.size() > 0xF0000000u)
    return Error{asset.source + ": the binary data (" + std::to_string(doc.bin.size()) +
                 " bytes) does not fit a glTF buffer of 32-bit length"};
  return {};
}

}  // namespace

Result<std::vector<std::uint8_t>> export_glb(const Asset& asset, std::vector<std::string>* notes) {
  Result<Document> doc = build_document(asset, notes);
  if (!doc) return doc.error();
  place_images_in_buffer(*doc);
  finish_buffer(*doc);
  if (Status st = check_size(*doc, asset); !st) return st.error();
  return glb_bytes(*doc);
}

Result<std::vector<std::uint8_t>> export_gltf_embedded(const Asset& asset,
                                                       std::vector<std::string>* notes) {
  Result<Document> doc = build_document(asset, notes);
  if (!doc) return doc.error();
  place_images_in_buffer(*doc);
  finish_buffer(*doc);
  if (Status st = check_size(*doc, asset); !st) return st.error();
  if (!doc->bin.empty())
    doc->json["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64(doc->bin);
  return json_bytes(doc->json);
}

Status write_gltf(const Asset& asset, const std::string& path, const GltfExportOptions& options,
                  std::vector<std::string>* notes) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".glb") {
    Result<std::vector<std::uint8_t>> bytes = export_glb(asset, notes);
    if (!bytes) return bytes.error();
    return write_file_atomically(path, *bytes);
  }
  if (ext != ".gltf") return Error{path + ": glTF export writes .glb or .gltf, not '" + ext + "'"};
  if (options.embed_buffer) {
    Result<std::vector<std::uint8_t>> bytes = export_gltf_embedded(asset, notes);
    if (!bytes) return bytes.error();
    return write_file_atomically(path, *bytes);
  }
  Result<Document> doc = build_document(asset, notes);
  if (!doc) return doc.error();
  finish_buffer(*doc);
  if (Status st = check_size(*doc, asset); !st) return st.error();
  // The images as files beside the .gltf, with the bytes the source had: <stem>_image<n>.png.
  const std::filesystem::path p(path);
  std::vector<FileContents> files;
  for (const gltf_out::ImageOut& image : doc->images) {
    const std::string name = p.stem().string() + "_image" + std::to_string(image.index) +
                             (image.mime_type == "image/png" ? ".png" : ".jpg");
    doc->json["images"][image.index]["uri"] = uri_of(name);
    files.push_back({(p.parent_path() / name).string(), image.bytes});
  }
  if (!doc->bin.empty()) {
    const std::filesystem::path bin_path = p.parent_path() / (p.stem().string() + ".bin");
    doc->json["buffers"][0]["uri"] = uri_of(bin_path.filename().string());
    files.push_back({bin_path.string(), doc->bin});
  }
  // The .gltf last: it appears only once every file it refers to is complete.
  const std::vector<std::uint8_t> text = json_bytes(doc->json);
  files.push_back({path, text});
  return write_files_atomically(files);
}

}  // namespace marrow
