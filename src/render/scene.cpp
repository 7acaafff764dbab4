#include "marrow/render/scene.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "marrow/io/asset.h"

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

// A linear colour (glTF factors and vertex colours) as the display value the rasterizer
// works in.
Vec3 encode(float r, float g, float b) {
  return {linear_to_srgb(r), linear_to_srgb(g), linear_to_srgb(b)};
}

// The ground's grid as a texture: one cell, a light tile with a darker line along two edges,
// repeated by the sampler (mip-mapped, so the far grid greys out instead of shimmering).
Texture grid_texture() {
  constexpr int kSide = 64, kLine = 2;
  std::vector<std::uint8_t> rgba(kSide * kSide * 4);
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      const bool line =
          x < kLine / 2 || x >= kSide - kLine / 2 || y < kLine / 2 || y >= kSide - kLine / 2;
      const std::uint8_t v = line ? 150 : 228;
      std::uint8_t* p = &rgba[(static_cast<std::size_t>(y) * kSide + x) * 4];
      p[0] = v;
      p[1] = v;
      p[2] = static_cast<std::uint8_t>(v + (line ? 6 : 2));
      p[3] = 255;
    }
  }
  return Texture::from_rgba(kSide, kSide, rgba).value();
}

// A round grid spacing (1, 2 or 5 times a power of ten) near a sixth of `height`.
float round_spacing(float height) {
  const float raw = std::max(height, 1e-6f) / 6;
  const float p = std::pow(10.0f, std::floor(std::log10(raw)));
  for (float m : {1.0f, 2.0f, 5.0f}) {
    if (m * p >= raw * 0.7f) return m * p;
  }
  return 10 * p;
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
  // Textures: each (image, wrap) pair the meshes' materials use, decoded once. A failure is
  // one note for all, and those meshes keep their material's colour.
  std::map<std::tuple<int, TextureWrap, TextureWrap>, int> texture_of;
  std::vector<std::string> unreadable;
  std::vector<bool> image_failed(asset.images.size(), false);
  // Materials whose base-colour texture reads another UV set or is transformed
  // (KHR_texture_transform): drawn from set 0 as it is, which the notes say.
  std::set<std::string> approximated;
  auto texture_for = [&](const SkinnedMesh& mesh) -> int {
    if (!style.textures || !style.weights_joint.empty() || mesh.material < 0 ||
        static_cast<std::size_t>(mesh.material) >= asset.materials.size() ||
        mesh.uvs.size() != mesh.vertex_count())
      return -1;
    const Material& m = asset.materials[static_cast<std::size_t>(mesh.material)];
    if (m.base_color.image < 0 ||
        static_cast<std::size_t>(m.base_color.image) >= asset.images.size())
      return -1;
    if (m.base_color.texcoord != 0 || m.base_color.transform)
      approximated.insert(m.name.empty() ? "(unnamed)" : m.name);
    const auto key = std::make_tuple(m.base_color.image, m.base_color.wrap_u, m.base_color.wrap_v);
    if (const auto it = texture_of.find(key); it != texture_of.end()) return it->second;
    const std::size_t image_index = static_cast<std::size_t>(m.base_color.image);
    const MaterialImage& image = asset.images[image_index];
    int index = -1;
    if (!image_failed[image_index]) {
      const std::string name = image.path.empty() ? "image '" + image.name + "'" : image.path;
      Result<std::vector<std::uint8_t>> bytes = image_bytes(image);
      Result<Texture> texture =
          bytes ? Texture::decode(*bytes, name, m.base_color.wrap_u, m.base_color.wrap_v)
                : Result<Texture>(bytes.error());
      if (texture) {
        index = static_cast<int>(r.textures_.size());
        r.textures_.emplace_back(std::move(texture).value());
      } else {
        image_failed[image_index] = true;
        unreadable.push_back(texture.error().message);
      }
    }
    texture_of.emplace(key, index);
    return index;
  };
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
    state.texture = texture_for(mesh);
    r.set_materials(state, mesh);
    if (weights_joint) {
      state.texture = -1;
      state.alphas.clear();
      state.alpha_mode = AlphaMode::kOpaque;
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
  if (!approximated.empty()) {
    std::string names;
    for (const std::string& n : approximated) names += (names.empty() ? "'" : ", '") + n + "'";
    r.notes_.push_back("material(s) " + names +
                       ": the base-colour texture is drawn from UV set 0 without its texture "
                       "transform, which the renderer does not apply");
  }
  if (!unreadable.empty()) {
    std::string note = "drawn in the material's colour: ";
    for (std::size_t i = 0; i < unreadable.size(); ++i) note += (i ? "; " : "") + unreadable[i];
    r.notes_.push_back(note);
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

void SceneRenderer::set_materials(MeshState& state, const SkinnedMesh& mesh) {
  const std::size_t n = mesh.vertex_count();
  const Material* m =
      mesh.material >= 0 && static_cast<std::size_t>(mesh.material) < asset_->materials.size()
          ? &asset_->materials[static_cast<std::size_t>(mesh.material)]
          : nullptr;
  if (!m) {
    state.color = style_.mesh_color;
    // Vertex colours alone (an OBJ or .X with colours and no material) still show.
    if (mesh.colors.size() == n) {
      state.colors.resize(n);
      for (std::size_t v = 0; v < n; ++v)
        state.colors[v] = encode(mesh.colors[v][0], mesh.colors[v][1], mesh.colors[v][2]);
    }
    return;
  }
  const auto& f = m->base_color_factor;
  state.color = encode(f[0], f[1], f[2]);
  state.alpha = f[3];
  state.alpha_mode = m->alpha_mode;
  state.alpha_cutoff = m->alpha_cutoff;
  if (mesh.colors.size() == n) {
    // glTF: the base colour is factor x texture x COLOR_0, all linear.
    state.colors.resize(n);
    state.alphas.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
      const auto& c = mesh.colors[v];
      state.colors[v] = encode(c[0] * f[0], c[1] * f[1], c[2] * f[2]);
      state.alphas[v] = c[3] * f[3];
    }
  }
}

void SceneRenderer::place_ground(std::span<const Vec3> points, const Orientation& orientation) {
  ground_.reset();
  if (!style_.ground || points.empty()) return;
  Ground g;
  g.up = normalized(orientation.up);
  g.forward = normalized(orientation.forward - g.up * dot(orientation.forward, g.up));
  g.right = cross(g.forward, g.up);
  float low = 1e30f, high = -1e30f, min_r = 1e30f, max_r = -1e30f, min_f = 1e30f, max_f = -1e30f;
  for (const Vec3& p : points) {
    if (!is_finite(p)) continue;
    low = std::min(low, dot(p, g.up));
    high = std::max(high, dot(p, g.up));
    min_r = std::min(min_r, dot(p, g.right));
    max_r = std::max(max_r, dot(p, g.right));
    min_f = std::min(min_f, dot(p, g.forward));
    max_f = std::max(max_f, dot(p, g.forward));
  }
  if (!(low <= high)) return;
  const float width = std::max(max_r - min_r, max_f - min_f);
  g.height = std::max(high - low, 1e-3f * std::max(width, 1.0f));
  // Wide enough to read as a floor in every preset's view; the grid fades out at the rim.
  g.size = std::max(width, 0.5f * g.height) + 2.5f * g.height;
  g.level = low;
  g.spacing = round_spacing(g.height);
  g.cells = 64;
  const float centre_r = 0.5f * (min_r + max_r), centre_f = 0.5f * (min_f + max_f);
  g.origin = g.right * (centre_r - g.size / 2) + g.forward * (centre_f - g.size / 2) + g.up * low;
  const int side = g.cells + 1;
  const float cell = g.size / g.cells;
  for (int j = 0; j < side; ++j) {
    for (int i = 0; i < side; ++i) {
      const Vec3 p = g.origin + g.right * (i * cell) + g.forward * (j * cell);
      g.positions.push_back(p);
      g.uvs.push_back({dot(p, g.right) / g.spacing, dot(p, g.forward) / g.spacing});
      // Alpha 1 inside a disc, falling smoothly to 0 at the square's inscribed circle.
      const float dx = (i - g.cells * 0.5f) / (g.cells * 0.5f);
      const float dy = (j - g.cells * 0.5f) / (g.cells * 0.5f);
      const float t = std::clamp((std::sqrt(dx * dx + dy * dy) - 0.55f) / 0.45f, 0.0f, 1.0f);
      g.alphas.push_back(1 - t * t * (3 - 2 * t));
    }
  }
  for (int j = 0; j < g.cells; ++j) {
    for (int i = 0; i < g.cells; ++i) {
      const auto a = static_cast<std::uint32_t>(j * side + i);
      const auto b = a + 1, c = a + static_cast<std::uint32_t>(side), d = c + 1;
      g.indices.insert(g.indices.end(), {a, b, d, a, d, c});
    }
  }
  g.colors.assign(g.positions.size(), Vec3{1, 1, 1});
  const std::size_t cells = static_cast<std::size_t>(g.cells) * g.cells;
  g.nearest.assign(cells, 0);
  g.shadow.assign(cells, 0);
  g.scratch.assign(cells, 0);
  g.grid = grid_texture();
  ground_ = std::move(g);
  update_shadow();
}

// The contact shadow: per ground cell, the lowest point of the character above it; the closer
// to the ground, the darker (quadratic fall-off over a third of the character's height); then
// blurred (a 5-tap binomial filter each way) so it is soft, and spread to the ground's
// vertices.
void SceneRenderer::update_shadow() {
  if (!ground_) return;
  Ground& g = *ground_;
  const float kNone = 1e30f;
  std::fill(g.nearest.begin(), g.nearest.end(), kNone);
  const float cell = g.size / g.cells;
  auto splat = [&](Vec3 p) {
    const Vec3 d = p - g.origin;
    const float fi = dot(d, g.right) / cell, fj = dot(d, g.forward) / cell;
    if (!(fi >= 0 && fj >= 0 && fi < g.cells && fj < g.cells)) return;
    const std::size_t k = static_cast<std::size_t>(fj) * g.cells + static_cast<std::size_t>(fi);
    g.nearest[k] = std::min(g.nearest[k], std::max(0.0f, dot(d, g.up)));
  };
  bool any_mesh = false;
  for (const MeshState& state : meshes_) {
    for (const Vec3& p : state.positions) splat(p);
    any_mesh = any_mesh || !state.positions.empty();
  }
  if (!any_mesh) {
    for (JointIndex j : overlay_joints_) splat(joint_positions_[j]);
  }
  const float reach = g.height / 3;
  for (std::size_t k = 0; k < g.nearest.size(); ++k) {
    const float t = g.nearest[k] >= kNone ? 1.0f : std::min(1.0f, g.nearest[k] / reach);
    g.shadow[k] = 0.9f * (1 - t) * (1 - t);
  }
  const int n = g.cells;
  auto blur = [&](bool along_rows) {
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        float sum = 0;
        constexpr float kTaps[5] = {1 / 16.0f, 4 / 16.0f, 6 / 16.0f, 4 / 16.0f, 1 / 16.0f};
        for (int t = -2; t <= 2; ++t) {
          const int ii = along_rows ? std::clamp(i + t, 0, n - 1) : i;
          const int jj = along_rows ? j : std::clamp(j + t, 0, n - 1);
          sum += kTaps[t + 2] * g.shadow[static_cast<std::size_t>(jj) * n + ii];
        }
        g.scratch[static_cast<std::size_t>(j) * n + i] = sum;
      }
    }
    std::swap(g.shadow, g.scratch);
  };
  blur(true);
  blur(false);
  const int side = n + 1;
  for (int j = 0; j < side; ++j) {
    for (int i = 0; i < side; ++i) {
      float sum = 0;
      int count = 0;
      for (int dj = -1; dj <= 0; ++dj) {
        for (int di = -1; di <= 0; ++di) {
          const int ci = i + di, cj = j + dj;
          if (ci < 0 || cj < 0 || ci >= n || cj >= n) continue;
          sum += g.shadow[static_cast<std::size_t>(cj) * n + ci];
          ++count;
        }
      }
      const float dark = count ? sum / count : 0;
      g.colors[static_cast<std::size_t>(j) * side + i] = Vec3{1, 1, 1} * (1 - dark);
    }
  }
}

float SceneRenderer::shadow_at(Vec3 point) const {
  if (!ground_) return 0;
  const Ground& g = *ground_;
  const float cell = g.size / g.cells;
  const Vec3 d = point - g.origin;
  const long i = std::lround(dot(d, g.right) / cell), j = std::lround(dot(d, g.forward) / cell);
  if (i < 0 || j < 0 || i > g.cells || j > g.cells) return 0;
  return 1 - g.colors[static_cast<std::size_t>(j) * (g.cells + 1) + static_cast<std::size_t>(i)].x;
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
  update_shadow();
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

void SceneRenderer::set_ground_paths(std::span<const GroundPath> paths) {
  paths_ = {};
  if (!ground_) return;
  const Ground& g = *ground_;
  const float half_width = 0.1f * g.spacing;
  // Lifted off the ground by a little, so the ribbon wins the depth test against it.
  const Vec3 lift = g.up * (g.level + 0.01f * g.spacing);
  const auto on_ground = [&](Vec3 p) { return p - g.up * dot(p, g.up) + lift; };
  for (const GroundPath& path : paths) {
    for (std::size_t i = 1; i < path.points.size(); ++i) {
      const Vec3 a = on_ground(path.points[i - 1]), b = on_ground(path.points[i]);
      if (!is_finite(a) || !is_finite(b) || !(length(b - a) > 0)) continue;
      const Vec3 across = normalized(cross(g.up, b - a)) * half_width;
      // Each segment reaches half a width past its ends, so turns show no gap.
      const Vec3 along = normalized(b - a) * half_width;
      const auto first = static_cast<std::uint32_t>(paths_.positions.size());
      for (const Vec3& corner :
           {a - along - across, a - along + across, b + along + across, b + along - across}) {
        paths_.positions.push_back(corner);
        paths_.colors.push_back(path.color);
      }
      for (std::uint32_t k : {0u, 1u, 2u, 0u, 2u, 3u}) paths_.indices.push_back(first + k);
    }
  }
}

void SceneRenderer::draw(Rasterizer& rasterizer, const Camera& camera) const {
  rasterizer.clear_gradient(style_.background_top, style_.background_bottom);
  if (ground_) {
    const Ground& g = *ground_;
    MeshDraw draw;
    draw.positions = g.positions;
    draw.indices = g.indices;
    draw.colors = g.colors;
    draw.alphas = g.alphas;
    draw.uvs = g.uvs;
    draw.texture = &*g.grid;
    draw.alpha_mode = AlphaMode::kBlend;  // fades into the background at its rim
    draw.lit = false;
    rasterizer.draw_mesh(camera, draw);
  }
  if (!paths_.indices.empty()) {
    MeshDraw draw;
    draw.positions = paths_.positions;
    draw.indices = paths_.indices;
    draw.colors = paths_.colors;
    draw.lit = false;
    rasterizer.draw_mesh(camera, draw);
  }
  // Opaque and masked meshes first; blended ones over them, without writing depth.
  for (const bool blended : {false, true}) {
    for (const MeshState& state : meshes_) {
      if ((state.alpha_mode == AlphaMode::kBlend) != blended) continue;
      MeshDraw draw;
      draw.positions = state.positions;
      draw.indices = state.mesh->indices;
      draw.normals = state.normals;
      draw.colors = state.colors;
      draw.color = state.color;
      draw.alphas = state.alphas;
      draw.alpha = state.alpha;
      if (state.texture >= 0) {
        draw.texture = &*textures_[static_cast<std::size_t>(state.texture)];
        draw.uvs = state.mesh->uvs;
      }
      draw.alpha_mode = state.alpha_mode;
      draw.alpha_cutoff = state.alpha_cutoff;
      draw.write_depth = !blended;
      rasterizer.draw_mesh(camera, draw);
    }
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
