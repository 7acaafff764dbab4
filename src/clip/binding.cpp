#include "marrow/clip/binding.h"

#include <algorithm>
#include <unordered_set>

#include "marrow/clip/clip_builder.h"

namespace marrow {
namespace {

std::string track_label(const Clip& clip, std::size_t t) {
  const std::span<const std::string> names = clip.track_joint_names();
  if (t < names.size() && !names[t].empty()) return names[t];
  return "#" + std::to_string(clip.tracks()[t].joint);
}

// A node without a name can only be matched by its place: an unnamed track binds to the
// skeleton's joint of the same index when that joint is unnamed too and the clip was made for a
// skeleton of the same size (a clip read with its own skeleton, as glTF files without node names).
std::optional<JointIndex> unnamed_joint_at(const Clip& clip, JointIndex joint, const Skeleton& s) {
  if (clip.joint_count() != s.size() || joint >= s.size() || !s.name(joint).empty()) {
    return std::nullopt;
  }
  return joint;
}

std::optional<JointIndex> joint_of_track(const Clip& clip, std::size_t t, const Skeleton& s) {
  const std::span<const std::string> names = clip.track_joint_names();
  if (t >= names.size() || names[t].empty())
    return unnamed_joint_at(clip, clip.tracks()[t].joint, s);
  return s.find(names[t]);
}

std::optional<JointIndex> node_of_weight_track(const Clip& clip, std::size_t t, const Skeleton& s) {
  const std::string& name = clip.weight_track_node_names()[t];
  if (name.empty()) return unnamed_joint_at(clip, clip.weight_tracks()[t].node, s);
  return s.find(name);
}

}  // namespace

ClipBindingReport check_binding(const Clip& clip, const Skeleton& skeleton) {
  ClipBindingReport report;
  report.total_tracks = clip.tracks().size();
  std::vector<bool> animated(skeleton.size(), false);
  std::unordered_set<std::string> listed;
  for (std::size_t t = 0; t < clip.tracks().size(); ++t) {
    if (const std::optional<JointIndex> j = joint_of_track(clip, t, skeleton)) {
      animated[*j] = true;
      ++report.bound_tracks;
    } else {
      std::string label = track_label(clip, t);
      if (listed.insert(label).second) report.missing_joints.push_back(std::move(label));
    }
  }
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    if (!animated[j]) report.unanimated_joints.push_back(skeleton.name(j));
  }
  return report;
}

Result<Clip> rebind_clip(const Clip& clip, const Skeleton& skeleton,
                         std::vector<std::string>* dropped, std::span<const MorphSlots> morph_slots,
                         std::size_t weight_count) {
  ClipBuilder builder(clip.name());
  builder.set_ticks_per_second(clip.ticks_per_second());
  builder.set_duration(clip.duration());
  std::unordered_set<std::string> listed;
  const std::span<const float> times = clip.times();
  const std::span<const float> values = clip.values();
  for (std::size_t t = 0; t < clip.tracks().size(); ++t) {
    const Track& track = clip.tracks()[t];
    const std::optional<JointIndex> joint = joint_of_track(clip, t, skeleton);
    if (!joint) {
      std::string label = track_label(clip, t);
      if (dropped && listed.insert(label).second) dropped->push_back(std::move(label));
      continue;
    }
    const std::size_t value_count =
        std::size_t{track.key_count} * floats_per_key(track.target, track.interpolation);
    const Status st = builder.add_track(
        *joint, skeleton.name(*joint), track.target, track.interpolation,
        times.subspan(track.first_key, track.key_count),
        values.subspan(track.first_value, value_count), "clip '" + clip.name() + "'");
    if (!st) return st.error();
  }
  for (std::size_t t = 0; t < clip.weight_tracks().size(); ++t) {
    const WeightTrack& track = clip.weight_tracks()[t];
    const std::string& node_name = clip.weight_track_node_names()[t];
    const std::optional<JointIndex> node = node_of_weight_track(clip, t, skeleton);
    const MorphSlots* slots = nullptr;
    for (const MorphSlots& s : morph_slots) {
      if (node && s.node == *node) slots = &s;
    }
    if (!slots || slots->count != track.weight_count) {
      std::string label = "morph weights of '" + node_name + "'";
      if (dropped && listed.insert(label).second) dropped->push_back(std::move(label));
      continue;
    }
    const Status st = builder.add_weight_track(
        *node, node_name, slots->first, slots->count, track.interpolation,
        times.subspan(track.first_key, track.key_count),
        values.subspan(track.first_value, std::size_t{track.key_count} * floats_per_key(track)),
        "clip '" + clip.name() + "'");
    if (!st) return st.error();
  }
  if (weight_count > 0) builder.set_weight_count(weight_count);
  for (const ClipEvent& e : clip.events()) builder.add_event(e.time, e.name);
  return builder.build(skeleton.size(), "clip '" + clip.name() + "' bound to a skeleton");
}

}  // namespace marrow
