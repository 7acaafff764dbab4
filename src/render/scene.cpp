#include "marrow/render/scene.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace marrow::render {

namespace {

std::string simple_name(const std::string& name) {
  std::string n =
      name.substr(name.find_last_of(':') == std::string::npos ? 0 : name.find_last_of(':') + 1);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n;
}

bool has(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

// The name of the right-hand partner of a left joint ("LeftArm" -> "rightarm", "Leg_L_01" ->
// "leg_r_01"), or "" when the name does not say left.
std::string right_partner(const std::string& n) {
  auto replaced = [&](std::size_t at, std::size_t len, const char* with) {
    return n.substr(0, at) + with + n.substr(at + len);
  };
  if (std::size_t at = n.find("left"); at != std::string::npos) return replaced(at, 4, "right");
  if (std::size_t at = n.find("_l_"); at != std::string::npos) return replaced(at, 3, "_r_");
  if (n.size() > 2 && (n.ends_with("_l") || n.ends_with(".l")))
    return n.substr(0, n.size() - 1) + "r";
  if (n.starts_with("l_")) return "r_" + n.substr(2);
  return "";
}

Vec3 normalized(Vec3 v) {
  const float l = length(v);
  return l > 0 ? v * (1 / l) : v;
}

}  // namespace

Orientation guess_orientation(const Skeleton& skeleton, std::span<const Mat4> model) {
  Orientation o;
  const std::size_t n = std::min(skeleton.size(), model.size());
  if (n == 0) return o;
  std::vector<std::string> names(n);
  std::unordered_map<std::string, std::size_t> by_name;
  for (std::size_t j = 0; j < n; ++j) {
    names[j] = simple_name(skeleton.name(j));
    by_name.emplace(names[j], j);
  }
  auto pos = [&](std::size_t j) { return model[j].translation(); };
  auto average = [&](auto&& pick) {
    Vec3 sum{};
    int count = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (pick(j)) {
        sum += pos(j);
        ++count;
      }
    }
    return count ? std::optional<Vec3>(sum * (1.0f / count)) : std::nullopt;
  };
  const auto head =
      average([&](std::size_t j) { return names[j] == "head" || names[j].ends_with("_head"); });
  const auto feet = average([&](std::size_t j) {
    return has(names[j], "foot") || has(names[j], "toe") || has(names[j], "ankle");
  });
  if (head && feet) {
    const Vec3 d = *head - *feet;
    if (std::fabs(d.z) > 2 * std::fabs(d.y) && std::fabs(d.z) > std::fabs(d.x)) {
      o.up = {0, 0, d.z > 0 ? 1.0f : -1.0f};
      o.forward = {0, -1, 0};
    }
  }
  auto horizontal = [&](Vec3 v) { return v - o.up * dot(v, o.up); };
  auto valid = [](Vec3 v) { return length(v) > 1e-6f; };

  // The facing line from left/right pairs: the character's left is up x forward, so forward
  // is (right-to-left) x up. The most reliable cue for the axis on bipeds.
  // Only the pairs nearest the root (hips, thighs, shoulders: one level below the first pair
  // and the pair itself), whose sides hold still; hands and fingers wander.
  std::vector<int> depth(n, 0);
  for (std::size_t j = 0; j < n; ++j) {
    const JointIndex p = skeleton.parent(j);
    if (p != kNoParent && p < j) depth[j] = depth[p] + 1;
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  int shallowest = 1 << 30;
  for (std::size_t j = 0; j < n; ++j) {
    const std::string partner = right_partner(names[j]);
    if (partner.empty()) continue;
    const auto it = by_name.find(partner);
    if (it == by_name.end()) continue;
    pairs.push_back({j, it->second});
    shallowest = std::min(shallowest, depth[j]);
  }
  Vec3 leftward{};
  for (const auto& [l, r] : pairs) {
    if (depth[l] <= shallowest + 1) leftward += pos(l) - pos(r);
  }
  const Vec3 axis = horizontal(cross(leftward, o.up));

  // Which way along it: feet (foot-to-toe bones point forward), else a head that leads the
  // body (a quadruped: its offset from the joints' centre). These also settle a file whose
  // left and right were mirrored on import.
  Vec3 cue{};
  for (std::size_t j = 0; j < n; ++j) {
    const JointIndex p = skeleton.parent(j);
    if (p == kNoParent || p >= n || !has(names[j], "toe")) continue;
    if (has(names[p], "foot") || has(names[p], "ankle")) cue += pos(j) - pos(p);
  }
  cue = horizontal(cue);
  if (!valid(cue)) {
    const auto centre = average([](std::size_t) { return true; });
    const auto front =
        head ? head
             : average([&](std::size_t j) { return names[j] == "neck" || has(names[j], "head"); });
    if (front && centre) {
      float low = 1e30f, high = -1e30f;
      for (std::size_t j = 0; j < n; ++j) {
        low = std::min(low, dot(pos(j), o.up));
        high = std::max(high, dot(pos(j), o.up));
      }
      const Vec3 offset = horizontal(*front - *centre);
      if (length(offset) > 0.3f * (high - low)) cue = offset;
    }
  }
  if (valid(axis)) {
    o.forward = normalized(axis) * (valid(cue) && dot(cue, axis) < 0 ? -1.0f : 1.0f);
  } else if (valid(cue)) {
    o.forward = normalized(cue);
  }
  return o;
}

Vec3 heat_color(float w) {
  w = std::isfinite(w) ? std::clamp(w, 0.0f, 1.0f) : 0.0f;
  const Vec3 stops[5] = {{0.1f, 0.2f, 0.95f},
                         {0.1f, 0.85f, 0.95f},
                         {0.15f, 0.9f, 0.2f},
                         {0.98f, 0.9f, 0.1f},
                         {0.95f, 0.12f, 0.08f}};
  const float s = w * 4;
  const int i = std::min(3, static_cast<int>(s));
  return lerp(stops[i], stops[i + 1], s - i);
}

Result<SceneRenderer> SceneRenderer::create(const Asset& asset, const SceneStyle& style) {
  SceneRenderer r;
  r.asset_ = &asset;
  r.style_ = style;
  const Skeleton& skeleton = asset.skeleton;
  std::optional<JointIndex> weights_joint;
  if (!style.weights_joint.empty()) {
    weights_joint = skeleton.find(style.weights_joint);
    if (!weights_joint) {
      return make_error(asset.source, "--weights: no joint named '" + style.weights_joint + "'");
    }
  }
  bool any_weight = false;
  const MorphLayout morphs = MorphLayout::build(asset.meshes);
  r.default_weights_.assign(morphs.default_weights().begin(), morphs.default_weights().end());
  for (const SkinnedMesh& mesh : asset.meshes) {
    MeshState state;
    state.mesh = &mesh;
    const std::size_t n = mesh.vertex_count();
    if (mesh.skin >= 0) {
      if (static_cast<std::size_t>(mesh.skin) >= asset.skins.size()) {
        return make_error(asset.source, "mesh '" + mesh.name + "' names skin " +
                                            std::to_string(mesh.skin) + ", which does not exist");
      }
      state.skin = &asset.skins[static_cast<std::size_t>(mesh.skin)];
      // A picture should show a file with a few unweighted vertices (exporters leave them):
      // they stay at their bind position, as most viewers draw them.
      Result<SkinningMesh> built = SkinningMesh::build(mesh, state.skin->joints.size(), 0,
                                                       UnweightedVertices::kKeepBindPosition);
      if (!built) return make_error(asset.source, built.error().message);
      state.skinning = std::move(built).value();
      state.palette.resize(state.skin->joints.size());
    }
    if (!mesh.morph_targets.empty()) {
      Result<MorphMesh> morph = MorphMesh::build(mesh, state.skinning ? &*state.skinning : nullptr);
      if (!morph) return make_error(asset.source, morph.error().message);
      state.morph = std::move(morph).value();
      state.morphed = MorphedVertices::create(*state.morph);
      state.first_weight = morphs.find(mesh.node)->first;
    }
    state.positions.resize(n);
    if (mesh.normals.size() == n) state.normals.resize(n);
    if (weights_joint) {
      state.colors.assign(n, heat_color(0));
      if (state.skin) {
        const auto& joints = state.skin->joints;
        for (std::size_t v = 0; v < n && v + 1 < mesh.influence_offsets.size(); ++v) {
          float w = 0;
          for (std::uint32_t k = mesh.influence_offsets[v]; k < mesh.influence_offsets[v + 1];
               ++k) {
            const std::uint16_t sj = mesh.influence_joints[k];
            if (sj < joints.size() && joints[sj] == *weights_joint) w += mesh.influence_weights[k];
          }
          if (w > 0) any_weight = true;
          state.colors[v] = heat_color(w);
        }
      } else if (mesh.node == *weights_joint) {
        state.colors.assign(n, heat_color(1));
        any_weight = true;
      }
    }
    r.meshes_.push_back(std::move(state));
  }
  if (weights_joint && !any_weight) {
    r.notes_.push_back("no vertex is weighted to joint '" + style.weights_joint +
                       "' (every mesh shows blue)");
  }
  // The skeleton overlay: skin joints when there are skins. Without skins, the joints some clip
  // animates and everything below them (cameras, lights and helpers a DCC export keeps as
  // nodes stay out), or every joint when no clip animates any.
  r.in_overlay_.assign(skeleton.size(), false);
  if (asset.skins.empty()) {
    std::vector<bool> animated(skeleton.size(), false);
    bool any = false;
    for (const Clip& clip : asset.clips) {
      for (const Track& track : clip.tracks()) {
        if (track.joint < skeleton.size()) animated[track.joint] = any = true;
      }
    }
    for (std::size_t j = 0; j < skeleton.size(); ++j) {
      const JointIndex p = skeleton.parent(j);
      r.in_overlay_[j] = !any || animated[j] || (p != kNoParent && r.in_overlay_[p]);
    }
    // Keep the connected pieces that look like skeletons: those with at least a quarter of the
    // largest piece's joints (an animated camera or its target is a piece of one).
    std::vector<std::size_t> piece(skeleton.size(), 0), piece_size(skeleton.size() + 1, 0);
    std::size_t pieces = 0, largest = 0;
    for (std::size_t j = 0; j < skeleton.size(); ++j) {
      if (!r.in_overlay_[j]) continue;
      const JointIndex p = skeleton.parent(j);
      piece[j] = (p != kNoParent && r.in_overlay_[p]) ? piece[p] : ++pieces;
      largest = std::max(largest, ++piece_size[piece[j]]);
    }
    for (std::size_t j = 0; j < skeleton.size(); ++j) {
      if (r.in_overlay_[j] && piece_size[piece[j]] * 4 < largest) r.in_overlay_[j] = false;
    }
  }
  for (const Skin& skin : asset.skins) {
    for (JointIndex j : skin.joints) {
      if (j < skeleton.size()) r.in_overlay_[j] = true;
    }
  }
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    if (r.in_overlay_[j]) r.overlay_joints_.push_back(static_cast<JointIndex>(j));
  }
  r.joint_positions_.resize(skeleton.size());
  return r;
}

bool SceneRenderer::set_pose(std::span<const Mat4> model, std::span<const float> morph_weights) {
  const Skeleton& skeleton = asset_->skeleton;
  if (model.size() < skeleton.size()) return false;
  if (morph_weights.size() < default_weights_.size()) morph_weights = default_weights_;
  for (std::size_t j = 0; j < skeleton.size(); ++j) joint_positions_[j] = model[j].translation();
  for (MeshState& state : meshes_) {
    const SkinnedMesh& mesh = *state.mesh;
    // Morph targets first, in bind space: the face moves, then the bones carry it.
    const bool morphed = state.morph && MorphJob{&*state.morph,
                                                 morph_weights.subspan(state.first_weight,
                                                                       mesh.morph_targets.size()),
                                                 &state.morphed}
                                            .run();
    if (state.skinning) {
      // glTF's rule, which every importer follows: a skinned mesh is placed by its joints alone.
      compute_skinning_palette(*state.skin, model, state.palette);
      SkinningOutput out{state.positions, state.normals, {}};
      const std::size_t n = state.positions.size();
      const bool done =
          morphed ? skin(*state.skinning, state.morphed, state.palette, style_.method, out, 0, n)
                  : skin(*state.skinning, state.palette, style_.method, out);
      if (!done) std::fill(state.positions.begin(), state.positions.end(), Vec3{});
      continue;
    }
    const std::span<const Vec3> bind_positions =
        morphed ? std::span<const Vec3>(state.morphed.positions).first(mesh.positions.size())
                : std::span<const Vec3>(mesh.positions);
    const std::span<const Vec3> bind_normals =
        morphed && !state.morphed.normals.empty()
            ? std::span<const Vec3>(state.morphed.normals).first(mesh.normals.size())
            : std::span<const Vec3>(mesh.normals);
    const Mat4 place = mesh.node < skeleton.size() ? model[mesh.node] : Mat4::identity();
    for (std::size_t v = 0; v < bind_positions.size(); ++v) {
      state.positions[v] = transform_point(place, bind_positions[v]);
    }
    if (!state.normals.empty()) {
      // Normals go through the inverse transpose (right under non-uniform scale).
      Mat4 inverse;
      if (!invert_affine(place, inverse)) inverse = Mat4::identity();
      for (std::size_t v = 0; v < bind_normals.size(); ++v) {
        const Vec3 n = bind_normals[v];
        state.normals[v] = {inverse.m[0] * n.x + inverse.m[1] * n.y + inverse.m[2] * n.z,
                            inverse.m[4] * n.x + inverse.m[5] * n.y + inverse.m[6] * n.z,
                            inverse.m[8] * n.x + inverse.m[9] * n.y + inverse.m[10] * n.z};
      }
    }
  }
  return true;
}

Bounds SceneRenderer::bounds() const {
  Bounds b;
  for (const MeshState& state : meshes_) {
    for (const Vec3& p : state.positions) b.add(p);
  }
  if (b.empty()) {
    for (JointIndex j : overlay_joints_) b.add(joint_positions_[j]);
  }
  return b;
}

void SceneRenderer::extreme_points(std::vector<Vec3>& out) const {
  bool any = false;
  for (const MeshState& state : meshes_) {
    add_extreme_points(state.positions, out);
    any = any || !state.positions.empty();
  }
  if (any) return;
  std::vector<Vec3> joints;
  for (JointIndex j : overlay_joints_) joints.push_back(joint_positions_[j]);
  add_extreme_points(joints, out);
}

void SceneRenderer::draw(Rasterizer& rasterizer, const Camera& camera) const {
  rasterizer.clear_gradient(style_.background_top, style_.background_bottom);
  for (const MeshState& state : meshes_) {
    MeshDraw draw;
    draw.positions = state.positions;
    draw.indices = state.mesh->indices;
    draw.normals = state.normals;
    draw.colors = state.colors;
    draw.color = style_.mesh_color;
    rasterizer.draw_mesh(camera, draw);
  }
  if (!style_.skeleton && !meshes_.empty()) return;
  // Bones: a line from each overlay joint to its parent when the parent is drawn too (a scene
  // root above the skin gets no line).
  const Skeleton& skeleton = asset_->skeleton;
  const float scale = static_cast<float>(std::min(rasterizer.width(), rasterizer.height()));
  const float thickness = std::max(1.5f, scale / 150.0f);
  const Rgb bone{255, 214, 64}, joint{230, 60, 40};
  for (JointIndex j : overlay_joints_) {
    const JointIndex p = skeleton.parent(j);
    if (p == kNoParent || !in_overlay_[p]) continue;
    rasterizer.draw_line(camera, joint_positions_[p], joint_positions_[j], bone, thickness);
  }
  for (JointIndex j : overlay_joints_) {
    rasterizer.draw_dot(camera, joint_positions_[j], thickness * 1.2f, joint);
  }
}

}  // namespace marrow::render
