// assimp → Asset. What assimp bends and how this layer corrects it: docs/formats_assimp.md.
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "assimp/assimp_morph.h"
#include "common/budget.h"
#include "common/reader_support.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/assimp_import.h"
#include "marrow/io/material.h"

namespace marrow {
namespace {

// assimp's own convention for an animation that gives no rate (aiAnimation::mTicksPerSecond
// is 0 "if not specified"): its viewer and most engines then assume 25 ticks per second.
constexpr double kDefaultTicksPerSecond = 25.0;

constexpr const char* kFbxHelperTag = "$AssimpFbx$";

// aiMatrix4x4 is row-major: a1..a4 is the first row and (a4, b4, c4) the translation.
// Mat4 is column-major: operator()(row, column).
Mat4 to_mat4(const aiMatrix4x4& a) {
  Mat4 r;
  const float rows[4][4] = {{a.a1, a.a2, a.a3, a.a4},
                            {a.b1, a.b2, a.b3, a.b4},
                            {a.c1, a.c2, a.c3, a.c4},
                            {a.d1, a.d2, a.d3, a.d4}};
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 4; ++col) r(row, col) = rows[row][col];
  return r;
}

// aiQuaternion's fields are w, x, y, z; marrow's Quat is x, y, z, w.
Quat to_quat(const aiQuaternion& q) {
  return {q.x, q.y, q.z, q.w};
}

bool is_helper(const aiNode* node) {
  return std::string_view(node->mName.C_Str()).find(kFbxHelperTag) != std::string_view::npos;
}

bool finite_matrix(const aiMatrix4x4& m) {
  const float* p = &m.a1;
  return std::all_of(p, p + 16, [](float f) { return std::isfinite(f); });
}

// a ∘ b for TRS: exact when a's scale is uniform (or a has no rotation); otherwise the scale
// part is the per-axis product, which is what the helper fold documents.
Transform compose(const Transform& a, const Transform& b) {
  Transform r;
  r.translation = a.translation + rotate(a.rotation, mul(a.scale, b.translation));
  r.rotation = normalize(a.rotation * b.rotation);
  r.scale = mul(a.scale, b.scale);
  return r;
}

struct Reader {
  std::string name;
  std::string ext;
  const aiScene* scene = nullptr;
  double ticks_per_second_option = 0;
  Asset asset;

  std::vector<JointDesc> descs;
  std::vector<const aiNode*> desc_nodes;
  // Per description: static transform of folded $AssimpFbx$ helper ancestors, applied in
  // front of the joint's own local transform (identity for almost every joint).
  std::vector<Transform> prefix;
  std::vector<JointIndex> joint_of_desc;
  std::unordered_map<const aiNode*, std::size_t> desc_of_node;
  std::unordered_map<std::string, std::size_t> desc_of_name;
  std::vector<std::string> folded_helpers;

  Status fail(const std::string& where, const std::string& what) const {
    return make_error(where.empty() ? name : name + ": " + where, what);
  }

  Transform decompose_node(const aiNode* node, const std::string& where) {
    const Decomposition d = decompose(to_mat4(node->mTransformation));
    if (!d.exact) {
      asset.warnings.push_back(where + " '" + node->mName.C_Str() +
                               "': transformation has shear or zero scale that TRS cannot hold; "
                               "shear dropped");
    }
    return d.transform;
  }

  // Depth-first, parents first. Helper nodes are folded into their children.
  Status read_nodes() {
    struct Item {
      const aiNode* node;
      std::int64_t parent;
      Transform prefix;
      std::size_t depth;
    };
    std::vector<Item> stack{{scene->mRootNode, -1, Transform::identity(), 0}};
    std::size_t source = 0;
    std::vector<std::int64_t> source_of_desc;
    while (!stack.empty()) {
      const Item item = stack.back();
      stack.pop_back();
      const aiNode* node = item.node;
      const std::int64_t index = static_cast<std::int64_t>(source++);
      if (item.depth > io::kMaxNestingDepth) {
        return fail(std::string("node '") + node->mName.C_Str() + "'",
                    "lies more than " + std::to_string(io::kMaxNestingDepth) +
                        " nodes below its root; marrow reads hierarchies at most that deep");
      }
      if (!finite_matrix(node->mTransformation)) {
        return fail(std::string("node '") + node->mName.C_Str() + "'",
                    "transformation is not finite");
      }
      const Transform local = decompose_node(node, "node");
      std::int64_t parent_for_children;
      Transform prefix_for_children = Transform::identity();
      if (is_helper(node)) {
        // Folded: its children hang under its parent with this transform in front of theirs.
        folded_helpers.emplace_back(node->mName.C_Str());
        parent_for_children = item.parent;
        prefix_for_children = compose(item.prefix, local);
      } else {
        const std::size_t d = descs.size();
        JointDesc desc;
        desc.name = node->mName.C_Str();
        desc.parent = item.parent;
        desc.rest = compose(item.prefix, local);
        descs.push_back(std::move(desc));
        desc_nodes.push_back(node);
        prefix.push_back(item.prefix);
        source_of_desc.push_back(index);
        desc_of_node[node] = d;
        desc_of_name.emplace(descs.back().name, d);  // the first node of a name wins
        parent_for_children = static_cast<std::int64_t>(d);
      }
      for (unsigned c = node->mNumChildren; c-- > 0;) {
        if (!node->mChildren[c]) return fail("", "null child node");
        stack.push_back(
            {node->mChildren[c], parent_for_children, prefix_for_children, item.depth + 1});
      }
    }
    if (!folded_helpers.empty()) {
      asset.warnings.push_back(std::to_string(folded_helpers.size()) +
                               " $AssimpFbx$ helper node(s) folded into their children");
    }
    Result<Skeleton> skeleton = Skeleton::build(descs, name + ": nodes", &joint_of_desc);
    if (!skeleton) return skeleton.error();
    asset.skeleton = std::move(skeleton).value();
    asset.source_index.assign(asset.skeleton.size(), -1);
    for (std::size_t d = 0; d < joint_of_desc.size(); ++d)
      asset.source_index[joint_of_desc[d]] = source_of_desc[d];
    return {};
  }

  std::vector<const aiNode*> mesh_owner() const {
    std::vector<const aiNode*> owner(scene->mNumMeshes, nullptr);
    for (std::size_t d = 0; d < desc_nodes.size(); ++d) {
      const aiNode* node = desc_nodes[d];
      for (unsigned i = 0; i < node->mNumMeshes; ++i) {
        const unsigned m = node->mMeshes[i];
        if (m < owner.size() && !owner[m]) owner[m] = node;
      }
    }
    return owner;
  }

  // A texture of `material` as an image: embedded (FBX's "*n" or a file name assimp matched to
  // embedded content) with its encoded bytes, or a file beside the document. -1 when there is
  // none or it cannot be kept as encoded bytes (a note says so).
  int texture_image(const aiMaterial* material, aiTextureType type, const std::string& what,
                    std::map<std::string, int>& images) {
    aiString reference;
    if (material->GetTexture(type, 0, &reference) != AI_SUCCESS || reference.length == 0) return -1;
    const std::string ref = reference.C_Str();
    if (const auto it = images.find(ref); it != images.end()) return it->second;
    MaterialImage image;
    image.name = ref;
    if (const aiTexture* embedded = scene->GetEmbeddedTexture(reference.C_Str())) {
      if (embedded->mHeight != 0 || !embedded->pcData) {
        asset.warnings.push_back(what + ": texture " + io::quote_token(ref) +
                                 " is embedded as raw texels, not an encoded image; left out");
        return images[ref] = -1;
      }
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(embedded->pcData);
      image.bytes.assign(bytes, bytes + embedded->mWidth);
      image.mime_type = image_mime_type(image.bytes);
    } else {
      image.path = io::image_path_beside(name, ref, what, asset.warnings);
    }
    asset.images.push_back(std::move(image));
    return images[ref] = static_cast<int>(asset.images.size() - 1);
  }

  // FBX's Lambert and Phong materials as metallic-roughness ones: the diffuse colour (a display
  // value, made linear) and opacity, the emissive colour, two-sidedness, and the diffuse,
  // normal and emissive textures. One per assimp material, in order, so mMaterialIndex holds.
  void read_materials() {
    std::map<std::string, int> images;
    for (unsigned i = 0; i < scene->mNumMaterials; ++i) {
      const aiMaterial* src = scene->mMaterials[i];
      Material m;
      aiString material_name;
      if (src->Get(AI_MATKEY_NAME, material_name) == AI_SUCCESS) m.name = material_name.C_Str();
      const std::string what = "material " + std::to_string(i) + " '" + m.name + "'";
      aiColor3D colour;
      if (src->Get(AI_MATKEY_COLOR_DIFFUSE, colour) == AI_SUCCESS)
        m.base_color_factor = {io::linear_from_display(colour.r), io::linear_from_display(colour.g),
                               io::linear_from_display(colour.b), 1};
      float opacity = 1;
      if (src->Get(AI_MATKEY_OPACITY, opacity) == AI_SUCCESS && std::isfinite(opacity)) {
        if (opacity > 0 && opacity < 1) {
          m.base_color_factor[3] = opacity;
          m.alpha_mode = AlphaMode::kBlend;
        } else if (opacity <= 0) {
          asset.warnings.push_back(what + ": opacity 0 would hide it; drawn opaque");
        }
      }
      if (src->Get(AI_MATKEY_COLOR_EMISSIVE, colour) == AI_SUCCESS)
        m.emissive_factor = {io::linear_from_display(colour.r), io::linear_from_display(colour.g),
                             io::linear_from_display(colour.b)};
      int two_sided = 0;
      if (src->Get(AI_MATKEY_TWOSIDED, two_sided) == AI_SUCCESS) m.double_sided = two_sided != 0;
      m.base_color.image = texture_image(src, aiTextureType_DIFFUSE, what, images);
      m.normal.image = texture_image(src, aiTextureType_NORMALS, what, images);
      m.emissive.image = texture_image(src, aiTextureType_EMISSIVE, what, images);
      if (m.emissive.present() && m.emissive_factor == std::array<float, 3>{0, 0, 0})
        m.emissive_factor = {1, 1, 1};
      asset.materials.push_back(std::move(m));
    }
  }

  Status read_meshes() {
    const std::vector<const aiNode*> owner = mesh_owner();
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
      const aiMesh* src = scene->mMeshes[m];
      const std::string where = "mesh " + std::to_string(m) + " '" + src->mName.C_Str() + "'";
      if (!src->mVertices || src->mNumVertices == 0) {
        asset.warnings.push_back(where + ": no vertices, skipped");
        continue;
      }
      SkinnedMesh mesh;
      mesh.name = src->mName.C_Str();
      if (src->mMaterialIndex < asset.materials.size())
        mesh.material = static_cast<int>(src->mMaterialIndex);
      if (owner[m]) {
        mesh.node = joint_of_desc[desc_of_node.at(owner[m])];
      } else {
        asset.warnings.push_back(where + ": no node references it");
      }
      const unsigned nv = src->mNumVertices;
      mesh.positions.reserve(nv);
      for (unsigned v = 0; v < nv; ++v) {
        const aiVector3D& p = src->mVertices[v];
        mesh.positions.push_back({p.x, p.y, p.z});
        if (!is_finite(mesh.positions.back()))
          return fail(where, "vertex " + std::to_string(v) + " is not finite");
      }
      if (src->mNormals) {
        for (unsigned v = 0; v < nv; ++v)
          mesh.normals.push_back({src->mNormals[v].x, src->mNormals[v].y, src->mNormals[v].z});
      }
      if (src->mNormals && src->mTangents && src->mBitangents) {
        for (unsigned v = 0; v < nv; ++v) {
          const Vec3 n = mesh.normals[v];
          const Vec3 t{src->mTangents[v].x, src->mTangents[v].y, src->mTangents[v].z};
          const Vec3 b{src->mBitangents[v].x, src->mBitangents[v].y, src->mBitangents[v].z};
          mesh.tangents.push_back({t.x, t.y, t.z, dot(cross(n, t), b) < 0 ? -1.0f : 1.0f});
        }
      }
      if (src->mTextureCoords[0]) {
        for (unsigned v = 0; v < nv; ++v)
          mesh.uvs.push_back({src->mTextureCoords[0][v].x, src->mTextureCoords[0][v].y});
      }
      std::size_t skipped_faces = 0;
      for (unsigned f = 0; f < src->mNumFaces; ++f) {
        const aiFace& face = src->mFaces[f];
        if (face.mNumIndices != 3) {
          ++skipped_faces;
          continue;
        }
        for (unsigned k = 0; k < 3; ++k) {
          if (face.mIndices[k] >= nv) {
            return fail(where, "face " + std::to_string(f) + " uses vertex " +
                                   std::to_string(face.mIndices[k]) + " of " + std::to_string(nv));
          }
          mesh.indices.push_back(face.mIndices[k]);
        }
      }
      if (skipped_faces) {
        asset.warnings.push_back(where + ": " + std::to_string(skipped_faces) +
                                 " point/line faces skipped");
      }
      if (src->mNumBones > 0) {
        Status st = read_skin(src, where, mesh);
        if (!st) return st;
      }
      if (Status st = assimp_detail::read_anim_meshes(src, name + ": " + where, mesh); !st)
        return st;
      asset.meshes.push_back(std::move(mesh));
    }
    return {};
  }

  Status read_skin(const aiMesh* src, const std::string& where, SkinnedMesh& mesh) {
    Skin skin;
    skin.name = mesh.name;
    std::unordered_map<JointIndex, std::uint16_t> skin_index_of_joint;
    // Summed in double: two large weights of one vertex overflow a float sum (then NaN weights).
    std::vector<std::vector<std::pair<std::uint16_t, double>>> per_vertex(src->mNumVertices);
    std::size_t duplicate_bones = 0;
    for (unsigned b = 0; b < src->mNumBones; ++b) {
      const aiBone* bone = src->mBones[b];
      const std::string bw =
          where + " bone " + std::to_string(b) + " '" + bone->mName.C_Str() + "'";
      const auto found = desc_of_name.find(bone->mName.C_Str());
      if (found == desc_of_name.end()) return fail(bw, "names no node of the hierarchy");
      const JointIndex joint = joint_of_desc[found->second];
      if (!finite_matrix(bone->mOffsetMatrix)) return fail(bw, "offset matrix is not finite");
      const auto [it, inserted] =
          skin_index_of_joint.emplace(joint, static_cast<std::uint16_t>(skin.joints.size()));
      // A copy, not the binding: lambdas may not capture structured bindings before C++20's
      // P1091 (clang 14 refuses it).
      const std::uint16_t skin_joint = it->second;
      if (inserted) {
        if (skin.joints.size() >= 65535) return fail(bw, "more than 65535 bones in one mesh");
        skin.joints.push_back(joint);
        skin.inverse_bind_matrices.push_back(to_mat4(bone->mOffsetMatrix));
      } else {
        ++duplicate_bones;
      }
      for (unsigned w = 0; w < bone->mNumWeights; ++w) {
        const aiVertexWeight& vw = bone->mWeights[w];
        if (vw.mVertexId >= src->mNumVertices) {
          return fail(bw, "weight " + std::to_string(w) + " names vertex " +
                              std::to_string(vw.mVertexId) + " of " +
                              std::to_string(src->mNumVertices));
        }
        if (!std::isfinite(vw.mWeight) || vw.mWeight < 0) {
          return fail(bw, "weight " + std::to_string(w) + " is " + std::to_string(vw.mWeight));
        }
        if (vw.mWeight == 0) continue;
        auto& list = per_vertex[vw.mVertexId];
        auto same = std::find_if(list.begin(), list.end(),
                                 [&](const auto& p) { return p.first == skin_joint; });
        if (same != list.end())
          same->second += vw.mWeight;
        else
          list.emplace_back(skin_joint, vw.mWeight);
      }
    }
    if (duplicate_bones) {
      asset.warnings.push_back(where + ": " + std::to_string(duplicate_bones) +
                               " bones repeat a joint; their weights were merged");
    }
    mesh.influence_offsets.assign(1, 0);
    std::size_t unweighted = 0;
    for (auto& list : per_vertex) {
      std::stable_sort(list.begin(), list.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
      double sum = 0;
      for (const auto& p : list) sum += p.second;
      if (sum > 0) {
        for (const auto& p : list) {
          mesh.influence_joints.push_back(p.first);
          mesh.influence_weights.push_back(static_cast<float>(p.second / sum));
        }
      } else {
        ++unweighted;
      }
      mesh.influence_offsets.push_back(static_cast<std::uint32_t>(mesh.influence_joints.size()));
    }
    if (unweighted) {
      asset.warnings.push_back(where + ": " + std::to_string(unweighted) +
                               " vertices have no weight");
    }
    mesh.skin = static_cast<int>(asset.skins.size());
    asset.skins.push_back(std::move(skin));
    return {};
  }

  // Keys to seconds; equal times are merged keeping the last key (assimp emits duplicates).
  template <typename Key, typename Fn>
  Status keys(const Key* src, unsigned count, double ticks_per_second, const std::string& where,
              std::size_t components, Fn&& value_of, std::vector<float>& times,
              std::vector<float>& values, std::size_t& merged) {
    times.clear();
    values.clear();
    for (unsigned k = 0; k < count; ++k) {
      const double ticks = src[k].mTime;
      if (!std::isfinite(ticks))
        return fail(where, "key " + std::to_string(k) + " has a non-finite time");
      const float t = static_cast<float>(ticks / ticks_per_second);
      if (!times.empty() && t <= times.back()) {
        if (t < times.back()) {
          return fail(where, "key " + std::to_string(k) + " at tick " + std::to_string(ticks) +
                                 " goes back in time");
        }
        ++merged;
        times.pop_back();
        values.resize(values.size() - components);
      }
      times.push_back(t);
      value_of(src[k], values);
    }
    return {};
  }

  bool collada_names_clips() const {
    // assimp merges every <animation> of a Collada file without <library_animation_clips> into
    // one aiAnimation named after the first animated node; we name that clip after the file.
    std::ifstream in(name, std::ios::binary);
    if (!in) return true;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.find("<animation_clip") != std::string::npos;
  }

  Status read_clips() {
    const MorphLayout morphs = MorphLayout::build(asset.meshes);
    const auto joint_of_node = [this](const std::string& node) -> std::optional<JointIndex> {
      const auto found = desc_of_name.find(node);
      if (found == desc_of_name.end()) return std::nullopt;
      return joint_of_desc[found->second];
    };
    const bool collada = ext == ".dae";
    const bool rename_collada = collada && scene->mNumAnimations == 1 && !collada_names_clips();
    for (unsigned a = 0; a < scene->mNumAnimations; ++a) {
      const aiAnimation* anim = scene->mAnimations[a];
      std::string clip_name = anim->mName.C_Str();
      if (rename_collada) {
        const std::string stem = std::filesystem::path(name).stem().string();
        asset.warnings.push_back("animation '" + clip_name + "': assimp names Collada's merged " +
                                 "animation after its first node; named '" + stem + "'");
        clip_name = stem;
      }
      if (clip_name.empty()) clip_name = "animation" + std::to_string(a);
      const std::string aw = "animation " + std::to_string(a) + " '" + clip_name + "'";
      double tps = anim->mTicksPerSecond;
      if (!std::isfinite(tps) || tps < 0) return fail(aw, "ticks per second is not valid");
      RateSource source = RateSource::kFile;
      if (tps == 0 && ticks_per_second_option > 0) {
        tps = ticks_per_second_option;
        source = RateSource::kOption;
      } else if (tps == 0) {
        tps = kDefaultTicksPerSecond;
        source = RateSource::kDefault;
        asset.warnings.push_back(aw + ": no ticks per second given; assumed 25 (assimp's default)");
      }
      ClipBuilder builder(clip_name);
      builder.set_weight_count(morphs.weight_count());
      // assimp's Collada loader counts in milliseconds (1000 ticks/s) that the file never had:
      // Collada times are seconds.
      builder.set_ticks_per_second(collada ? 0.0 : tps);
      std::size_t merged = 0;
      std::vector<float> times, values;
      for (unsigned c = 0; c < anim->mNumChannels; ++c) {
        const aiNodeAnim* ch = anim->mChannels[c];
        const std::string node_name = ch->mNodeName.C_Str();
        const std::string cw = aw + " channel " + std::to_string(c) + " '" + node_name + "'";
        if (node_name.find(kFbxHelperTag) != std::string::npos) {
          asset.warnings.push_back(cw + ": animates a folded $AssimpFbx$ helper node; dropped");
          continue;
        }
        const auto found = desc_of_name.find(node_name);
        if (found == desc_of_name.end()) {
          asset.warnings.push_back(cw + ": names no node; dropped");
          continue;
        }
        const std::size_t d = found->second;
        const JointIndex joint = joint_of_desc[d];
        const Transform pre = prefix[d];
        if (ch->mNumPositionKeys) {
          Status st = keys(
              ch->mPositionKeys, ch->mNumPositionKeys, tps, cw + " position", 3,
              [&](const aiVectorKey& k, std::vector<float>& out) {
                const Vec3 p =
                    pre.translation +
                    rotate(pre.rotation, mul(pre.scale, Vec3{k.mValue.x, k.mValue.y, k.mValue.z}));
                out.insert(out.end(), {p.x, p.y, p.z});
              },
              times, values, merged);
          if (!st) return st;
          st =
              builder.add_track(joint, node_name, TrackTarget::kTranslation, Interpolation::kLinear,
                                times, values, name + ": " + cw + " position");
          if (!st) return st;
        }
        if (ch->mNumRotationKeys) {
          Quat previous = Quat::identity();
          bool first = true;
          Status st = keys(
              ch->mRotationKeys, ch->mNumRotationKeys, tps, cw + " rotation", 4,
              [&](const aiQuatKey& k, std::vector<float>& out) {
                Quat q = normalize(pre.rotation * to_quat(k.mValue));
                // Hemisphere-consistent with the key before it (the previous kept key when a
                // duplicate is replaced is close enough: duplicates hold equal rotations).
                if (!first && dot(previous, q) < 0) q = negate(q);
                first = false;
                previous = q;
                out.insert(out.end(), {q.x, q.y, q.z, q.w});
              },
              times, values, merged);
          if (!st) return st;
          st = builder.add_track(joint, node_name, TrackTarget::kRotation, Interpolation::kLinear,
                                 times, values, name + ": " + cw + " rotation");
          if (!st) return st;
        }
        if (ch->mNumScalingKeys) {
          Status st = keys(
              ch->mScalingKeys, ch->mNumScalingKeys, tps, cw + " scaling", 3,
              [&](const aiVectorKey& k, std::vector<float>& out) {
                const Vec3 s = mul(pre.scale, Vec3{k.mValue.x, k.mValue.y, k.mValue.z});
                out.insert(out.end(), {s.x, s.y, s.z});
              },
              times, values, merged);
          if (!st) return st;
          st = builder.add_track(joint, node_name, TrackTarget::kScale, Interpolation::kLinear,
                                 times, values, name + ": " + cw + " scaling");
          if (!st) return st;
        }
      }
      if (merged) {
        asset.warnings.push_back(aw + ": " + std::to_string(merged) +
                                 " keys at a duplicate time merged (the last one kept)");
      }
      if (Status st = assimp_detail::read_morph_channels(anim, tps, name + ": " + aw, joint_of_node,
                                                         morphs, builder, asset.warnings);
          !st)
        return st;
      if (anim->mNumMeshChannels) {
        asset.warnings.push_back(aw + ": vertex-animation (mesh) channels are ignored");
      }
      const double seconds = anim->mDuration / tps;
      if (std::isfinite(seconds) && seconds > 0) builder.set_duration(static_cast<float>(seconds));
      Result<Clip> clip = builder.build(asset.skeleton.size(), name + ": " + aw);
      if (!clip) return clip.error();
      asset.clips.push_back(std::move(clip).value());
      asset.rate_sources.push_back(source);
    }
    return {};
  }

  Status run() {
    if (!scene->mRootNode) return fail("", "assimp produced no node hierarchy");
    Status st = read_nodes();
    if (!st) return st;
    read_materials();
    st = read_meshes();
    if (!st) return st;
    return read_clips();
  }
};

void configure(Assimp::Importer& importer) {
  // Fold FBX pivots, pre/post rotations and offsets into each node (and bake them into its
  // animation) instead of inserting "$AssimpFbx$" helper nodes.
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, false);
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_READ_ANIMATIONS, true);
  // Keep every bone weight: marrow stores all influences and reduces them itself.
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                              aiPrimitiveType_POINT | aiPrimitiveType_LINE);
}

constexpr unsigned kFlags =
    aiProcess_Triangulate | aiProcess_ValidateDataStructure | aiProcess_SortByPType;

Result<Asset> convert(const aiScene* scene, const Assimp::Importer& importer,
                      const std::string& name, const LoadOptions& options) {
  if (!scene) {
    const std::string message = importer.GetErrorString();
    return make_error(name,
                      "assimp: " + (message.empty() ? std::string("import failed") : message));
  }
  // AI_SCENE_FLAGS_INCOMPLETE only says "no meshes" here: animation-only files are normal.
  Reader reader;
  reader.name = name;
  reader.ext = std::filesystem::path(name).extension().string();
  std::transform(reader.ext.begin(), reader.ext.end(), reader.ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  reader.scene = scene;
  reader.ticks_per_second_option = options.ticks_per_second;
  reader.asset.source = name;
  const Status st = reader.run();
  if (!st) return st.error();
  return std::move(reader.asset);
}

}  // namespace

bool is_assimp_extension(const std::string& e) {
  return e == ".fbx" || e == ".dae";
}

Result<Asset> read_assimp(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return make_error(path, "no such file");
  Assimp::Importer importer;
  configure(importer);
  const aiScene* scene = importer.ReadFile(path, kFlags);
  return convert(scene, importer, path, options);
}

Result<Asset> read_assimp(std::span<const std::uint8_t> bytes, const std::string& name,
                          const LoadOptions& options) {
  if (bytes.empty()) return make_error(name, "empty file");
  Assimp::Importer importer;
  configure(importer);
  std::string hint = std::filesystem::path(name).extension().string();
  if (!hint.empty()) hint.erase(0, 1);
  const aiScene* scene =
      importer.ReadFileFromMemory(bytes.data(), bytes.size(), kFlags, hint.c_str());
  return convert(scene, importer, name, options);
}

}  // namespace marrow
