#include "asset_checks.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "fuzz_target.h"
#include "marrow/clip/compiled_sampling.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/archive.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/morph.h"
#include "marrow/skin/skinning.h"

namespace marrow::fuzz {
namespace {

// Work caps: a fuzz input must stay fast to play whatever it holds.
constexpr std::size_t kMaxClipsPlayed = 4;
constexpr std::size_t kMaxMeshesSkinned = 4;
constexpr std::size_t kMaxVerticesSkinned = 1 << 16;
// Below this magnitude no sum of a few products of stored numbers can overflow a float, so a
// sampled local pose must come out finite (cubic-spline tangents are scaled by key intervals,
// so times count too).
constexpr float kBoundedMagnitude = 1e15f;

#define ASSET_CHECK(condition, what) MARROW_FUZZ_CHECK(condition, where + ": " + (what))

bool finite(std::span<const float> v) {
  return std::all_of(v.begin(), v.end(), [](float f) { return std::isfinite(f); });
}
bool finite(const Mat4& m) {
  return finite(m.m);
}
bool bounded(std::span<const float> v) {
  return std::all_of(v.begin(), v.end(), [](float f) { return std::fabs(f) <= kBoundedMagnitude; });
}
bool bounded(const Transform& t) {
  const float f[10] = {t.translation.x, t.translation.y, t.translation.z, t.rotation.x,
                       t.rotation.y,    t.rotation.z,    t.rotation.w,    t.scale.x,
                       t.scale.y,       t.scale.z};
  return bounded(f);
}

void check_skeleton(const Asset& asset, const std::string& where) {
  const Skeleton& s = asset.skeleton;
  ASSET_CHECK(s.size() <= kMaxJoints, "more joints than a JointIndex holds");
  ASSET_CHECK(s.names().size() == s.size() && s.rest_pose().size() == s.size(),
              "skeleton arrays of different lengths");
  ASSET_CHECK(asset.source_index.size() == s.size(),
              "source_index has " + std::to_string(asset.source_index.size()) + " entries for " +
                  std::to_string(s.size()) + " joints");
  for (std::size_t j = 0; j < s.size(); ++j) {
    const JointIndex p = s.parent(j);
    ASSET_CHECK(p == kNoParent || p < j, "joint " + std::to_string(j) + " comes before its parent");
    ASSET_CHECK(is_finite(s.rest_pose()[j]), "joint " + std::to_string(j) + " rest not finite");
    ASSET_CHECK(asset.source_index[j] >= -1, "source index below -1");
  }
}

void check_clip(const Clip& clip, std::size_t joints, const std::string& where) {
  ASSET_CHECK(clip.joint_count() == joints, "clip '" + clip.name() + "' built for " +
                                                std::to_string(clip.joint_count()) + " joints");
  ASSET_CHECK(std::isfinite(clip.duration()) && clip.duration() >= 0,
              "clip '" + clip.name() + "' duration " + std::to_string(clip.duration()));
  ASSET_CHECK(std::isfinite(clip.ticks_per_second()) && clip.ticks_per_second() >= 0,
              "clip '" + clip.name() + "' ticks per second not finite");
  ASSET_CHECK(clip.track_joint_names().size() == clip.tracks().size(),
              "clip '" + clip.name() + "' track names and tracks differ in count");
  ASSET_CHECK(finite(clip.times()) && finite(clip.values()),
              "clip '" + clip.name() + "' holds a non-finite key");
  for (const Track& t : clip.tracks()) {
    const std::string tw = "clip '" + clip.name() + "' track of joint " + std::to_string(t.joint);
    ASSET_CHECK(t.joint < joints, tw + ": joint out of range");
    ASSET_CHECK(t.key_count >= 1, tw + ": no key");
    ASSET_CHECK(std::size_t{t.first_key} + t.key_count <= clip.times().size(), tw + ": times");
    const std::size_t floats = std::size_t{t.key_count} * floats_per_key(t.target, t.interpolation);
    ASSET_CHECK(std::size_t{t.first_value} + floats <= clip.values().size(), tw + ": values");
    for (std::uint32_t k = 0; k < t.key_count; ++k) {
      const float time = clip.times()[t.first_key + k];
      ASSET_CHECK(time >= 0 && time <= clip.duration(), tw + ": key time outside the clip");
      if (k > 0)
        ASSET_CHECK(time > clip.times()[t.first_key + k - 1], tw + ": times not increasing");
    }
  }
  for (const ClipEvent& e : clip.events()) {
    ASSET_CHECK(std::isfinite(e.time) && e.time >= 0, "clip '" + clip.name() + "' event time");
  }
}

// A compiled clip the archive gave back belongs to its clip and skeleton.
void check_compiled_clips(const Asset& asset, const std::string& where) {
  ASSET_CHECK(asset.compiled_clips.size() <= asset.clips.size(), "more compiled clips than clips");
  for (std::size_t c = 0; c < asset.compiled_clips.size(); ++c) {
    if (!asset.compiled_clips[c]) continue;
    ASSET_CHECK(asset.compiled_clip(c) != nullptr,
                "compiled clip " + std::to_string(c) + " does not fit its clip or skeleton");
    const CompiledClipReport& r = asset.compiled_clips[c]->report();
    ASSET_CHECK(std::isfinite(r.bound) && r.bound > 0 && r.max_error <= r.bound,
                "compiled clip " + std::to_string(c) + ": report out of range");
  }
}

// Samples a compiled clip at a few times, forward, backward and past both ends: every value
// comes out finite (from_data checked what the frames decode to) and rotations unit.
void play_compiled_clip(const Asset& asset, const CompiledClip& compiled,
                        const std::string& where) {
  const std::size_t groups = soa_group_count(asset.skeleton.size());
  std::vector<SoaTransform> soa(groups);
  std::vector<Transform> pose(asset.skeleton.size());
  CompiledSamplingContext context(compiled);
  const float d = compiled.duration();
  for (float t : {0.0f, d * 0.37f, d * 0.5f, d, d * 0.25f, -1.0f, d + 1.0f}) {
    CompiledSamplingJob job;
    job.clip = &compiled;
    job.time = t;
    job.rest_pose = asset.skeleton.soa_rest_pose();
    job.context = &context;
    job.output = soa;
    ASSET_CHECK(job.run(), "CompiledSamplingJob refused the asset's own compiled clip");
    ASSET_CHECK(from_soa(soa, pose), "from_soa refused the skeleton's size");
    for (const Transform& x : pose) {
      if (!bounded(x)) continue;  // exact-key cubic tracks may overflow like any clip's
      ASSET_CHECK(is_finite(x),
                  "compiled clip '" + compiled.name() + "' sampled a non-finite pose");
    }
  }
}

// What the writers rely on: textures name images of the asset, factors are finite.
void check_material(const Asset& asset, const Material& m, const std::string& where) {
  const std::string mw = "material '" + m.name + "'";
  for (const TextureRef* t :
       {&m.base_color, &m.metallic_roughness, &m.normal, &m.occlusion, &m.emissive}) {
    ASSET_CHECK(t->image >= -1 && t->image < static_cast<int>(asset.images.size()),
                mw + ": texture image out of range");
    if (t->transform)
      ASSET_CHECK(finite(t->transform->offset) && finite(t->transform->scale) &&
                      std::isfinite(t->transform->rotation),
                  mw + ": texture transform not finite");
  }
  ASSET_CHECK(finite(m.base_color_factor) && finite(m.emissive_factor) &&
                  std::isfinite(m.metallic_factor) && std::isfinite(m.roughness_factor) &&
                  std::isfinite(m.normal_scale) && std::isfinite(m.occlusion_strength) &&
                  std::isfinite(m.emissive_strength) && std::isfinite(m.alpha_cutoff),
              mw + ": factor not finite");
}

void check_mesh(const Asset& asset, const SkinnedMesh& m, const std::string& where) {
  const std::string mw = "mesh '" + m.name + "'";
  const std::size_t n = m.vertex_count();
  ASSET_CHECK(m.node == kNoParent || m.node < asset.skeleton.size(), mw + ": node out of range");
  ASSET_CHECK(m.skin >= -1 && m.skin < static_cast<int>(asset.skins.size()),
              mw + ": skin out of range");
  ASSET_CHECK(m.normals.empty() || m.normals.size() == n, mw + ": normal count");
  ASSET_CHECK(m.tangents.empty() || m.tangents.size() == n, mw + ": tangent count");
  ASSET_CHECK(m.uvs.empty() || m.uvs.size() == n, mw + ": uv count");
  ASSET_CHECK(m.colors.empty() || m.colors.size() == n, mw + ": colour count");
  for (const auto& c : m.colors) ASSET_CHECK(finite(c), mw + ": colour not finite");
  ASSET_CHECK(m.material >= -1 && m.material < static_cast<int>(asset.materials.size()),
              mw + ": material out of range");
  ASSET_CHECK(m.indices.size() % 3 == 0, mw + ": index count not a multiple of 3");
  for (std::uint32_t i : m.indices) ASSET_CHECK(i < n, mw + ": index out of range");
  for (const Vec3& p : m.positions) ASSET_CHECK(is_finite(p), mw + ": position not finite");
  for (const Vec3& v : m.normals) ASSET_CHECK(is_finite(v), mw + ": normal not finite");
  for (const auto& t : m.tangents) ASSET_CHECK(finite(t), mw + ": tangent not finite");
  for (const auto& uv : m.uvs) ASSET_CHECK(finite(uv), mw + ": uv not finite");
  if (m.influence_offsets.empty()) {
    ASSET_CHECK(m.influence_joints.empty() && m.influence_weights.empty(),
                mw + ": influences without offsets");
    return;
  }
  ASSET_CHECK(m.skin >= 0, mw + ": influences on a mesh without a skin");
  ASSET_CHECK(m.influence_offsets.size() == n + 1, mw + ": influence offsets count");
  ASSET_CHECK(m.influence_offsets.front() == 0, mw + ": first influence offset");
  for (std::size_t v = 0; v < n; ++v)
    ASSET_CHECK(m.influence_offsets[v] <= m.influence_offsets[v + 1], mw + ": offsets decrease");
  ASSET_CHECK(m.influence_offsets.back() == m.influence_joints.size() &&
                  m.influence_joints.size() == m.influence_weights.size(),
              mw + ": influence array lengths");
  const std::size_t skin_joints = asset.skins[static_cast<std::size_t>(m.skin)].joints.size();
  for (std::uint16_t j : m.influence_joints)
    ASSET_CHECK(j < skin_joints, mw + ": influence joint out of the skin's range");
  for (float w : m.influence_weights)
    ASSET_CHECK(std::isfinite(w) && w >= 0, mw + ": influence weight not finite or negative");
}

// Samples `clip` at a few times, with a cursor (forward, then a seek back) and without, and
// checks the two agree and (for bounded data) stay finite.
void play_clip(const Asset& asset, const Clip& clip, std::vector<Transform>& pose,
               const std::string& where) {
  const std::span<const Transform> rest = asset.skeleton.rest_pose();
  const float d = clip.duration();
  const float times[] = {0.0f, d * 0.37f, d * 0.5f, d, d * 1.5f + 1.0f, d * 0.25f, -1.0f};
  const bool is_bounded =
      bounded(clip.values()) && bounded(clip.times()) &&
      std::all_of(rest.begin(), rest.end(), [](const Transform& t) { return bounded(t); });
  SamplingCursor cursor(clip);
  std::vector<Transform> reference(rest.begin(), rest.end());
  for (float t : times) {
    for (WrapMode mode : {WrapMode::kClamp, WrapMode::kLoop, WrapMode::kPingPong}) {
      const float wrapped = wrap_time(t, d, mode);
      ASSET_CHECK(std::isfinite(wrapped), "wrap_time gave a non-finite time");
    }
    ASSET_CHECK(sample(clip, rest, t, cursor, pose), "sample() refused a clip of the asset");
    std::copy(rest.begin(), rest.end(), reference.begin());
    ASSET_CHECK(sample_tracks(clip, t, reference), "sample_tracks() refused a clip of the asset");
    if (is_bounded) {
      for (std::size_t j = 0; j < pose.size(); ++j) {
        ASSET_CHECK(is_finite(pose[j]),
                    "clip '" + clip.name() + "' sampled a non-finite joint " + std::to_string(j));
        // The cursor is an accelerator only: it must find the same keys as a binary search.
        ASSET_CHECK(pose[j] == reference[j], "clip '" + clip.name() +
                                                 "': cursor and binary search disagree at joint " +
                                                 std::to_string(j));
      }
    }
  }
}

void skin_mesh(const Asset& asset, const SkinnedMesh& mesh, std::span<const Mat4> model,
               const std::string& where) {
  if (mesh.skin < 0 || mesh.vertex_count() > kMaxVerticesSkinned) return;
  const Skin& mesh_skin = asset.skins[static_cast<std::size_t>(mesh.skin)];
  Result<SkinningMesh> prepared =
      SkinningMesh::build(mesh, mesh_skin.joints.size(), 4, UnweightedVertices::kKeepBindPosition);
  if (!prepared) {
    // A documented refusal (non-finite or negative weights, bad joint): it must say which mesh.
    MARROW_FUZZ_CHECK(!prepared.error().message.empty(), where + ": empty SkinningMesh error");
    return;
  }
  std::vector<Mat4> palette(mesh_skin.joints.size());
  ASSET_CHECK(compute_skinning_palette(mesh_skin, model, palette),
              "palette refused the asset's skin");
  std::vector<DqsJoint> dq(palette.size());
  ASSET_CHECK(compute_dual_quat_palette(palette, dq), "dual-quaternion palette refused");
  const std::size_t n = prepared->vertex_count();
  std::vector<Vec3> positions(n), normals(n);
  std::vector<std::array<float, 4>> tangents(n);
  const SkinningOutput out{positions, normals, tangents};
  ASSET_CHECK(skin(*prepared, std::span<const Mat4>(palette), SkinningMethod::kLinear, out),
              "LBS refused valid spans");
  ASSET_CHECK(skin(*prepared, std::span<const Mat4>(palette), SkinningMethod::kDualQuaternion, out),
              "DQS refused valid spans");
  ASSET_CHECK(skin(*prepared, std::span<const DqsJoint>(dq), out, std::size_t{0}, n),
              "DQS refused its palette");
  (void)compute_bounds(positions);
  (void)conservative_skinned_bounds(*prepared, palette);
}

// Rotations (rest and step/linear keys) are normalized again by every build, which may move a
// float quaternion by an ulp; everything else must survive the archive bit for bit.
constexpr float kRenormalizedTolerance = 3e-7f;

bool same_rotation(const float* a, const float* b) {
  for (int i = 0; i < 4; ++i)
    if (!(std::fabs(a[i] - b[i]) <= kRenormalizedTolerance)) return false;
  return true;
}

void expect_same_clip(const Clip& a, const Clip& b, const std::string& where) {
  const std::string cw = "clip '" + a.name() + "'";
  ASSET_CHECK(a.name() == b.name() && a.duration() == b.duration() &&
                  a.ticks_per_second() == b.ticks_per_second() &&
                  a.tracks().size() == b.tracks().size(),
              cw + " changed shape");
  // Per track: the archive may share one time array between tracks, so offsets may differ.
  for (std::size_t t = 0; t < a.tracks().size(); ++t) {
    const Track &x = a.tracks()[t], &y = b.tracks()[t];
    const std::string tw = cw + " track " + std::to_string(t);
    ASSET_CHECK(x.joint == y.joint && x.target == y.target && x.interpolation == y.interpolation &&
                    x.key_count == y.key_count &&
                    a.track_joint_names()[t] == b.track_joint_names()[t],
                tw + " changed");
    const float* ta = a.times().data() + x.first_key;
    ASSET_CHECK(std::equal(ta, ta + x.key_count, b.times().data() + y.first_key), tw + ": times");
    const std::size_t per_key = floats_per_key(x.target, x.interpolation);
    const bool renormalized =
        x.target == TrackTarget::kRotation && x.interpolation != Interpolation::kCubicSpline;
    for (std::size_t k = 0; k < x.key_count; ++k) {
      const float* p = a.values().data() + x.first_value + k * per_key;
      const float* q = b.values().data() + y.first_value + k * per_key;
      ASSET_CHECK(renormalized ? same_rotation(p, q) : std::equal(p, p + per_key, q),
                  tw + " key " + std::to_string(k) + " changed");
    }
  }
  ASSET_CHECK(a.events().size() == b.events().size(), cw + ": events");
  for (std::size_t e = 0; e < a.events().size(); ++e)
    ASSET_CHECK(
        a.events()[e].time == b.events()[e].time && a.events()[e].name == b.events()[e].name,
        cw + ": event " + std::to_string(e));
}

void expect_same_asset(const Asset& a, const Asset& b, const std::string& where) {
  ASSET_CHECK(a.skeleton.size() == b.skeleton.size(), "joint count changed");
  for (std::size_t j = 0; j < a.skeleton.size(); ++j) {
    const Transform &x = a.skeleton.rest_pose()[j], &y = b.skeleton.rest_pose()[j];
    const float qx[4] = {x.rotation.x, x.rotation.y, x.rotation.z, x.rotation.w};
    const float qy[4] = {y.rotation.x, y.rotation.y, y.rotation.z, y.rotation.w};
    ASSET_CHECK(a.skeleton.name(j) == b.skeleton.name(j) &&
                    a.skeleton.parent(j) == b.skeleton.parent(j) &&
                    x.translation == y.translation && x.scale == y.scale && same_rotation(qx, qy),
                "joint " + std::to_string(j) + " changed");
  }
  ASSET_CHECK(a.source_index == b.source_index, "source indices changed");
  ASSET_CHECK(a.clips.size() == b.clips.size(), "clip count changed");
  for (std::size_t c = 0; c < a.clips.size(); ++c) expect_same_clip(a.clips[c], b.clips[c], where);
  for (std::size_t c = 0; c < a.clips.size(); ++c) {
    const CompiledClip *x = a.compiled_clip(c), *y = b.compiled_clip(c);
    ASSET_CHECK((x == nullptr) == (y == nullptr),
                "clip " + std::to_string(c) + ": compiled form lost or gained");
    if (x == nullptr) continue;
    const CompiledClipData dx = x->to_data(), dy = y->to_data();
    // Exact keys are read back as the exact clips' are: rotations renormalized on load, which
    // is not idempotent in floats (a second load may move a component by an ulp), so values
    // agree within the exact clips' 3e-7 (same_rotation) and everything else bit for bit.
    bool same_keyed_values = dx.keyed_values.size() == dy.keyed_values.size();
    for (std::size_t i = 0; same_keyed_values && i < dx.keyed_values.size(); ++i) {
      const float u = dx.keyed_values[i], v = dy.keyed_values[i];
      same_keyed_values = u == v || std::fabs(u - v) <= 3e-7f * std::max(1.0f, std::fabs(u));
    }
    ASSET_CHECK(
        dx.sources == dy.sources && dx.constants == dy.constants && dx.frames == dy.frames &&
            dx.frame_times == dy.frame_times && dx.ranges == dy.ranges &&
            dx.keyed_times == dy.keyed_times && same_keyed_values &&
            dx.segments.size() == dy.segments.size() && dx.streams.size() == dy.streams.size() &&
            dx.track_groups.size() == dy.track_groups.size() && dx.keyed.size() == dy.keyed.size(),
        "clip " + std::to_string(c) + ": compiled form changed");
  }
  ASSET_CHECK(a.skins.size() == b.skins.size(), "skin count changed");
  for (std::size_t s = 0; s < a.skins.size(); ++s) {
    ASSET_CHECK(a.skins[s].name == b.skins[s].name && a.skins[s].joints == b.skins[s].joints &&
                    a.skins[s].inverse_bind_matrices == b.skins[s].inverse_bind_matrices &&
                    a.skins[s].root_hint == b.skins[s].root_hint,
                "skin " + std::to_string(s) + " changed");
  }
  ASSET_CHECK(a.meshes.size() == b.meshes.size(), "mesh count changed");
  for (std::size_t m = 0; m < a.meshes.size(); ++m) {
    const SkinnedMesh &x = a.meshes[m], &y = b.meshes[m];
    ASSET_CHECK(
        x.name == y.name && x.node == y.node && x.skin == y.skin && x.positions == y.positions &&
            x.normals == y.normals && x.tangents == y.tangents && x.uvs == y.uvs &&
            x.indices == y.indices && x.influence_offsets == y.influence_offsets &&
            x.influence_joints == y.influence_joints && x.influence_weights == y.influence_weights,
        "mesh " + std::to_string(m) + " changed");
  }
  ASSET_CHECK(a.warnings == b.warnings, "warnings changed");
}

// Morph targets as a frame applies them: the character's weight array, each clip's weights at
// two times over the defaults, and MorphJob (SIMD) against its scalar twin on up to
// kMaxMeshesSkinned meshes.
void morph_meshes(const Asset& asset, const std::string& where) {
  const MorphLayout layout = MorphLayout::build(asset.meshes);
  if (layout.weight_count() == 0) return;
  std::vector<float> weights(layout.default_weights().begin(), layout.default_weights().end());
  const std::size_t clips = std::min(asset.clips.size(), kMaxClipsPlayed);
  for (std::size_t c = 0; c < clips; ++c) {
    const Clip& clip = asset.clips[c];
    if (clip.weight_count() == 0 || clip.weight_count() > weights.size()) continue;
    SamplingCursor cursor(clip);
    for (float t : {0.0f, clip.duration() * 0.5f}) {
      ASSET_CHECK(sample_weights(clip, layout.default_weights(), t, cursor, weights),
                  "sample_weights refused a clip of the asset's own weight array");
    }
  }
  const bool usable = std::all_of(weights.begin(), weights.end(),
                                  [](float w) { return std::isfinite(w) && std::fabs(w) < 1e6f; });
  std::size_t morphed = 0;
  for (const SkinnedMesh& mesh : asset.meshes) {
    if (mesh.morph_targets.empty()) continue;
    if (morphed++ == kMaxMeshesSkinned) break;
    Result<MorphMesh> prepared = MorphMesh::build(mesh);
    ASSET_CHECK(prepared.ok(), "MorphMesh::build refused an imported mesh: " +
                                   (prepared.ok() ? std::string() : prepared.error().message));
    if (!usable) continue;
    MorphedVertices simd = MorphedVertices::create(*prepared), scalar = simd;
    const std::span<const float> mine = layout.weights_of(mesh, weights);
    ASSET_CHECK((MorphJob{&*prepared, mine, &simd}.run()), "MorphJob refused the mesh's weights");
    ASSET_CHECK((MorphJob{&*prepared, mine, &scalar}.run_reference()),
                "the scalar MorphJob refused the mesh's weights");
    for (std::size_t v = 0; v < mesh.vertex_count(); ++v) {
      const Vec3 d = simd.positions[v] - scalar.positions[v];
      const float scale = 1 + std::fabs(scalar.positions[v].x) + std::fabs(scalar.positions[v].y) +
                          std::fabs(scalar.positions[v].z);
      if (!is_finite(scalar.positions[v])) continue;  // huge deltas may overflow either way
      ASSET_CHECK(std::fabs(d.x) + std::fabs(d.y) + std::fabs(d.z) <= 1e-4f * scale,
                  "MorphJob and its scalar twin disagree at vertex " + std::to_string(v));
    }
  }
}

}  // namespace

void check_asset(const Asset& asset, const std::string& where) {
  check_skeleton(asset, where);
  for (const Clip& clip : asset.clips) check_clip(clip, asset.skeleton.size(), where);
  check_compiled_clips(asset, where);
  for (const Skin& skin : asset.skins) {
    ASSET_CHECK(skin.joints.size() == skin.inverse_bind_matrices.size(),
                "skin '" + skin.name + "': joints and inverse bind matrices differ in count");
    for (JointIndex j : skin.joints)
      ASSET_CHECK(j < asset.skeleton.size(), "skin '" + skin.name + "': joint out of range");
    for (const Mat4& m : skin.inverse_bind_matrices)
      ASSET_CHECK(finite(m), "skin '" + skin.name + "': inverse bind matrix not finite");
    ASSET_CHECK(skin.root_hint == kNoParent || skin.root_hint < asset.skeleton.size(),
                "skin '" + skin.name + "': root hint out of range");
  }
  for (const Material& material : asset.materials) check_material(asset, material, where);
  for (const SkinnedMesh& mesh : asset.meshes) {
    check_mesh(asset, mesh, where);
    // The readers check morph targets as they read them (the runtime relies on it).
    if (!mesh.morph_targets.empty() || !mesh.default_morph_weights.empty()) {
      const Status valid = validate_morph_targets(mesh);
      ASSET_CHECK(valid.ok(), "mesh '" + mesh.name + "': morph targets: " +
                                  (valid.ok() ? std::string() : valid.error().message));
    }
  }
}

void exercise_asset(const Asset& asset, const std::string& where) {
  const std::size_t joints = asset.skeleton.size();
  const std::span<const Transform> rest = asset.skeleton.rest_pose();
  std::vector<Transform> a(rest.begin(), rest.end()), b(rest.begin(), rest.end()), blended(joints);
  std::vector<Mat4> model(joints);
  const std::size_t clips = std::min(asset.clips.size(), kMaxClipsPlayed);
  for (std::size_t c = 0; c < clips; ++c) {
    play_clip(asset, asset.clips[c], c % 2 ? b : a, where);
    if (const CompiledClip* compiled = asset.compiled_clip(c))
      play_compiled_clip(asset, *compiled, where);
  }
  // Blend the last poses of two clips (or a clip and the rest pose) and pose the hierarchy.
  const std::vector<float> half_mask(joints, 0.5f);
  const BlendLayer layers[] = {{a, 1.0f, {}}, {b, 0.5f, half_mask}};
  const BlendJob blend{.rest_pose = rest, .layers = layers, .output = blended};
  ASSET_CHECK(blend.run(), "BlendJob refused poses of the asset's own size");
  ASSET_CHECK(local_to_model(asset.skeleton, blended, model), "local_to_model refused the asset");
  std::size_t skinned = 0;
  for (const SkinnedMesh& mesh : asset.meshes) {
    if (skinned++ == kMaxMeshesSkinned) break;
    skin_mesh(asset, mesh, model, where);
  }
  morph_meshes(asset, where);
  // Whatever an importer accepts, marrow's own archive holds, and reads back to the same bytes.
  Result<std::vector<std::uint8_t>> bytes = archive_bytes(asset);
  ASSET_CHECK(bytes.ok(), "archive_bytes refused an imported asset: " +
                              (bytes.ok() ? std::string() : bytes.error().message));
  Result<Asset> again = read_archive(*bytes, "roundtrip.marrow");
  ASSET_CHECK(again.ok(), "the archive of an imported asset does not load: " +
                              (again.ok() ? std::string() : again.error().message));
  expect_same_asset(asset, *again, where + ": archive round trip");
}

void check_and_exercise(const Asset& asset, const std::string& where) {
  check_asset(asset, where);
  exercise_asset(asset, where);
}

}  // namespace marrow::fuzz
