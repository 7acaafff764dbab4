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
#include <optional>
#include <string>
#include <vector>

#include "marrow/control/animator.h"
#include "marrow/control/clip_set.h"
#include "marrow/io/animation_script.h"
#include "marrow/io/asset.h"
#include "marrow/io/asset_info.h"
#include "marrow/io/script_runner.h"
#include "marrow/math/simd.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "marrow/retarget/humanoid.h"
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

  /// Mesh `i`'s morph targets laid out for MorphJob (in the mesh's vertex order), built on first
  /// use; null when it has none.
  const MorphMesh* morph_mesh(std::size_t i) {
    if (i >= asset_.meshes.size() || asset_.meshes[i].morph_targets.empty()) return nullptr;
    if (morph_meshes_.empty()) morph_meshes_.resize(asset_.meshes.size());
    if (!morph_meshes_[i]) {
      Result<MorphMesh> built = MorphMesh::build(asset_.meshes[i]);
      if (!built) return fail(built.error().message), nullptr;
      morph_meshes_[i] = std::make_unique<MorphMesh>(std::move(*built));
    }
    return morph_meshes_[i].get();
  }
  const MorphLayout& morph_layout() {
    if (!morph_layout_) morph_layout_ = MorphLayout::build(asset_.meshes);
    return *morph_layout_;
  }

  /// The clip set the characters of one setup share (`setup`: its JSON text), built on first
  /// use; null, with the reason in last_error(), when the setup does not build.
  std::shared_ptr<const ClipSet> clip_set(const std::string& setup, const AnimationScript& script) {
    std::shared_ptr<const ClipSet>& set = sets_[setup];
    if (!set) {
      Result<std::shared_ptr<const ClipSet>> built = ScriptRunner::build_clip_set(asset_, script);
      if (!built) return fail(built.error().message), nullptr;
      set = std::move(built).value();
    }
    return set;
  }

 private:
  Asset asset_;
  std::vector<GpuMesh> meshes_;
  std::map<std::string, std::shared_ptr<const ClipSet>> sets_;
  std::vector<std::unique_ptr<MorphMesh>> morph_meshes_;
  std::optional<MorphLayout> morph_layout_;
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

/// One animated character: the setup of an animation script (docs/control.md: layers, masks,
/// blend spaces, markers, a state machine, foot planting, ...) run by a ScriptRunner, whose
/// commands (play, set_param, set_morph, ik, ...) JavaScript sends one at a time, and whose
/// Animator it may also drive directly. Per update: the pose, the model matrices (IK edits
/// included), the morph weights and each skin's palette.
class Character {
 public:
  /// `setup` is a script without a timeline (JSON); errors name the place in it.
  static std::unique_ptr<Character> create(WebAsset& asset, const std::string& setup) {
    Result<AnimationScript> script = parse_animation_script(setup, "setup");
    if (!script) return fail(script.error().message), nullptr;
    if (!script->timeline.empty()) {
      return fail("setup: timeline: a character takes its commands one at a time (command())"),
             nullptr;
    }
    std::shared_ptr<const ClipSet> set;
    if (!script->motion_matching) {
      set = asset.clip_set(setup, *script);
      if (!set) return nullptr;
    }
    Result<ScriptRunner> runner = ScriptRunner::create(asset.asset(), *script, std::move(set));
    if (!runner) return fail(runner.error().message), nullptr;
    return std::unique_ptr<Character>(new Character(asset, std::move(*runner)));
  }

  /// Starts clip `clip` (name or index) on layer `layer`; returns the player's id, or -1.
  double play(const std::string& clip, float weight, bool loop, float fade_in, int layer) {
    Animator* a = animator("play");
    if (!a) return -1;
    Result<ClipId> id = a->clip_set().clip_id(clip);
    if (!id) {
      const std::optional<std::size_t> index = asset_->find_clip(clip);
      if (!index) return fail(id.error().message), -1;
      id = static_cast<ClipId>(*index);
    }
    PlayOptions options;
    if (!play_options(*a, weight, loop, fade_in, layer, options)) return -1;
    Result<PlayerId> player = a->play(*id, options);
    if (!player) return fail(player.error().message), -1;
    return player->value;
  }
  /// Starts blend space `space` at parameter (x, y); returns the player's id, or -1.
  double play_blend_space(const std::string& space, float x, float y, float weight, bool loop,
                          float fade_in, int layer) {
    Animator* a = animator("playBlendSpace");
    if (!a) return -1;
    Result<BlendSpaceId> id = a->clip_set().blend_space_id(space);
    if (!id) return fail(id.error().message), -1;
    PlayOptions options;
    if (!play_options(*a, weight, loop, fade_in, layer, options)) return -1;
    options.blend_x = x;
    options.blend_y = y;
    Result<PlayerId> player = a->play_blend_space(*id, options);
    if (!player) return fail(player.error().message), -1;
    return player->value;
  }
  bool set_blend(double player, float x, float y) {
    Animator* a = animator("setBlend");
    return a && (a->set_blend_parameter(id(player), x, y) ||
                 fail("setBlend: no such player, or it does not play a blend space"));
  }
  bool stop(double player) {
    return with("stop", [&](Animator& a) { return a.stop(id(player)); });
  }
  bool set_weight(double player, float weight) {
    return with("setWeight", [&](Animator& a) { return a.set_weight(id(player), weight); });
  }
  bool set_time_scale(double player, float scale) {
    return with("setTimeScale", [&](Animator& a) { return a.set_time_scale(id(player), scale); });
  }
  bool set_paused(double player, bool paused) {
    return with("setPaused", [&](Animator& a) { return a.set_paused(id(player), paused); });
  }
  bool set_time(double player, float seconds) {
    Animator* a = animator("setTime");
    return a && status(a->set_time(id(player), seconds));
  }
  bool cross_fade(double from, double to, float seconds) {
    Animator* a = animator("crossFade");
    return a && status(a->cross_fade(id(from), id(to), seconds));
  }
  bool fade_out(double player, float seconds) {
    Animator* a = animator("fadeOut");
    return a && status(a->fade_out(id(player), seconds));
  }
  float player_time(double player) {
    Animator* a = runner_.animator();
    return a ? a->info(id(player)).time : 0.0f;
  }

  /// Runs one of a script's timeline entries now (`{"set_param": {"name": "speed", ...}}`).
  bool command(const std::string& json) {
    Result<ScriptCommand> c = parse_script_command(json, "command");
    if (!c) return fail(c.error().message);
    return status(runner_.run(*c));
  }

  /// Advances by dt seconds, then evaluates the pose, IK, the model matrices, the morph weights
  /// and the skins' palettes.
  bool update(float dt) {
    if (Status s = runner_.step(dt, frame_); !s) return fail(s.error().message);
    for (std::size_t s = 0; s < palettes_.size(); ++s) {
      if (!compute_skinning_palette(asset_->skins[s], frame_.model, palettes_[s]))
        return fail("update: skin " + std::to_string(s) + "'s palette was refused");
    }
    return true;
  }

  /// 16 floats per joint, column-major, valid until the next update().
  emscripten::val model_matrices() const { return floats(frame_.model); }
  /// 16 floats per joint of skin `skin` (its inverse bind matrices applied).
  emscripten::val palette(std::size_t skin) const {
    if (skin >= palettes_.size()) return emscripten::val::null();
    return floats(palettes_[skin]);
  }
  /// One weight per morph slot (marrow info's "morph slots"), valid until the next update().
  emscripten::val morph_weights() const { return view(frame_.morph_weights); }
  /// Mesh `mesh`'s vertices with the morph weights of the last update applied (marrow's MorphJob),
  /// in the mesh's vertex order: {positions, normals} as views valid until the next call; null
  /// when the mesh has no morph targets.
  emscripten::val morphed_mesh(std::size_t mesh) {
    const MorphMesh* morph = asset_web_->morph_mesh(mesh);
    if (!morph) return emscripten::val::null();
    if (morphed_.size() <= mesh) morphed_.resize(asset_->meshes.size());
    if (!morphed_[mesh]) morphed_[mesh] = MorphedVertices::create(*morph);
    MorphedVertices& out = *morphed_[mesh];
    const std::span<const float> weights =
        asset_web_->morph_layout().weights_of(asset_->meshes[mesh], frame_.morph_weights);
    MorphJob job{morph, weights, &out};
    if (!job.run_reference()) {
      fail("morphedMesh: " + job.validate().error().message);
      return emscripten::val::null();
    }
    const std::size_t n = asset_->meshes[mesh].vertex_count();
    emscripten::val result = emscripten::val::object();
    result.set("positions", emscripten::val(emscripten::typed_memory_view(
                                n * 3, reinterpret_cast<const float*>(out.positions.data()))));
    result.set("normals", out.normals.empty()
                              ? emscripten::val::null()
                              : emscripten::val(emscripten::typed_memory_view(
                                    n * 3, reinterpret_cast<const float*>(out.normals.data()))));
    return result;
  }
  /// The state machine's current state ("" without one).
  std::string state() const { return frame_.state; }
  /// The IK constraints set: [{id, weight now, whether the target was reached}].
  emscripten::val ik() const {
    emscripten::val out = emscripten::val::array();
    for (const ScriptFrame::Ik& ik : frame_.ik) {
      emscripten::val item = emscripten::val::object();
      item.set("id", ik.id);
      item.set("weight", ik.weight);
      item.set("reached", ik.reached);
      out.call<void>("push", item);
    }
    return out;
  }
  /// The last update's events (clip events, markers, loops, ends).
  emscripten::val events() const {
    emscripten::val out = emscripten::val::array();
    for (const AnimationEvent& e : frame_.events) {
      emscripten::val item = emscripten::val::object();
      item.set("type", std::string(to_string(e.type)));
      item.set("name", std::string(e.name));
      item.set("player", e.player.value);
      item.set("clipTime", e.clip_time);
      item.set("time", e.time);
      out.call<void>("push", item);
    }
    return out;
  }

 private:
  Character(WebAsset& asset, ScriptRunner runner)
      : asset_web_(&asset), asset_(&asset.asset()), runner_(std::move(runner)) {
    frame_.model.resize(asset_->skeleton.size());
    for (const Skin& skin : asset_->skins) palettes_.emplace_back(skin.joints.size());
  }
  Animator* animator(const char* call) {
    Animator* a = runner_.animator();
    if (!a)
      fail(std::string(call) +
           ": a motion-matching character is moved by its stick (command({stick: ...}))");
    return a;
  }
  template <typename F>
  bool with(const char* call, F act) {
    Animator* a = animator(call);
    return a &&
           (act(*a) || fail(std::string(call) + ": no such player (stopped, or never started)"));
  }
  static bool play_options(const Animator& a, float weight, bool loop, float fade_in, int layer,
                           PlayOptions& options) {
    const std::size_t layers = std::max<std::size_t>(1, a.options().layers.size());
    if (layer < 0 || static_cast<std::size_t>(layer) >= layers) {
      return fail("play: layer " + std::to_string(layer) + " does not exist (the character has " +
                  std::to_string(layers) + ")");
    }
    options.weight = weight;
    options.wrap = loop ? WrapMode::kLoop : WrapMode::kClamp;
    options.fade_in = fade_in;
    options.layer = static_cast<std::uint32_t>(layer);
    return true;
  }
  static PlayerId id(double player) { return PlayerId{static_cast<std::uint32_t>(player)}; }
  static bool status(const Status& s) { return s || fail(s.error().message); }
  static emscripten::val floats(const std::vector<Mat4>& m) {
    return emscripten::val(
        emscripten::typed_memory_view(m.size() * 16, reinterpret_cast<const float*>(m.data())));
  }

  WebAsset* asset_web_;  // JavaScript keeps the asset while its characters live
  const Asset* asset_;
  ScriptRunner runner_;
  std::vector<std::optional<MorphedVertices>> morphed_;
  ScriptFrame frame_;
  std::vector<std::vector<Mat4>> palettes_;
};

const Asset& asset_of(const WebAsset& asset) {
  return asset.asset();
}

std::unique_ptr<Character> create_character(WebAsset& asset, const std::string& setup) {
  return Character::create(asset, setup);
}

/// The humanoid parts marrow finds in the skeleton (retarget/humanoid.h), as the "target" section
/// of a retargeting map: part -> joint reference, "?" for parts not found. "" when the skeleton
/// is not a humanoid, with the reason in last_error().
std::string humanoid_json(const WebAsset& asset) {
  Result<HumanoidRig> rig = match_humanoid(asset.asset().skeleton);
  if (!rig) return fail(rig.error().message), std::string();
  return humanoid_map_template(asset.asset().skeleton, *rig, "target");
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
  function("humanoidJson", &humanoid_json);
  class_<Character>("Character")
      .function("play", &Character::play)
      .function("playBlendSpace", &Character::play_blend_space)
      .function("setBlend", &Character::set_blend)
      .function("command", &Character::command)
      .function("morphWeights", &Character::morph_weights)
      .function("morphedMesh", &Character::morphed_mesh)
      .function("state", &Character::state)
      .function("ik", &Character::ik)
      .function("events", &Character::events)
      .function("stop", &Character::stop)
      .function("setWeight", &Character::set_weight)
      .function("setTimeScale", &Character::set_time_scale)
      .function("setPaused", &Character::set_paused)
      .function("setTime", &Character::set_time)
      .function("crossFade", &Character::cross_fade)
      .function("fadeOut", &Character::fade_out)
      .function("playerTime", &Character::player_time)
      .function("update", &Character::update)
      .function("modelMatrices", &Character::model_matrices)
      .function("palette", &Character::palette);
}

}  // namespace marrow::web
