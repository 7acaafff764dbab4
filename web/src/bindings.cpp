// The JavaScript interface of the WebAssembly build (docs/web.md): an asset loaded from files the
// page wrote into the module's in-memory file system, and characters that play its clips with
// marrow's Animator. Calls that can fail return false (or null) and leave the reason in
// last_error(); web/marrow.mjs turns that into a thrown MarrowError carrying the same message the
// command line prints. Per-frame results are views into WebAssembly memory, not copies.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "marrow/control/animator.h"
#include "marrow/control/clip_set.h"
#include "marrow/io/asset.h"
#include "marrow/io/asset_info.h"
#include "marrow/math/simd.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "marrow/skin/morph.h"
#include "marrow/skin/skinning.h"
#include "marrow/version.h"

namespace marrow::web {
namespace {

std::string& last_error_text() {
  static std::string text;
  return text;
}

bool fail(std::string message) {
  last_error_text() = std::move(message);
  return false;
}

}  // namespace

std::string last_error() {
  return last_error_text();
}

class Character;

/// A mesh laid out for a GPU vertex shader: four influences per vertex (the largest, their
/// weights renormalized), as WebGL's attributes hold them.
struct GpuMesh {
  std::vector<float> positions, normals, uvs, weights;
  std::vector<std::uint16_t> joints;
  std::vector<std::uint32_t> indices;
  std::size_t clamped = 0;  ///< vertices that had more than four influences
};

GpuMesh gpu_mesh(const SkinnedMesh& mesh) {
  GpuMesh g;
  const std::size_t n = mesh.vertex_count();
  g.positions.reserve(n * 3);
  for (const Vec3& p : mesh.positions) g.positions.insert(g.positions.end(), {p.x, p.y, p.z});
  for (const Vec3& v : mesh.normals) g.normals.insert(g.normals.end(), {v.x, v.y, v.z});
  for (const auto& uv : mesh.uvs) g.uvs.insert(g.uvs.end(), {uv[0], uv[1]});
  g.indices = mesh.indices;
  if (mesh.influence_offsets.size() != n + 1) return g;
  g.joints.assign(n * 4, 0);
  g.weights.assign(n * 4, 0.0f);
  for (std::size_t v = 0; v < n; ++v) {
    std::vector<std::pair<float, std::uint16_t>> list;
    for (std::uint32_t k = mesh.influence_offsets[v]; k < mesh.influence_offsets[v + 1]; ++k)
      list.emplace_back(mesh.influence_weights[k], mesh.influence_joints[k]);
    std::sort(list.begin(), list.end(), [](auto a, auto b) { return a.first > b.first; });
    if (list.size() > 4) ++g.clamped, list.resize(4);
    float sum = 0;
    for (const auto& [w, j] : list) sum += w;
    for (std::size_t k = 0; k < list.size(); ++k) {
      g.joints[v * 4 + k] = list[k].second;
      g.weights[v * 4 + k] = sum > 0 ? list[k].first / sum : 0.0f;
    }
  }
  return g;
}

template <typename T>
emscripten::val view(const std::vector<T>& v) {
  return emscripten::val(emscripten::typed_memory_view(v.size(), v.data()));
}

/// A loaded file: its skeleton, clips, meshes, materials and the reader's notes.
class WebAsset {
 public:
  explicit WebAsset(Asset asset) : asset_(std::move(asset)) {
    for (const SkinnedMesh& mesh : asset_.meshes) meshes_.push_back(gpu_mesh(mesh));
  }

  /// What `marrow info --format json` prints for the file, notes included.
  std::string info_json() const { return asset_info_json(asset_); }
  std::size_t joint_count() const { return asset_.skeleton.size(); }
  std::size_t clip_count() const { return asset_.clips.size(); }
  const Asset& asset() const { return asset_; }

  /// Mesh `i`'s vertex arrays as views (copy them: they live as long as the asset), with its
  /// skin, node and material indices.
  emscripten::val mesh(std::size_t i) const {
    if (i >= meshes_.size()) return emscripten::val::null();
    const GpuMesh& g = meshes_[i];
    const SkinnedMesh& m = asset_.meshes[i];
    emscripten::val out = emscripten::val::object();
    out.set("positions", view(g.positions));
    out.set("normals", view(g.normals));
    out.set("uvs", view(g.uvs));
    out.set("indices", view(g.indices));
    out.set("joints", view(g.joints));
    out.set("weights", view(g.weights));
    out.set("skin", m.skin);
    out.set("node", m.node == kNoParent ? -1 : static_cast<int>(m.node));
    out.set("material", m.material);
    out.set("clampedInfluences", g.clamped);
    return out;
  }
  /// Image `i`'s encoded bytes (PNG or JPEG) and MIME type; null bytes when it could not be read.
  emscripten::val image(std::size_t i) const {
    if (i >= asset_.images.size()) return emscripten::val::null();
    const MaterialImage& image = asset_.images[i];
    emscripten::val out = emscripten::val::object();
    out.set("bytes", image.bytes.empty() ? emscripten::val::null() : view(image.bytes));
    out.set("mimeType", image.mime_type);
    out.set("name", image.name);
    return out;
  }
  /// Reads the images that live beside the file into memory, while the file's folder still
  /// exists in the module's file system (load() removes it afterwards).
  void keep_image_files() {
    for (MaterialImage& image : asset_.images) {
      if (!image.bytes.empty() || image.path.empty()) continue;
      std::ifstream in(image.path, std::ios::binary);
      image.bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
  }

  /// The clip set the characters of this asset share, built on first use: one per override
  /// mask (`mask_root`: the joint whose subtree an override layer moves; empty: none).
  std::shared_ptr<const ClipSet> clip_set(const std::string& mask_root) {
    std::shared_ptr<const ClipSet>& set = sets_[mask_root];
    if (!set) set = build_clip_set(mask_root);
    return set;
  }

 private:
  std::shared_ptr<const ClipSet> build_clip_set(const std::string& mask_root) {
    ClipSetBuilder builder(asset_.skeleton);
    if (!mask_root.empty()) {
      Result<std::vector<float>> mask = mask_from_subtree(asset_.skeleton, mask_root);
      if (!mask) return fail(mask.error().message), nullptr;
      if (Status s = builder.add_mask("override", std::move(*mask)); !s)
        return fail(s.error().message), nullptr;
    }
    const MorphLayout layout = MorphLayout::build(asset_.meshes);
    if (layout.weight_count() > 0) {
      if (Status s = builder.set_morph_layout(layout); !s) return fail(s.error().message), nullptr;
    }
    for (const Clip& clip : asset_.clips) {
      if (Status s = builder.add_clip(clip); !s) return fail(s.error().message), nullptr;
    }
    Result<std::shared_ptr<const ClipSet>> set = builder.build();
    if (!set) return fail(set.error().message), nullptr;
    return *set;
  }

 public:
 private:
  Asset asset_;
  std::vector<GpuMesh> meshes_;
  std::map<std::string, std::shared_ptr<const ClipSet>> sets_;
};

/// Loads `path` from the module's file system (companions beside it: .bin buffers, textures,
/// .md5anim files). Null on failure, with the reader's error in last_error().
std::unique_ptr<WebAsset> load(const std::string& path) {
  Result<Asset> asset = load_asset(path);
  if (!asset) return fail(asset.error().message), nullptr;
  auto loaded = std::make_unique<WebAsset>(std::move(*asset));
  loaded->keep_image_files();
  return loaded;
}

/// One animated character: an Animator over the asset's clips, its pose and, per evaluate(), the
/// joints' model matrices and each skin's palette.
class Character {
 public:
  /// With `override_root`, a second layer (1) overrides the base (0) on that joint's subtree.
  static std::unique_ptr<Character> create(WebAsset& asset, const std::string& override_root) {
    std::shared_ptr<const ClipSet> set = asset.clip_set(override_root);
    if (!set) return nullptr;
    AnimatorOptions options;
    if (!override_root.empty()) {
      options.layers = {LayerDesc{"base", LayerMode::kNormal, 1, kNoId},
                        LayerDesc{"override", LayerMode::kOverride, 1, *set->mask_id("override")}};
    }
    Result<Animator> animator = Animator::create(set, options);
    if (!animator) return fail(animator.error().message), nullptr;
    return std::unique_ptr<Character>(new Character(asset.asset(), std::move(*animator)));
  }

  /// Starts clip `clip` (name or index) on layer `layer`; returns the player's id, or -1.
  double play(const std::string& clip, float weight, bool loop, float fade_in, int layer) {
    Result<ClipId> id = animator_.clip_set().clip_id(clip);
    if (!id) {
      const std::optional<std::size_t> index = asset_->find_clip(clip);
      if (!index) return fail(id.error().message), -1;
      id = static_cast<ClipId>(*index);
    }
    PlayOptions options;
    options.weight = weight;
    options.wrap = loop ? WrapMode::kLoop : WrapMode::kClamp;
    options.fade_in = fade_in;
    if (layer < 0 || static_cast<std::size_t>(layer) >=
                         std::max<std::size_t>(1, animator_.options().layers.size()))
      return fail("play: layer " + std::to_string(layer) +
                  " does not exist (a character made with an override joint has layers 0 and 1, "
                  "others only 0)"),
             -1;
    options.layer = static_cast<std::uint32_t>(layer);
    Result<PlayerId> player = animator_.play(*id, options);
    if (!player) return fail(player.error().message), -1;
    return player->value;
  }
  bool stop(double player) { return check(animator_.stop(id(player)), "stop"); }
  bool set_weight(double player, float weight) {
    return check(animator_.set_weight(id(player), weight), "setWeight");
  }
  bool set_time_scale(double player, float scale) {
    return check(animator_.set_time_scale(id(player), scale), "setTimeScale");
  }
  bool set_paused(double player, bool paused) {
    return check(animator_.set_paused(id(player), paused), "setPaused");
  }
  bool set_time(double player, float seconds) {
    return status(animator_.set_time(id(player), seconds));
  }
  bool cross_fade(double from, double to, float seconds) {
    return status(animator_.cross_fade(id(from), id(to), seconds));
  }
  bool fade_out(double player, float seconds) {
    return status(animator_.fade_out(id(player), seconds));
  }
  float player_time(double player) const { return animator_.info(id(player)).time; }

  /// Advances every player by dt seconds, then evaluates the pose, the model matrices and the
  /// skins' palettes.
  bool update(float dt) {
    animator_.update(dt);
    return evaluate();
  }
  bool evaluate() {
    if (!animator_.evaluate(workspace_, local_)) return fail("evaluate: the animator refused");
    SoaLocalToModelJob job;
    job.skeleton = &asset_->skeleton;
    job.local = local_;
    job.model = model_;
    if (!job.run()) return fail(job.validate().error().message);
    for (std::size_t s = 0; s < palettes_.size(); ++s) {
      if (!compute_skinning_palette(asset_->skins[s], model_, palettes_[s]))
        return fail("evaluate: skin " + std::to_string(s) + "'s palette was refused");
    }
    return true;
  }

  /// 16 floats per joint, column-major, valid until the next evaluate().
  emscripten::val model_matrices() const { return floats(model_); }
  /// 16 floats per joint of skin `skin` (its inverse bind matrices applied).
  emscripten::val palette(std::size_t skin) const {
    if (skin >= palettes_.size()) return emscripten::val::null();
    return floats(palettes_[skin]);
  }

 private:
  Character(const Asset& asset, Animator animator)
      : asset_(&asset), animator_(std::move(animator)) {
    const ClipSet& set = animator_.clip_set();
    workspace_.reserve(set, animator_.options().max_players);
    local_.resize(soa_group_count(set.skeleton().size()));
    model_.resize(set.skeleton().size());
    for (const Skin& skin : asset.skins) palettes_.emplace_back(skin.joints.size());
  }
  static PlayerId id(double player) { return PlayerId{static_cast<std::uint32_t>(player)}; }
  static bool check(bool ok, const char* call) {
    return ok || fail(std::string(call) + ": no such player (stopped, or never started)");
  }
  static bool status(const Status& s) { return s || fail(s.error().message); }
  static emscripten::val floats(const std::vector<Mat4>& m) {
    return emscripten::val(
        emscripten::typed_memory_view(m.size() * 16, reinterpret_cast<const float*>(m.data())));
  }

  const Asset* asset_;  // owned by the WebAsset, which JavaScript keeps while characters live
  Animator animator_;
  AnimatorWorkspace workspace_;
  std::vector<SoaTransform> local_;
  std::vector<Mat4> model_;
  std::vector<std::vector<Mat4>> palettes_;
};

const Asset& asset_of(const WebAsset& asset) {
  return asset.asset();
}

std::unique_ptr<Character> create_character(WebAsset& asset, const std::string& override_root) {
  return Character::create(asset, override_root);
}

/// The SIMD level the kernels run at ("wasm128", or "scalar" when set so), and a way to choose
/// it (the tests compare the two; the viewer shows it).
std::string simd_level() {
  return std::string(to_string(active_simd_level()));
}
bool set_simd(const std::string& name) {
  const std::optional<SimdLevel> level = simd_level_from_string(name);
  if (!level || !set_simd_level(*level))
    return fail("setSimdLevel: '" + name + "' is not a level this module runs (scalar, wasm128)");
  return true;
}

std::string version() {
  return std::string(kVersion);
}

EMSCRIPTEN_BINDINGS(marrow) {
  using namespace emscripten;
  function("lastError", &last_error);
  function("version", &version);
  function("simdLevel", &simd_level);
  function("setSimdLevel", &set_simd);
  function("load", &load);
  function("createCharacter", &create_character);
  class_<WebAsset>("Asset")
      .function("infoJson", &WebAsset::info_json)
      .function("jointCount", &WebAsset::joint_count)
      .function("clipCount", &WebAsset::clip_count)
      .function("mesh", &WebAsset::mesh)
      .function("image", &WebAsset::image);
  class_<Character>("Character")
      .function("play", &Character::play)
      .function("stop", &Character::stop)
      .function("setWeight", &Character::set_weight)
      .function("setTimeScale", &Character::set_time_scale)
      .function("setPaused", &Character::set_paused)
      .function("setTime", &Character::set_time)
      .function("crossFade", &Character::cross_fade)
      .function("fadeOut", &Character::fade_out)
      .function("playerTime", &Character::player_time)
      .function("update", &Character::update)
      .function("evaluate", &Character::evaluate)
      .function("modelMatrices", &Character::model_matrices)
      .function("palette", &Character::palette);
}

}  // namespace marrow::web
