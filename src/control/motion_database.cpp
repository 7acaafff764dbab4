// MotionDatabase::build: clips sampled at the schema's rate, the character's frame per frame,
// features, normalization, the clips with the root's motion taken out. The search index is in
// motion_search.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <string>

#include "control/root_motion.h"
#include "marrow/clip/binding.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/sampling.h"
#include "marrow/control/motion_database.h"
#include "marrow/math/mat4.h"
#include "marrow/pose/local_to_model.h"

namespace marrow {
namespace {

constexpr const char* kWhere = "motion database";
constexpr float kTrajectoryWeight = 4;

std::uint32_t feature_width(MotionFeature kind) {
  return kind == MotionFeature::kJointPosition || kind == MotionFeature::kJointVelocity ? 3 : 2;
}

// What sampling one clip gives: per frame the root's model transform and the model positions of
// the joints the features name.
struct SampledClip {
  std::vector<Transform> root;    // frames: the root's model transform
  std::vector<Vec3> joints;       // frames x feature joints
  Vec3 lateral_in_root{0, 0, 0};  // summed over frames: left foot - right foot
  Vec3 up_in_root{0, 0, 0};       // summed over frames
  float floor = 1e30f;            // the lowest foot height over the clip
  Vec3 forward_in_root{0, 0, 1};  // the root's facing axis in this clip
};

struct Resolved {
  JointIndex root = 0, left = 0, right = 0;
  float leg_length = 0;                    // the feet's legs' rest length, averaged
  std::vector<JointIndex> feature_joints;  // distinct, in first-use order
  std::vector<std::uint32_t> slot_of_feature;
  float max_horizon = 0;
};

Result<JointIndex> find_joint(const Skeleton& skeleton, const std::string& name,
                              std::string_view role) {
  if (std::optional<JointIndex> j = skeleton.find(name)) return *j;
  return make_error(kWhere, std::string(role) + " joint '" + name + "' is not in the skeleton");
}

Result<Resolved> resolve(const Skeleton& skeleton, const MotionSchema& schema) {
  if (!(schema.sample_rate > 0) || !std::isfinite(schema.sample_rate))
    return make_error(kWhere, "the sample rate must be positive and finite");
  if (schema.features.empty()) return make_error(kWhere, "the schema has no feature");
  if (!(length(schema.up) > 0.5f) || !is_finite(schema.up))
    return make_error(kWhere, "the up axis must be a finite non-zero vector");
  Resolved r;
  Result<JointIndex> root = find_joint(skeleton, schema.root, "the root");
  if (!root) return root.error();
  Result<JointIndex> left = find_joint(skeleton, schema.left_foot, "the left foot");
  if (!left) return left.error();
  Result<JointIndex> right = find_joint(skeleton, schema.right_foot, "the right foot");
  if (!right) return right.error();
  r.root = *root, r.left = *left, r.right = *right;
  // The legs' rest length in model units (ancestors may scale): ankle to knee to hip.
  std::vector<Mat4> rest(skeleton.size());
  local_to_model(skeleton, skeleton.rest_pose(), rest);
  for (JointIndex foot : {r.left, r.right}) {
    JointIndex j = foot;
    for (int bone = 0; bone < 2 && skeleton.parent(j) != kNoParent; ++bone, j = skeleton.parent(j))
      r.leg_length += 0.5f * length(rest[j].translation() - rest[skeleton.parent(j)].translation());
  }
  r.feature_joints = {r.left, r.right};
  for (std::size_t i = 0; i < schema.features.size(); ++i) {
    const MotionFeatureDesc& f = schema.features[i];
    const std::string where = "feature " + std::to_string(i) + ": ";
    if (!(f.weight >= 0) || !std::isfinite(f.weight))
      return make_error(kWhere, where + "the weight must be finite and not negative");
    if (f.kind == MotionFeature::kTrajectoryPosition ||
        f.kind == MotionFeature::kTrajectoryDirection) {
      if (!(f.horizon > 0) || !std::isfinite(f.horizon))
        return make_error(kWhere, where + "a trajectory horizon must be positive and finite");
      r.max_horizon = std::max(r.max_horizon, f.horizon);
      r.slot_of_feature.push_back(0);
      continue;
    }
    Result<JointIndex> j = find_joint(skeleton, f.joint, where + "the");
    if (!j) return j.error();
    auto it = std::find(r.feature_joints.begin(), r.feature_joints.end(), *j);
    if (it == r.feature_joints.end()) it = r.feature_joints.insert(r.feature_joints.end(), *j);
    r.slot_of_feature.push_back(static_cast<std::uint32_t>(it - r.feature_joints.begin()));
  }
  return r;
}

std::uint32_t frames_of(const Clip& clip, float rate) {
  return static_cast<std::uint32_t>(std::floor(clip.duration() * rate + 1e-3f)) + 1;
}

// A joint's model transform as TRS, from its model matrix: ancestors may scale (a glTF armature
// under a 0.01 node), and positions then come out in model units like every other joint's.
Transform model_transform(const Mat4& m) {
  return decompose(m).transform;
}

SampledClip sample_clip(const Skeleton& skeleton, const Clip& clip, const Resolved& r, float rate,
                        Vec3 up) {
  SampledClip s;
  const std::uint32_t frames = frames_of(clip, rate);
  std::vector<Transform> local(skeleton.size());
  std::vector<Mat4> model(skeleton.size());
  SamplingCursor cursor(clip);
  for (std::uint32_t f = 0; f < frames; ++f) {
    const float t = std::min(clip.duration(), static_cast<float>(f) / rate);
    if (!sample(clip, skeleton.rest_pose(), t, cursor, local)) break;
    local_to_model(skeleton, local, model);
    const Transform root = model_transform(model[r.root]);
    s.root.push_back(root);
    for (JointIndex j : r.feature_joints) s.joints.push_back(model[j].translation());
    const Quat to_root = conjugate(root.rotation);
    s.lateral_in_root +=
        rotate(to_root, model[r.left].translation() - model[r.right].translation());
    s.up_in_root += rotate(to_root, up);
    s.floor = std::min(
        {s.floor, dot(model[r.left].translation(), up), dot(model[r.right].translation(), up)});
  }
  return s;
}

Vec3 normalized_or_zero(Vec3 v) {
  const float n = length(v);
  return n > 1e-12f ? v * (1 / n) : Vec3{0, 0, 0};
}

// The ground's forward and side axes for a (unit) up axis: +Z unless up is near it, then +X,
// made perpendicular to up; side x up = forward.
void ground_axes(Vec3 up, Vec3& side, Vec3& forward) {
  const Vec3 candidate = std::abs(up.z) < 0.9f ? Vec3{0, 0, 1} : Vec3{1, 0, 0};
  forward = normalized_or_zero(candidate - up * dot(candidate, up));
  side = cross(up, forward);
}

Status check_mirror(std::span<const JointIndex> mirror, std::size_t joints) {
  bool pairs = mirror.size() == joints;
  for (std::size_t j = 0; pairs && j < mirror.size(); ++j)
    pairs = mirror[j] < mirror.size() && mirror[mirror[j]] == j;
  if (pairs) return {};
  return make_error(kWhere, "the mirror map must give every joint of the skeleton (" +
                                std::to_string(joints) + ") a joint that gives it back");
}

// Where each feature's floats start, how many there are, and the feature each float belongs to.
struct FeatureLayout {
  std::vector<std::uint32_t> offsets, group_of_dim;
  std::size_t dims = 0;
};

Result<FeatureLayout> feature_layout(const MotionSchema& schema) {
  FeatureLayout l;
  for (std::size_t i = 0; i < schema.features.size(); ++i) {
    l.offsets.push_back(static_cast<std::uint32_t>(l.dims));
    l.dims += feature_width(schema.features[i].kind);
    l.group_of_dim.resize(l.dims, static_cast<std::uint32_t>(i));
  }
  if (l.dims > kMaxMotionDims) {
    return make_error(kWhere, "the schema has " + std::to_string(l.dims) + " floats, more than " +
                                  std::to_string(kMaxMotionDims));
  }
  return l;
}

}  // namespace

MotionSchema MotionSchema::locomotion(std::string root, std::string left_foot,
                                      std::string right_foot, Vec3 up) {
  MotionSchema s;
  s.root = std::move(root), s.left_foot = std::move(left_foot);
  s.right_foot = std::move(right_foot), s.up = up;
  using K = MotionFeature;
  s.features = {{K::kJointPosition, s.left_foot},
                {K::kJointPosition, s.right_foot},
                {K::kJointVelocity, s.left_foot},
                {K::kJointVelocity, s.right_foot},
                {K::kJointVelocity, s.root}};
  // The trajectory weighs 4: on CMU walks it halves the distance to the desired path of weight 1
  // (docs/motion_matching.md has the table).
  for (float h : {1.0f / 3, 2.0f / 3, 1.0f})
    s.features.push_back({K::kTrajectoryPosition, {}, h, kTrajectoryWeight});
  for (float h : {1.0f / 3, 2.0f / 3, 1.0f})
    s.features.push_back({K::kTrajectoryDirection, {}, h, kTrajectoryWeight});
  return s;
}

std::uint32_t MotionDatabase::frame_at(ClipId clip, float time) const {
  const std::uint32_t first = first_frame_of_clip_[clip], end = first_frame_of_clip_[clip + 1];
  const float f = std::round(std::max(0.0f, time) * schema_.sample_rate);
  const std::uint32_t offset =
      f >= static_cast<float>(end - first - 1) ? end - first - 1 : static_cast<std::uint32_t>(f);
  return first + offset;
}

void MotionDatabase::normalize(std::span<const float> raw, std::span<float> out) const {
  for (std::size_t d = 0; d < dims_ && d < raw.size() && d < out.size(); ++d)
    out[d] = (raw[d] - mean_[d]) * scale_[d];
}

// Each group's floats share one divisor, the mean of their standard deviations over the
// searchable frames, and the group's weight. A group whose spread is rounding noise (below 1e-4 of
// its values' size) is constant: it keeps the divisor 1.
void MotionDatabase::normalize_groups(std::span<const std::uint32_t> group_of_dim) {
  const std::size_t n = frames_.size();
  mean_.assign(dims_, 0);
  std::vector<double> sum(dims_, 0), sum2(dims_, 0);
  for (std::size_t f = 0; f < n; ++f) {
    if (!frames_[f].searchable) continue;
    for (std::size_t d = 0; d < dims_; ++d) {
      const double v = features_[f * dims_ + d];
      sum[d] += v, sum2[d] += v * v;
    }
  }
  const double count = static_cast<double>(std::max<std::size_t>(searchable_, 1));
  std::vector<double> group_std(dims_, 0), group_size(dims_, 0), group_floats(dims_, 0);
  for (std::size_t d = 0; d < dims_; ++d) {
    const double m = sum[d] / count;
    mean_[d] = static_cast<float>(m);
    group_std[group_of_dim[d]] += std::sqrt(std::max(0.0, sum2[d] / count - m * m));
    group_size[group_of_dim[d]] += std::sqrt(sum2[d] / count);
    group_floats[group_of_dim[d]] += 1;
  }
  scale_.assign(dims_, 1);
  for (std::size_t d = 0; d < dims_; ++d) {
    const std::uint32_t g = group_of_dim[d];
    const double sd = group_std[g] / group_floats[g], size = group_size[g] / group_floats[g];
    const float weight = schema_.features.empty() ? 1.0f : schema_.features[g].weight;
    scale_[d] = weight / static_cast<float>(sd > 1e-4 * size && sd > 0 ? sd : 1.0);
  }
  for (std::size_t f = 0; f < n; ++f)
    for (std::size_t d = 0; d < dims_; ++d)
      features_[f * dims_ + d] = (features_[f * dims_ + d] - mean_[d]) * scale_[d];
}

namespace {

// The database's clip in one canonical form whatever the file did: the root's ancestors stand at
// rest (their tracks dropped) and the root's translation and rotation are keys at every frame
// holding P^-1 C^-1 M (P: the ancestors' rest transform, scale included, C: the character's frame,
// M: the root's model transform), so every clip stands in the character's frame and splits its
// motion between the joints alike (files of one rig that move the top joint in some takes and the
// hips in others would otherwise blend the two against each other in a transition).
Result<Clip> clip_without_root_motion(const Clip& source, const Skeleton& skeleton, JointIndex root,
                                      std::span<const Transform> root_model,
                                      std::span<const Transform> character, float rate) {
  std::vector<bool> replaced(skeleton.size(), false);
  for (JointIndex a = root; a != kNoParent; a = skeleton.parent(a)) replaced[a] = true;
  ClipBuilder builder(source.name());
  builder.set_ticks_per_second(source.ticks_per_second());
  builder.set_duration(source.duration());
  for (const ClipEvent& e : source.events()) builder.add_event(e.time, e.name);
  const std::string where = "motion database: clip '" + source.name() + "'";
  for (std::size_t i = 0; i < source.tracks().size(); ++i) {
    const Track& t = source.tracks()[i];
    if (replaced[t.joint] && (t.joint != root || t.target != TrackTarget::kScale)) continue;
    const std::uint32_t per_key = floats_per_key(t.target, t.interpolation);
    Status s =
        builder.add_track(t.joint, source.track_joint_names()[i], t.target, t.interpolation,
                          source.times().subspan(t.first_key, t.key_count),
                          source.values().subspan(t.first_value, t.key_count * per_key), where);
    if (!s) return s.error();
  }
  // The parent's rest model transform, scale included (uniform: the x scale stands for all).
  Transform parent{};
  if (skeleton.parent(root) != kNoParent) {
    std::vector<Mat4> rest(skeleton.size());
    local_to_model(skeleton, skeleton.rest_pose(), rest);
    parent = model_transform(rest[skeleton.parent(root)]);
  }
  const Quat to_parent = conjugate(parent.rotation);
  const float inverse_scale = parent.scale.x != 0 ? 1 / parent.scale.x : 1;
  std::vector<float> times, translations, rotations;
  for (std::size_t f = 0; f < root_model.size(); ++f) {
    times.push_back(std::min(source.duration(), static_cast<float>(f) / rate));
    if (f > 0 && !(times[f] > times[f - 1])) {
      times.pop_back();
      break;
    }
    const Transform model =
        control_detail::rigid_compose(control_detail::rigid_inverse(character[f]), root_model[f]);
    Transform local;
    local.translation = rotate(to_parent, model.translation - parent.translation) * inverse_scale;
    local.rotation = normalize(to_parent * model.rotation);
    translations.insert(translations.end(),
                        {local.translation.x, local.translation.y, local.translation.z});
    rotations.insert(rotations.end(),
                     {local.rotation.x, local.rotation.y, local.rotation.z, local.rotation.w});
  }
  translations.resize(times.size() * 3), rotations.resize(times.size() * 4);
  const std::string& name = skeleton.names()[root];
  Status s = builder.add_track(root, name, TrackTarget::kTranslation, Interpolation::kLinear, times,
                               translations, where);
  if (s) {
    s = builder.add_track(root, name, TrackTarget::kRotation, Interpolation::kLinear, times,
                          rotations, where);
  }
  if (!s) return s.error();
  return builder.build(skeleton.size(), where);
}

// `clip` (bound to `skeleton`) mirrored across the plane through the origin normal to `lateral`
// (model space), resampled at `rate`: joint j takes the motion of its mirror m, reflected, in j's
// own rest frame, M'_j = S M_m B_m^-1 S B_j (S the reflection, B the rest model transforms), so
// the rest pose mirrors onto itself; every joint's translation, rotation and scale are keys.
Result<Clip> mirror_clip(const Clip& clip, const Skeleton& skeleton,
                         std::span<const JointIndex> mirror, Vec3 lateral, float rate) {
  const std::size_t n = skeleton.size();
  Mat4 reflect = Mat4::identity();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) reflect(r, c) -= 2 * (&lateral.x)[r] * (&lateral.x)[c];
  std::vector<Mat4> rest(n), rest_inverse(n), model(n), mirrored(n), inverse(n);
  local_to_model(skeleton, skeleton.rest_pose(), rest);
  for (std::size_t j = 0; j < n; ++j) invert_affine(rest[j], rest_inverse[j]);
  std::vector<Transform> local(n);
  SamplingCursor cursor(clip);
  const std::uint32_t frames = frames_of(clip, rate);
  std::vector<float> times;
  std::vector<std::vector<float>> values(3 * n);  // per joint: translation, rotation, scale
  for (std::uint32_t f = 0; f < frames; ++f) {
    const float t = std::min(clip.duration(), static_cast<float>(f) / rate);
    if (f > 0 && !(t > times.back())) break;
    times.push_back(t);
    sample(clip, skeleton.rest_pose(), t, cursor, local);
    local_to_model(skeleton, local, model);
    for (std::size_t j = 0; j < n; ++j) {
      const JointIndex m = mirror[j];
      mirrored[j] = mul_affine(mul_affine(mul_affine(reflect, model[m]), rest_inverse[m]),
                               mul_affine(reflect, rest[j]));
      invert_affine(mirrored[j], inverse[j]);
      const JointIndex p = skeleton.parent(j);
      const Transform l =
          decompose(p == kNoParent ? mirrored[j] : mul_affine(inverse[p], mirrored[j])).transform;
      values[3 * j].insert(values[3 * j].end(),
                           {l.translation.x, l.translation.y, l.translation.z});
      values[3 * j + 1].insert(values[3 * j + 1].end(),
                               {l.rotation.x, l.rotation.y, l.rotation.z, l.rotation.w});
      values[3 * j + 2].insert(values[3 * j + 2].end(), {l.scale.x, l.scale.y, l.scale.z});
    }
  }
  ClipBuilder builder(clip.name() + " (mirrored)");
  builder.set_ticks_per_second(clip.ticks_per_second());
  builder.set_duration(clip.duration());
  for (const ClipEvent& e : clip.events()) builder.add_event(e.time, e.name);
  const std::string where = "motion database: clip '" + clip.name() + "' mirrored";
  for (std::size_t j = 0; j < n; ++j) {
    const TrackTarget targets[3] = {TrackTarget::kTranslation, TrackTarget::kRotation,
                                    TrackTarget::kScale};
    for (int k = 0; k < 3; ++k) {
      Status s = builder.add_track(static_cast<JointIndex>(j), skeleton.names()[j], targets[k],
                                   Interpolation::kLinear, times, values[3 * j + k], where);
      if (!s) return s.error();
    }
  }
  return builder.build(n, where);
}

// The character's frame on the ground at every frame of one clip.
struct GroundFrames {
  std::vector<Vec3> position;  // on the ground plane, model space
  std::vector<float> yaw;
};

// Everything build() needs per clip, with the ground axes the database settles on.
struct Sampled {
  std::vector<Clip> clips;  // bound to the skeleton
  std::vector<SampledClip> samples;
  Vec3 up{0, 1, 0}, side{1, 0, 0}, forward{0, 0, 1};
};

// One bound clip sampled, with its facing axis (per clip: files of one rig do not always agree on
// the root's axes).
Status add_sampled(Sampled& out, Clip bound, const Skeleton& skeleton, const MotionSchema& schema,
                   const Resolved& r) {
  SampledClip s = sample_clip(skeleton, bound, r, schema.sample_rate, out.up);
  s.forward_in_root =
      normalized_or_zero(cross(s.lateral_in_root, normalized_or_zero(s.up_in_root)));
  if (length(s.forward_in_root) < 0.5f) {
    return make_error(kWhere, "clip '" + bound.name() + "': the feet '" + schema.left_foot +
                                  "' and '" + schema.right_foot + "' do not tell which way " +
                                  "the root faces (their mean offset is along the up axis)");
  }
  out.samples.push_back(std::move(s));
  out.clips.push_back(std::move(bound));
  return {};
}

// The clips bound and sampled, then (with a mirror map) each one mirrored, after all of them.
Result<Sampled> sample_all(const Skeleton& skeleton, std::span<const MotionClipDesc> clips,
                           const MotionSchema& schema, const Resolved& r) {
  Sampled out;
  out.up = normalized_or_zero(schema.up);
  for (std::size_t i = 0; i < clips.size(); ++i) {
    if (!clips[i].clip) return make_error(kWhere, "clip " + std::to_string(i) + " is null");
    const Clip& source = *clips[i].clip;
    const ClipBindingReport report = check_binding(source, skeleton);
    if (!report.complete()) {
      return make_error(kWhere, "clip '" + source.name() + "' animates joint '" +
                                    report.missing_joints.front() + "' the skeleton lacks");
    }
    Result<Clip> bound = rebind_clip(source, skeleton);
    if (!bound) return bound.error();
    if (Status s = add_sampled(out, std::move(*bound), skeleton, schema, r); !s) return s.error();
  }
  if (!schema.mirror.empty()) {
    const std::span<const JointIndex> mirror = schema.mirror;
    if (Status s = check_mirror(mirror, skeleton.size()); !s) return s.error();
    // The middle plane: normal to the rest pose's feet, left to right.
    std::vector<Mat4> rest(skeleton.size());
    local_to_model(skeleton, skeleton.rest_pose(), rest);
    const Vec3 lateral =
        normalized_or_zero(rest[r.left].translation() - rest[r.right].translation());
    if (length(lateral) < 0.5f) return make_error(kWhere, "the feet stand on one spot at rest");
    for (std::size_t i = 0; i < clips.size(); ++i) {
      Result<Clip> mirrored =
          mirror_clip(out.clips[i], skeleton, mirror, lateral, schema.sample_rate);
      if (!mirrored) return mirrored.error();
      if (Status s = add_sampled(out, std::move(*mirrored), skeleton, schema, r); !s)
        return s.error();
    }
  }
  ground_axes(out.up, out.side, out.forward);
  return out;
}

// The character's frame stands on the clip's floor (its lowest foot height), so clips whose files
// put the root at different heights line up.
GroundFrames ground_frames(const SampledClip& s, const Sampled& axes) {
  GroundFrames g;
  float last_yaw = 0;
  for (const Transform& root : s.root) {
    g.position.push_back(root.translation + axes.up * (s.floor - dot(root.translation, axes.up)));
    const Vec3 facing = rotate(root.rotation, s.forward_in_root);
    const float x = dot(facing, axes.side), z = dot(facing, axes.forward);
    if (x * x + z * z > 1e-8f) last_yaw = std::atan2(x, z);
    g.yaw.push_back(last_yaw);
  }
  return g;
}

Transform ground_transform(const GroundFrames& g, std::size_t f, Vec3 up) {
  return Transform{g.position[f], from_axis_angle(up, g.yaw[f]), {1, 1, 1}};
}

// One clip's frames and raw features: joints relative to the character's frame, velocities by
// central differences, the future from the frames `horizon` ahead.
// Whether the foot in slot `slot` (0 left, 1 right) is planted at frame f: low over the clip's
// floor and slow, by the thresholds of ik/foot_contacts.h relative to the leg's length.
bool planted(const SampledClip& s, const GroundFrames& g, std::size_t f, std::size_t slot,
             const Resolved& r, const Sampled& axes, float rate) {
  const std::size_t joints = r.feature_joints.size(), frames = s.root.size();
  const Vec3 p = s.joints[f * joints + slot];
  const std::size_t a = f > 0 ? f - 1 : f, b = f + 1 < frames ? f + 1 : f;
  const Vec3 v = b > a ? (s.joints[b * joints + slot] - s.joints[a * joints + slot]) *
                             (rate / static_cast<float>(b - a))
                       : Vec3{0, 0, 0};
  const float height = dot(p - g.position[f], axes.up);
  return height <= 0.05f * r.leg_length && length(v) <= 0.5f * r.leg_length;
}

struct FrameTable {
  std::vector<MotionFrame> frames;
  std::vector<float> features;
  std::size_t searchable = 0;
  float speed_sum = 0;
};

void add_clip_frames(FrameTable& out, ClipId clip, float duration, const SampledClip& s,
                     const GroundFrames& g, const MotionClipDesc& desc, const Resolved& r,
                     const MotionSchema& schema, const Sampled& axes) {
  const std::size_t frames = s.root.size(), joint_count = r.feature_joints.size();
  const float rate = schema.sample_rate;
  const Vec3 up = axes.up;
  std::uint32_t max_ahead = 0;
  for (const MotionFeatureDesc& f : schema.features)
    max_ahead = std::max(max_ahead, static_cast<std::uint32_t>(std::lround(f.horizon * rate)));
  for (std::size_t f = 0; f < frames; ++f) {
    const float yaw = g.yaw[f];
    const Vec3 fwd = axes.forward * std::cos(yaw) + axes.side * std::sin(yaw);
    const Vec3 side = axes.side * std::cos(yaw) - axes.forward * std::sin(yaw);
    const auto local3 = [&](Vec3 v) {
      return std::array<float, 3>{dot(v, side), dot(v, up), dot(v, fwd)};
    };
    MotionFrame frame;
    frame.clip = clip;
    frame.time = std::min(duration, static_cast<float>(f) / rate);
    frame.ground_side = dot(g.position[f], axes.side);
    frame.ground_forward = dot(g.position[f], axes.forward);
    frame.yaw = yaw;
    frame.searchable = f + max_ahead < frames;
    frame.left_contact = planted(s, g, f, 0, r, axes, rate);
    frame.right_contact = planted(s, g, f, 1, r, axes, rate);
    for (const MotionClipDesc::Range& range : desc.excluded)
      if (frame.time >= range.begin && frame.time <= range.end) frame.searchable = false;
    for (std::size_t i = 0; i < schema.features.size(); ++i) {
      const MotionFeatureDesc& feature = schema.features[i];
      const std::size_t ahead = std::min(frames - 1, f + std::lround(feature.horizon * rate));
      const Vec3* joint = s.joints.data() + r.slot_of_feature[i];
      const auto at = [&](std::size_t k) { return joint[k * joint_count]; };
      std::array<float, 3> v{};
      switch (feature.kind) {
        case MotionFeature::kJointPosition:
          v = local3(at(f) - g.position[f]);
          break;
        case MotionFeature::kJointVelocity: {
          const std::size_t a = f > 0 ? f - 1 : f, b = f + 1 < frames ? f + 1 : f;
          v = b > a ? local3((at(b) - at(a)) * (rate / static_cast<float>(b - a))) : v;
          break;
        }
        case MotionFeature::kTrajectoryPosition: {
          const std::array<float, 3> p = local3(g.position[ahead] - g.position[f]);
          v = {p[0], p[2], 0};
          break;
        }
        case MotionFeature::kTrajectoryDirection:
          v = {std::sin(g.yaw[ahead] - yaw), std::cos(g.yaw[ahead] - yaw), 0};
          break;
      }
      for (std::uint32_t c = 0; c < feature_width(feature.kind); ++c) out.features.push_back(v[c]);
    }
    if (frame.searchable && f + 1 < frames) {
      out.speed_sum += length(g.position[f + 1] - g.position[f]) * rate;
      ++out.searchable;
    }
    out.frames.push_back(frame);
  }
}

}  // namespace

Result<std::shared_ptr<const MotionDatabase>> MotionDatabase::build(
    const Skeleton& skeleton, std::span<const MotionClipDesc> clips, const MotionSchema& schema) {
  if (clips.empty()) return make_error(kWhere, "no clips");
  Result<Resolved> r = resolve(skeleton, schema);
  if (!r) return r.error();
  Result<Sampled> sampled = sample_all(skeleton, clips, schema, *r);
  if (!sampled) return sampled.error();
  auto db = std::make_shared<MotionDatabase>();
  db->schema_ = schema;
  db->schema_.up = sampled->up;
  db->root_ = r->root;
  db->leg_length_ = r->leg_length;
  db->side_ = sampled->side, db->forward_ = sampled->forward;
  Result<FeatureLayout> layout = feature_layout(schema);
  if (!layout) return layout.error();
  db->offsets_ = layout->offsets, db->dims_ = layout->dims;
  ClipSetBuilder set(skeleton);
  FrameTable table;
  // Mirrored clips, when there are, follow the sources in the same order: their descriptions
  // (excluded ranges) are the sources'.
  for (std::size_t c = 0; c < sampled->clips.size(); ++c) {
    const GroundFrames g = ground_frames(sampled->samples[c], *sampled);
    db->first_frame_of_clip_.push_back(static_cast<std::uint32_t>(table.frames.size()));
    add_clip_frames(table, static_cast<ClipId>(c), sampled->clips[c].duration(),
                    sampled->samples[c], g, clips[c % clips.size()], *r, schema, *sampled);
    std::vector<Transform> character;
    for (std::size_t f = 0; f < g.yaw.size(); ++f)
      character.push_back(ground_transform(g, f, sampled->up));
    Result<Clip> baked =
        clip_without_root_motion(sampled->clips[c], skeleton, r->root, sampled->samples[c].root,
                                 character, schema.sample_rate);
    if (!baked) return baked.error();
    if (Status s = set.add_clip(*baked, {.compile = schema.compile_clips}); !s) return s.error();
  }
  db->first_frame_of_clip_.push_back(static_cast<std::uint32_t>(table.frames.size()));
  db->frames_ = std::move(table.frames);
  db->features_ = std::move(table.features);
  db->searchable_ = table.searchable;
  db->mean_speed_ = table.speed_sum;
  if (db->searchable_ == 0) {
    // Say how far apart the clips and the horizon are: short loops (in-place game clips) are the
    // common case, and they need longer takes or shorter horizons.
    std::size_t longest = 0;
    for (std::size_t c = 1; c < sampled->clips.size(); ++c)
      if (sampled->clips[c].duration() > sampled->clips[longest].duration()) longest = c;
    std::ostringstream why;
    why << "no frame is searchable: every clip is shorter than the longest trajectory horizon ("
        << r->max_horizon << " s), or excluded; the longest clip, '"
        << sampled->clips[longest].name() << "', lasts " << sampled->clips[longest].duration()
        << " s";
    return make_error(kWhere, why.str());
  }
  db->mean_speed_ /= static_cast<float>(db->searchable_);
  Result<std::shared_ptr<const ClipSet>> built = set.build();
  if (!built) return built.error();
  db->set_ = std::move(*built);
  db->normalize_groups(layout->group_of_dim);
  db->build_search_index();
  return std::shared_ptr<const MotionDatabase>(std::move(db));
}

Result<MotionDatabaseContents> MotionDatabase::contents() const {
  if (!set_) return make_error(kWhere, "a database made from feature rows has no clips to save");
  MotionDatabaseContents c;
  c.schema = schema_;
  c.first_frame_of_clip = first_frame_of_clip_;
  c.frames = frames_;
  c.mean = mean_, c.scale = scale_, c.features = features_;
  c.mean_speed = mean_speed_;
  return c;
}

namespace {

bool all_finite(std::span<const float> values) {
  return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
}

// The saved frames against the clips: each clip's range non-empty and in order, each frame of
// its range's clip at a time inside it, every value finite. Returns the searchable count.
Result<std::size_t> check_frames(const MotionDatabaseContents& c, std::span<const Clip> clips) {
  const std::vector<std::uint32_t>& first = c.first_frame_of_clip;
  if (first.size() != clips.size() + 1 || first.front() != 0 || first.back() != c.frames.size())
    return make_error(kWhere, "the clips' frame ranges must be one per clip (" +
                                  std::to_string(clips.size()) + ") and a last, from 0 to the " +
                                  std::to_string(c.frames.size()) + " frames");
  std::size_t searchable = 0;
  for (std::size_t clip = 0; clip < clips.size(); ++clip) {
    if (!(first[clip + 1] > first[clip]))
      return make_error(kWhere, "clip " + std::to_string(clip) + " has no frame");
    for (std::uint32_t f = first[clip]; f < first[clip + 1]; ++f) {
      const MotionFrame& frame = c.frames[f];
      const std::string where = "frame " + std::to_string(f) + ": ";
      if (frame.clip != clip)
        return make_error(kWhere, where + "is in clip " + std::to_string(clip) +
                                      "'s range but names clip " + std::to_string(frame.clip));
      if (!(frame.time >= 0 && frame.time <= clips[clip].duration()))
        return make_error(kWhere, where + "its time is outside its clip");
      if (!all_finite(std::array{frame.ground_side, frame.ground_forward, frame.yaw}))
        return make_error(kWhere, where + "its ground position or facing is not finite");
      searchable += frame.searchable ? 1 : 0;
    }
  }
  if (searchable == 0) return make_error(kWhere, "no frame is searchable");
  return searchable;
}

}  // namespace

Result<std::shared_ptr<const MotionDatabase>> MotionDatabase::restore(const Skeleton& skeleton,
                                                                      std::span<const Clip> clips,
                                                                      MotionDatabaseContents c) {
  if (clips.empty()) return make_error(kWhere, "no clips");
  if (c.frames.size() >= kNoMotionFrame) return make_error(kWhere, "too many frames");
  Result<Resolved> r = resolve(skeleton, c.schema);
  if (!r) return r.error();
  if (!c.schema.mirror.empty()) {
    if (Status s = check_mirror(c.schema.mirror, skeleton.size()); !s) return s.error();
  }
  Result<FeatureLayout> layout = feature_layout(c.schema);
  if (!layout) return layout.error();
  const std::size_t dims = layout->dims;
  if (c.mean.size() != dims || c.scale.size() != dims ||
      c.features.size() != c.frames.size() * dims)
    return make_error(kWhere, "the normalization holds " + std::to_string(c.mean.size()) + " and " +
                                  std::to_string(c.scale.size()) + " floats and the features " +
                                  std::to_string(c.features.size()) + ", for " +
                                  std::to_string(dims) + " floats a frame");
  if (!all_finite(c.mean) || !all_finite(c.scale) || !all_finite(c.features) ||
      !std::isfinite(c.mean_speed) || c.mean_speed < 0)
    return make_error(kWhere, "a feature, its normalization or the mean speed is not finite");
  // Squared distances over kMaxMotionDims floats must stay finite in float.
  constexpr float kLargestFeature = 1e12f;
  if (std::any_of(c.features.begin(), c.features.end(),
                  [&](float v) { return std::abs(v) > kLargestFeature; }))
    return make_error(kWhere, "a feature is larger than 1e12 normalized units");
  Result<std::size_t> searchable = check_frames(c, clips);
  if (!searchable) return searchable.error();
  ClipSetBuilder set(skeleton);
  for (const Clip& clip : clips)
    if (Status s = set.add_clip(clip, {.compile = c.schema.compile_clips}); !s) return s.error();
  Result<std::shared_ptr<const ClipSet>> built = set.build();
  if (!built) return built.error();
  // The up axis as build() settled it, unit length: the ground axes follow from it bit for bit.
  if (!(std::abs(length(c.schema.up) - 1) < 1e-4f))
    return make_error(kWhere, "the up axis must be a unit vector");
  auto db = std::make_shared<MotionDatabase>();
  db->schema_ = std::move(c.schema);
  ground_axes(db->schema_.up, db->side_, db->forward_);
  db->set_ = std::move(*built);
  db->root_ = r->root;
  db->leg_length_ = r->leg_length;
  db->dims_ = dims, db->offsets_ = std::move(layout->offsets);
  db->frames_ = std::move(c.frames);
  db->first_frame_of_clip_ = std::move(c.first_frame_of_clip);
  db->searchable_ = *searchable;
  db->features_ = std::move(c.features);
  db->mean_ = std::move(c.mean), db->scale_ = std::move(c.scale);
  db->mean_speed_ = c.mean_speed;
  db->build_search_index();
  return std::shared_ptr<const MotionDatabase>(std::move(db));
}

}  // namespace marrow
