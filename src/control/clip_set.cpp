#include "marrow/control/clip_set.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "marrow/clip/binding.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "marrow/skin/morph.h"
#include "root_motion.h"

namespace marrow {
namespace {

std::string quoted_list(std::span<const std::string> names, std::size_t limit = 12) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < limit; ++i) {
    if (i) out += ", ";
    out += "'" + names[i] + "'";
  }
  if (names.size() > limit) out += " and " + std::to_string(names.size() - limit) + " more";
  return out;
}

std::string clip_where(std::string_view name) {
  return "clip '" + std::string(name) + "'";
}

// True when every track of `clip` already points at the skeleton joint of its name.
bool binds_in_place(const Clip& clip, const Skeleton& skeleton) {
  if (clip.joint_count() != skeleton.size()) return false;
  const std::span<const std::string> names = clip.track_joint_names();
  for (std::size_t t = 0; t < clip.tracks().size(); ++t) {
    if (t >= names.size()) return false;
    // The track's own joint must carry its name: where names repeat (a mesh node named like a
    // bone) a lookup by name would find the first of them, not the joint the clip was made for.
    const JointIndex joint = clip.tracks()[t].joint;
    if (joint >= skeleton.size() || skeleton.name(joint) != names[t]) return false;
  }
  return true;
}

}  // namespace

std::optional<ClipId> ClipSet::find_clip(std::string_view name) const {
  for (std::size_t i = 0; i < clips_.size(); ++i) {
    if (clips_[i].clip.name() == name) return static_cast<ClipId>(i);
  }
  return std::nullopt;
}

Result<ClipId> ClipSet::clip_id(std::string_view name) const {
  if (const std::optional<ClipId> id = find_clip(name)) return *id;
  std::vector<std::string> names;
  for (const Entry& e : clips_) names.push_back(e.clip.name());
  return make_error(clip_where(name),
                    "no such clip in the set (it has " +
                        (names.empty() ? std::string("none") : quoted_list(names)) + ")");
}

std::optional<std::uint32_t> ClipSet::find_name(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<std::uint32_t>(i);
  }
  return std::nullopt;
}

Result<MaskId> ClipSet::mask_id(std::string_view name) const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < masks_.size(); ++i) {
    if (masks_[i].name == name) return static_cast<MaskId>(i);
    names.push_back(masks_[i].name);
  }
  return make_error("mask '" + std::string(name) + "'",
                    "no such mask in the set (it has " +
                        (names.empty() ? std::string("none") : quoted_list(names)) + ")");
}

Result<BlendSpaceId> ClipSet::blend_space_id(std::string_view name) const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < blend_spaces_.size(); ++i) {
    if (blend_spaces_[i].name() == name) return static_cast<BlendSpaceId>(i);
    names.push_back(blend_spaces_[i].name());
  }
  return make_error("blend space '" + std::string(name) + "'",
                    "no such blend space in the set (it has " +
                        (names.empty() ? std::string("none") : quoted_list(names)) + ")");
}

std::size_t ClipSet::size_bytes() const {
  std::size_t bytes = sizeof(*this);
  bytes += skeleton_.size() * (sizeof(JointIndex) + sizeof(std::string) + sizeof(Transform) + 16);
  bytes += skeleton_.soa_rest_pose().size() * sizeof(SoaTransform);
  for (const std::string& n : skeleton_.names()) bytes += n.capacity();
  for (const Entry& e : clips_) {
    bytes += sizeof(Entry);
    bytes += e.clip.times().size_bytes() + e.clip.values().size_bytes() +
             e.clip.tracks().size_bytes() + e.clip.name().capacity();
    for (const std::string& n : e.clip.track_joint_names())
      bytes += sizeof(std::string) + n.capacity();
    for (const ClipEvent& ev : e.clip.events()) bytes += sizeof(ClipEvent) + ev.name.capacity();
    if (e.compiled) bytes += e.compiled->size_bytes();
    bytes += e.cues.capacity() * sizeof(ClipCue);
    for (const SyncMarker& m : e.markers) bytes += sizeof(SyncMarker) + m.name.capacity();
  }
  for (const NamedMask& m : masks_)
    bytes +=
        sizeof(NamedMask) + (m.weights.capacity() + m.morph_weights.capacity()) * sizeof(float);
  bytes +=
      morph_defaults_.capacity() * sizeof(float) + morph_slots_.capacity() * sizeof(MorphSlots);
  for (const BlendSpace& b : blend_spaces_) {
    bytes += sizeof(BlendSpace) + b.samples().size_bytes() + b.triangles().size_bytes() * 2;
  }
  for (const std::string& n : names_) bytes += sizeof(std::string) + n.capacity();
  bytes +=
      identity_.capacity() * sizeof(Transform) + soa_identity_.capacity() * sizeof(SoaTransform);
  return bytes;
}

ClipSetBuilder::ClipSetBuilder(const Skeleton& skeleton) : set_(std::make_unique<ClipSet>()) {
  set_->skeleton_ = skeleton;
  set_->identity_.assign(skeleton.size(), Transform{});
  set_->soa_identity_.assign(soa_group_count(skeleton.size()), SoaTransform::identity());
}

std::uint32_t ClipSetBuilder::intern(std::string name) {
  for (std::size_t i = 0; i < set_->names_.size(); ++i) {
    if (set_->names_[i] == name) return static_cast<std::uint32_t>(i);
  }
  set_->names_.push_back(std::move(name));
  return static_cast<std::uint32_t>(set_->names_.size() - 1);
}

Status ClipSetBuilder::add_clip(const Clip& clip, const ClipOptions& options) {
  return add_entry(clip, std::nullopt, options);
}

Status ClipSetBuilder::add_clip(const Clip& clip, CompiledClip compiled,
                                const ClipOptions& options) {
  return add_entry(clip, std::move(compiled), options);
}

Status ClipSetBuilder::add_entry(const Clip& clip, std::optional<CompiledClip> compiled,
                                 const ClipOptions& options) {
  if (!set_) return make_error("clip set", "the builder was already built");
  const Skeleton& skeleton = set_->skeleton_;
  const std::string where = clip_where(clip.name());
  if (clip.name().empty()) return make_error("clip set", "a clip needs a name");
  if (set_->find_clip(clip.name())) {
    return make_error(where, "the set already has a clip of this name");
  }
  if (!std::isfinite(clip.duration()) || clip.duration() < 0) {
    return make_error(where, "its duration is negative or not finite");
  }
  const ClipBindingReport report = check_binding(clip, skeleton);
  if (!report.complete()) {
    return make_error(where, std::to_string(report.missing_joints.size()) +
                                 " of its animated joints are not in the skeleton: " +
                                 quoted_list(report.missing_joints));
  }
  ClipSet::Entry entry;
  if (binds_in_place(clip, skeleton)) {
    entry.clip = clip;
  } else {
    if (compiled) {
      return make_error(where,
                        "its joints are laid out differently from the skeleton's, so its compiled "
                        "form cannot be used; add the clip alone with ClipOptions::compile");
    }
    Result<Clip> bound = rebind_clip(clip, skeleton);
    if (!bound) return make_error(where, bound.error().message);
    entry.clip = std::move(bound).value();
  }
  entry.additive = options.additive;
  if (compiled) {
    if (compiled->joint_count() != skeleton.size() || compiled->name() != clip.name() ||
        compiled->duration() != clip.duration()) {
      return make_error(where, "its compiled form was made from another clip or skeleton");
    }
    entry.compiled = std::move(compiled);
  } else if (options.compile) {
    CompileOptions compile_options = options.compile_options;
    if (options.additive && compile_options.additive_reference.empty()) {
      compile_options.additive_reference = skeleton.rest_pose();
    }
    Result<CompiledClip> made = CompiledClip::compile(entry.clip, skeleton, compile_options);
    if (!made) return make_error(where, made.error().message);
    entry.compiled = std::move(made).value();
  }
  // The file's events, kept inside the clip so that every one can fire.
  for (const ClipEvent& e : clip.events()) {
    if (!std::isfinite(e.time)) continue;
    entry.cues.push_back(
        {std::clamp(e.time, 0.0f, clip.duration()), CueKind::kEvent, intern(e.name)});
  }
  std::stable_sort(entry.cues.begin(), entry.cues.end(),
                   [](const ClipCue& a, const ClipCue& b) { return a.time < b.time; });
  set_->max_tracks_ = std::max(set_->max_tracks_, entry.clip.tracks().size());
  if (entry.compiled) {
    set_->max_keyed_tracks_ =
        std::max(set_->max_keyed_tracks_, entry.compiled->keyed_track_count());
  }
  set_->clips_.push_back(std::move(entry));
  root_motion_wanted_.push_back(options.root_motion && !options.additive);
  return {};
}

Status ClipSetBuilder::add_cue(std::string_view clip, float time, std::string name, CueKind kind) {
  if (!set_) return make_error("clip set", "the builder was already built");
  Result<ClipId> id = set_->clip_id(clip);
  if (!id) return id.error();
  ClipSet::Entry& entry = set_->clips_[*id];
  const char* what = kind == CueKind::kEvent ? "event" : "sync marker";
  if (!std::isfinite(time) || time < 0 || time > entry.clip.duration()) {
    return make_error(clip_where(clip), std::string(what) + " '" + name + "' at " +
                                            std::to_string(time) +
                                            " s lies outside the clip (0 to " +
                                            std::to_string(entry.clip.duration()) + " s)");
  }
  if (name.empty()) return make_error(clip_where(clip), std::string(what) + " needs a name");
  if (kind == CueKind::kMarker) {
    SyncMarker marker{time, name};
    const auto at = std::upper_bound(entry.markers.begin(), entry.markers.end(), time,
                                     [](float t, const SyncMarker& m) { return t < m.time; });
    entry.markers.insert(at, std::move(marker));
  }
  const ClipCue cue{time, kind, intern(std::move(name))};
  const auto at = std::upper_bound(entry.cues.begin(), entry.cues.end(), time,
                                   [](float t, const ClipCue& c) { return t < c.time; });
  entry.cues.insert(at, cue);
  return {};
}

Status ClipSetBuilder::add_event(std::string_view clip, float time, std::string name) {
  return add_cue(clip, time, std::move(name), CueKind::kEvent);
}

Status ClipSetBuilder::add_marker(std::string_view clip, float time, std::string name) {
  return add_cue(clip, time, std::move(name), CueKind::kMarker);
}

Status ClipSetBuilder::add_detected_foot_markers(std::string_view clip, std::string_view left_foot,
                                                 std::string_view right_foot,
                                                 const FootMarkerOptions& options) {
  if (!set_) return make_error("clip set", "the builder was already built");
  Result<ClipId> id = set_->clip_id(clip);
  if (!id) return id.error();
  const std::string where = clip_where(clip) + ", foot markers";
  const Skeleton& skeleton = set_->skeleton_;
  // An empty toe name means no toe; any other name must be a joint, or "#N" joint N (for
  // skeletons whose names repeat).
  const auto joint = [&](std::string_view name, bool optional) -> Result<JointIndex> {
    if (optional && name.empty()) return kNoParent;
    if (name.size() > 1 && name[0] == '#') {
      std::size_t index = 0;
      const char* end = name.data() + name.size();
      const auto [ptr, ec] = std::from_chars(name.data() + 1, end, index);
      if (ec == std::errc() && ptr == end && index < skeleton.size())
        return static_cast<JointIndex>(index);
    }
    if (const std::optional<JointIndex> j = skeleton.find(name)) return *j;
    return make_error(where, "the skeleton has no joint '" + std::string(name) + "'");
  };
  FootJoints feet[2];
  const std::string_view names[2][2] = {{left_foot, options.left_toe},
                                        {right_foot, options.right_toe}};
  for (int f = 0; f < 2; ++f) {
    Result<JointIndex> ankle = joint(names[f][0], false);
    if (!ankle) return ankle.error();
    Result<JointIndex> toe = joint(names[f][1], true);
    if (!toe) return toe.error();
    feet[f] = {*ankle, *toe};
  }
  // The set's copy of the clip is bound to the set's skeleton, as the detector needs.
  const Clip& bound = set_->clips_[*id].clip;
  Result<FootContacts> contacts = detect_foot_contacts(skeleton, bound, feet, options.contacts);
  if (!contacts) return make_error(where, contacts.error().message);
  const std::string* marker_names[2] = {&options.left_name, &options.right_name};
  std::vector<float> starts[2];
  for (int f = 0; f < 2; ++f) {
    const FootContactTrack& track = contacts->feet[static_cast<std::size_t>(f)];
    for (const ContactInterval& c : track.intervals) {
      // A contact through the whole loop has no moment where the foot comes down.
      const bool whole = options.contacts.looping && c.start <= 0 && c.end >= bound.duration();
      if (!whole) starts[f].push_back(c.start);
    }
    if (starts[f].empty()) {
      return make_error(where, "'" + std::string(names[f][0]) + "' never comes down (" +
                                   (track.intervals.empty() ? "no contact found"
                                                            : "planted through the whole loop") +
                                   "); check the joint, or loosen FootContactOptions");
    }
  }
  for (int f = 0; f < 2; ++f) {
    for (const float t : starts[f]) {
      if (Status s = add_marker(clip, t, *marker_names[f]); !s) return s;
    }
  }
  return {};
}

Status ClipSetBuilder::add_mask(std::string name, std::vector<float> weights) {
  if (!set_) return make_error("clip set", "the builder was already built");
  const std::string where = "mask '" + name + "'";
  if (name.empty()) return make_error("clip set", "a mask needs a name");
  if (set_->mask_id(name)) return make_error(where, "the set already has a mask of this name");
  if (weights.size() != set_->skeleton_.size()) {
    return make_error(where, "has " + std::to_string(weights.size()) + " weights, the skeleton " +
                                 std::to_string(set_->skeleton_.size()) + " joints");
  }
  for (std::size_t j = 0; j < weights.size(); ++j) {
    if (!(weights[j] >= 0 && weights[j] <= 1)) {
      return make_error(where,
                        "the weight of joint '" + set_->skeleton_.name(j) + "' is outside [0, 1]");
    }
  }
  set_->masks_.push_back({std::move(name), std::move(weights), {}});
  return {};
}

Status ClipSetBuilder::add_blend_space(std::string name, std::span<const BlendSampleDesc> samples,
                                       int dims) {
  if (!set_) return make_error("clip set", "the builder was already built");
  const std::string where = "blend space '" + name + "'";
  if (name.empty()) return make_error("clip set", "a blend space needs a name");
  if (set_->blend_space_id(name)) {
    return make_error(where, "the set already has a blend space of this name");
  }
  std::vector<BlendSample> resolved;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    Result<ClipId> id = set_->clip_id(samples[i].clip);
    if (!id) return make_error(where, "sample " + std::to_string(i) + ": " + id.error().message);
    if (set_->clips_[*id].additive) {
      return make_error(where, "sample " + std::to_string(i) + ": clip '" + samples[i].clip +
                                   "' is additive; blend spaces blend whole poses");
    }
    resolved.push_back({*id, samples[i].x, samples[i].y, samples[i].sync});
  }
  Result<BlendSpace> space = dims == 1 ? BlendSpace::make_1d(name, std::move(resolved))
                                       : BlendSpace::make_2d(name, std::move(resolved));
  if (!space) return space.error();
  set_->blend_spaces_.push_back(std::move(space).value());
  return {};
}

Status ClipSetBuilder::add_blend_space_1d(std::string name,
                                          std::span<const BlendSampleDesc> samples) {
  return add_blend_space(std::move(name), samples, 1);
}

Status ClipSetBuilder::add_blend_space_2d(std::string name,
                                          std::span<const BlendSampleDesc> samples) {
  return add_blend_space(std::move(name), samples, 2);
}

Status ClipSetBuilder::set_root_motion(RootMotionOptions options) {
  if (!set_) return make_error("clip set", "the builder was already built");
  const Skeleton& skeleton = set_->skeleton_;
  const std::string where = "root motion";
  const std::optional<JointIndex> joint = skeleton.find(options.joint);
  if (!joint) return make_error(where, "the skeleton has no joint '" + options.joint + "'");
  if (!is_finite(options.up) || !(length(options.up) > 1e-6f)) {
    return make_error(where, "the up axis is zero or not finite");
  }
  // The parent's rest model transform carries deltas into model space; it must be a similarity.
  Transform parent{};
  if (skeleton.parent(*joint) != kNoParent) {
    std::vector<Mat4> model(skeleton.size());
    (void)local_to_model(skeleton, skeleton.rest_pose(), model);
    const Decomposition d = decompose(model[skeleton.parent(*joint)]);
    const Vec3 s = d.transform.scale;
    const float mean = (std::fabs(s.x) + std::fabs(s.y) + std::fabs(s.z)) / 3;
    if (!d.exact || !(mean > 0) || std::fabs(s.x - mean) > 1e-4f * mean ||
        std::fabs(s.y - mean) > 1e-4f * mean || std::fabs(s.z - mean) > 1e-4f * mean) {
      return make_error(where, "the joints above '" + options.joint +
                                   "' do not have a uniform positive scale in the rest pose");
    }
    parent = d.transform;
    parent.scale = {mean, mean, mean};
  }
  const Vec3 up = options.up * (1.0f / length(options.up));
  set_->root_up_local_ = rotate(conjugate(parent.rotation), up);
  set_->root_up_local_ *= 1.0f / length(set_->root_up_local_);
  set_->root_parent_model_ = parent;
  set_->root_joint_ = *joint;
  options.up = up;
  set_->root_options_ = std::move(options);
  has_root_options_ = true;
  return {};
}

Status ClipSetBuilder::set_morph_layout(const MorphLayout& layout) {
  if (!set_) return make_error("clip set", "the builder was already built");
  for (const MorphSlots& slots : layout.slots()) {
    if (slots.node >= set_->skeleton_.size()) {
      return make_error("morph layout", "slots " + std::to_string(slots.first) +
                                            " hang from node " + std::to_string(slots.node) +
                                            ", past the skeleton's " +
                                            std::to_string(set_->skeleton_.size()) + " joints");
    }
  }
  for (float w : layout.default_weights()) {
    if (!std::isfinite(w)) return make_error("morph layout", "a default weight is not finite");
  }
  set_->morph_defaults_.assign(layout.default_weights().begin(), layout.default_weights().end());
  set_->morph_slots_.assign(layout.slots().begin(), layout.slots().end());
  set_->has_morph_layout_ = true;
  return {};
}

Result<std::shared_ptr<const ClipSet>> ClipSetBuilder::build() {
  if (!set_) return make_error("clip set", "the builder was already built");
  ClipSet& set = *set_;
  // The weight array: the layout's, which every clip must fit, or the most any clip drives.
  for (const ClipSet::Entry& e : set.clips_) {
    const std::size_t drives = e.clip.weight_count();
    if (set.has_morph_layout_ && drives > set.morph_defaults_.size()) {
      return make_error(clip_where(e.clip.name()), "drives " + std::to_string(drives) +
                                                       " morph weights, the character has " +
                                                       std::to_string(set.morph_defaults_.size()));
    }
    if (!set.has_morph_layout_ && drives > set.morph_defaults_.size())
      set.morph_defaults_.resize(drives, 0.0f);
  }
  for (ClipSet::NamedMask& m : set.masks_) {
    m.morph_weights =
        set.has_morph_layout_
            ? morph_mask_from_joint_mask(m.weights, set.morph_slots_, set.morph_defaults_.size())
            : std::vector<float>(set.morph_defaults_.size(), 1.0f);
  }
  // Blend spaces sync by markers when every synced sample has them.
  for (BlendSpace& space : set.blend_spaces_) {
    bool all = true, any = false;
    for (const BlendSample& s : space.samples()) {
      if (!s.sync) continue;
      any = true;
      all = all && !set.clips_[s.clip].markers.empty();
    }
    space.sync_mode_ = any && all ? SyncMode::kMarkers : SyncMode::kPhase;
  }
  if (has_root_options_) {
    const Skeleton& skeleton = set.skeleton_;
    const JointIndex root = set.root_joint_;
    for (std::size_t c = 0; c < set.clips_.size(); ++c) {
      ClipSet::Entry& e = set.clips_[c];
      if (!root_motion_wanted_[c]) continue;
      RootMotionTrack track;
      for (std::size_t t = 0; t < e.clip.tracks().size(); ++t) {
        const Track& k = e.clip.tracks()[t];
        if (k.joint != root && skeleton.is_descendant(root, k.joint)) {
          return make_error(clip_where(e.clip.name()), "animates '" + skeleton.name(k.joint) +
                                                           "', above the root-motion joint '" +
                                                           set.root_options_.joint +
                                                           "'; root motion needs a still parent");
        }
        if (k.joint != root) continue;
        if (k.target == TrackTarget::kTranslation)
          track.translation_track = static_cast<std::uint32_t>(t);
        if (k.target == TrackTarget::kRotation)
          track.rotation_track = static_cast<std::uint32_t>(t);
      }
      const Transform& rest = skeleton.rest_pose()[root];
      track.enabled = true;
      track.start = control_detail::extract(control_detail::root_local_at(e.clip, track, rest, 0),
                                            set.root_up_local_, set.root_options_);
      track.end = control_detail::extract(
          control_detail::root_local_at(e.clip, track, rest, e.clip.duration()), set.root_up_local_,
          set.root_options_);
      e.root = track;
    }
  }
  std::shared_ptr<const ClipSet> out(set_.release());
  return out;
}

}  // namespace marrow
