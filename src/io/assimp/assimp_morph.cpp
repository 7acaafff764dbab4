#include "assimp/assimp_morph.h"

#include <cmath>
#include <map>

namespace marrow::assimp_detail {

Status read_anim_meshes(const aiMesh* src, const std::string& where, SkinnedMesh& mesh) {
  const unsigned nv = src->mNumVertices;
  for (unsigned a = 0; a < src->mNumAnimMeshes; ++a) {
    const aiAnimMesh* am = src->mAnimMeshes ? src->mAnimMeshes[a] : nullptr;
    const std::string aw = where + " blend shape " + std::to_string(a) +
                           (am ? " '" + std::string(am->mName.C_Str()) + "'" : std::string());
    if (!am) return make_error(aw, "is null");
    if (am->mNumVertices != nv)
      return make_error(aw, "has " + std::to_string(am->mNumVertices) + " vertices, the mesh " +
                                std::to_string(nv));
    std::vector<Vec3> dp(nv, Vec3{0, 0, 0}), dn;
    if (am->mVertices) {
      for (unsigned v = 0; v < nv; ++v) {
        const aiVector3D& p = am->mVertices[v];
        dp[v] = Vec3{p.x, p.y, p.z} - mesh.positions[v];
        if (!is_finite(dp[v]))
          return make_error(aw, "vertex " + std::to_string(v) + " is not finite");
      }
    }
    if (am->mNormals && mesh.normals.size() == nv) {
      dn.resize(nv);
      for (unsigned v = 0; v < nv; ++v) {
        const aiVector3D& n = am->mNormals[v];
        dn[v] = Vec3{n.x, n.y, n.z} - mesh.normals[v];
        if (!is_finite(dn[v]))
          return make_error(aw, "normal of vertex " + std::to_string(v) + " is not finite");
      }
    }
    mesh.morph_targets.push_back(make_sparse_target(am->mName.C_Str(), dp, dn));
  }
  return {};
}

Status read_morph_channels(
    const aiAnimation* anim, double ticks_per_second, const std::string& where,
    const std::function<std::optional<JointIndex>(const std::string&)>& joint_of_node,
    const MorphLayout& layout, ClipBuilder& builder, std::vector<std::string>& warnings) {
  for (unsigned c = 0; c < anim->mNumMorphMeshChannels; ++c) {
    const aiMeshMorphAnim* ch = anim->mMorphMeshChannels ? anim->mMorphMeshChannels[c] : nullptr;
    if (!ch) return make_error(where, "morph channel " + std::to_string(c) + " is null");
    const std::string name = ch->mName.C_Str();
    const std::string cw = where + " morph channel " + std::to_string(c) + " '" + name + "'";
    // "<node>*<geometry index>": the node of the model whose geometry carries the shapes.
    const std::size_t star = name.rfind('*');
    const std::string node = name.substr(0, star);
    if (star != std::string::npos && name.substr(star + 1) != "0") {
      warnings.push_back(cw +
                         ": shapes of a second geometry of one node are not supported; "
                         "dropped");
      continue;
    }
    const std::optional<JointIndex> joint = joint_of_node(node);
    const MorphSlots* slots = joint ? layout.find(*joint) : nullptr;
    if (!slots) return make_error(cw, "names no node with blend shapes");
    // Per target, its own keys (assimp lists at each time only the targets keyed there).
    std::map<unsigned, std::vector<std::pair<float, float>>> keys_of_target;
    for (unsigned k = 0; k < ch->mNumKeys; ++k) {
      const aiMeshMorphKey& key = ch->mKeys[k];
      if (!std::isfinite(key.mTime))
        return make_error(cw, "key " + std::to_string(k) + " has a non-finite time");
      const float t = static_cast<float>(key.mTime / ticks_per_second);
      for (unsigned i = 0; i < key.mNumValuesAndWeights; ++i) {
        const unsigned target = key.mValues[i];
        if (target >= slots->count)
          return make_error(cw, "key " + std::to_string(k) + " names blend shape " +
                                    std::to_string(target) + " of " + std::to_string(slots->count));
        const double w = key.mWeights[i];
        if (!std::isfinite(w))
          return make_error(cw, "key " + std::to_string(k) + " has a non-finite weight");
        keys_of_target[target].emplace_back(t, static_cast<float>(w));
      }
    }
    std::vector<float> times, values;
    for (auto& [target, keys] : keys_of_target) {
      std::stable_sort(keys.begin(), keys.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      times.clear();
      values.clear();
      for (const auto& [t, w] : keys) {
        if (!times.empty() && t <= times.back()) {  // a repeated time: the last key wins
          values.back() = w;
          continue;
        }
        times.push_back(t);
        values.push_back(w);
      }
      const Status st =
          builder.add_weight_track(*joint, node, slots->first + target, 1, Interpolation::kLinear,
                                   times, values, cw + " blend shape " + std::to_string(target));
      if (!st) return st;
    }
  }
  return {};
}

}  // namespace marrow::assimp_detail
