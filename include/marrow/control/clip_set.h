/// @file
/// A clip set: the immutable data many characters share. One skeleton, the clips bound to it by
/// joint name (each optionally with its compiled form), the events and sync markers of each clip,
/// named masks, blend spaces and the root-motion setup. Every Animator (animator.h) holds a
/// shared_ptr to one set and nothing of the key data itself, so a thousand characters playing the
/// same clips keep one copy of them.
///
/// @code
///   ClipSetBuilder builder(asset.skeleton);
///   for (const Clip& clip : asset.clips) {
///     if (Status s = builder.add_clip(clip, {.compile = true}); !s) return s.error();
///   }
///   builder.add_event("Walk", 0.5f, "step");
///   Result<std::shared_ptr<const ClipSet>> set = builder.build();
/// @endcode
///
/// Everything here is setup time: it allocates and may fail with an Error that names the clip,
/// the joint or the sample that is wrong. The Animator's per-frame calls only read it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/clip/compiled_clip.h"
#include "marrow/control/blend_space.h"
#include "marrow/ik/foot_contacts.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {
class MorphLayout;  ///< skin/morph.h
}

namespace marrow {

/// Indices into a clip set's clips, masks and blend spaces.
using ClipId = std::uint32_t;
using MaskId = std::uint32_t;
using BlendSpaceId = std::uint32_t;
inline constexpr std::uint32_t kNoId = 0xFFFFFFFFu;

/// A named point in a clip's time: a phase landmark such as "foot_left_down". Players of one sync
/// group are aligned marker to marker (animator.h).
struct SyncMarker {
  float time = 0;
  std::string name{};
};

/// What a point on a clip's timeline is: an event delivered to the game, or a sync marker.
enum class CueKind : std::uint8_t { kEvent, kMarker };

/// An event or marker of a clip, sorted by time; `name` indexes ClipSet::name().
struct ClipCue {
  float time = 0;
  CueKind kind = CueKind::kEvent;
  std::uint32_t name = 0;
};

/// Root motion: the part of a joint's animation that moves the whole character, taken out of the
/// pose and handed to the game as a delta per update (animator.h). The joint is usually the hips
/// or a dedicated root; its ancestors must not be animated and must have uniform scale (their
/// rest transforms carry the delta into model space).
struct RootMotionOptions {
  std::string joint{};
  /// The model-space up axis; "horizontal" is the plane across it, "yaw" the turn about it.
  Vec3 up{0, 1, 0};
  bool horizontal = true;  ///< extract the translation across up
  bool vertical = false;   ///< extract the translation along up
  bool yaw = false;        ///< extract the twist about up (off by default: hips sway)
};

/// The root motion of one clip: where its joint's tracks are, and the extracted part (translation
/// and yaw, in the joint's parent space) at the clip's start and end.
struct RootMotionTrack {
  bool enabled = false;
  std::uint32_t translation_track = kNoId;  ///< indices into clip(id).tracks(); kNoId: rest value
  std::uint32_t rotation_track = kNoId;
  Transform start;  ///< F(0)
  Transform end;    ///< F(duration)
};

/// Sync markers found from the feet (ClipSetBuilder::add_detected_foot_markers).
struct FootMarkerOptions {
  /// Optional toe (ball) joints: a foot standing on its ball while the heel lifts stays planted.
  std::string left_toe{}, right_toe{};
  /// The markers' names, one at the start of each contact of that foot.
  std::string left_name = "foot_left_down";
  std::string right_name = "foot_right_down";
  /// The detector's thresholds (ik/foot_contacts.h); `looping` should match how the clip plays.
  FootContactOptions contacts{};
};

struct ClipOptions {
  /// Compile the clip (compiled_clip.h) with `compile_options`; the Animator then plays the
  /// compiled form. Clips added with a CompiledClip of their own ignore this.
  bool compile = false;
  CompileOptions compile_options{};
  /// The clip holds deltas (pose/additive.h's make_additive_clip) and may only be played on an
  /// additive layer. When compiled, compile_options.additive_reference defaults to the rest pose.
  bool additive = false;
  /// Take part in root motion (when the set has it).
  bool root_motion = true;
};

class ClipSet {
 public:
  const Skeleton& skeleton() const { return skeleton_; }

  std::size_t clip_count() const { return clips_.size(); }
  const Clip& clip(ClipId id) const { return clips_[id].clip; }
  /// The compiled form, or null when the clip has none.
  const CompiledClip* compiled(ClipId id) const {
    return clips_[id].compiled ? &*clips_[id].compiled : nullptr;
  }
  bool is_additive(ClipId id) const { return clips_[id].additive; }
  float duration(ClipId id) const { return clips_[id].clip.duration(); }
  /// Events (from the file and added in code) and sync markers, in time order.
  std::span<const ClipCue> cues(ClipId id) const { return clips_[id].cues; }
  std::span<const SyncMarker> markers(ClipId id) const { return clips_[id].markers; }
  const RootMotionTrack& root_motion_track(ClipId id) const { return clips_[id].root; }
  std::optional<ClipId> find_clip(std::string_view name) const;
  /// The same with an error listing the set's clips when the name is unknown.
  Result<ClipId> clip_id(std::string_view name) const;

  std::size_t mask_count() const { return masks_.size(); }
  std::span<const float> mask(MaskId id) const { return masks_[id].weights; }
  const std::string& mask_name(MaskId id) const { return masks_[id].name; }
  Result<MaskId> mask_id(std::string_view name) const;

  /// --- Morph-target weights: the character's weight array (skin/morph.h) that clips' weight
  /// tracks drive, by slot. Its size is the layout's (ClipSetBuilder::set_morph_layout) or,
  /// without one, the most slots any clip drives.
  std::size_t morph_weight_count() const { return morph_defaults_.size(); }
  /// Each slot's weight when nothing animates it (the layout's defaults; 0 without a layout).
  std::span<const float> default_morph_weights() const { return morph_defaults_; }
  /// Mask `id` over the weight slots: a slot takes the mask's weight at the node whose meshes it
  /// drives (morph_mask_from_joint_mask). Without a layout, which says where the slots hang,
  /// every slot is at 1.
  std::span<const float> morph_mask(MaskId id) const { return masks_[id].morph_weights; }

  std::size_t blend_space_count() const { return blend_spaces_.size(); }
  const BlendSpace& blend_space(BlendSpaceId id) const { return blend_spaces_[id]; }
  Result<BlendSpaceId> blend_space_id(std::string_view name) const;

  /// Names of events and markers (ClipCue::name).
  std::string_view name(std::uint32_t index) const { return names_[index]; }
  std::optional<std::uint32_t> find_name(std::string_view name) const;

  bool has_root_motion() const { return root_joint_ != kNoParent; }
  JointIndex root_motion_joint() const { return root_joint_; }
  const RootMotionOptions& root_motion_options() const { return root_options_; }
  /// Rest-pose model transform of the root-motion joint's parent (identity for a root joint):
  /// deltas in the parent's space are carried into model space through it.
  const Transform& root_parent_model() const { return root_parent_model_; }
  /// The extraction axes in the parent's space.
  Vec3 root_up_local() const { return root_up_local_; }

  /// The skeleton's rest pose and the identity pose, one Transform per joint and in SoA groups:
  /// what players sample over (additive clips over the identity).
  std::span<const Transform> identity_pose() const { return identity_; }
  std::span<const SoaTransform> soa_identity_pose() const { return soa_identity_; }
  /// The most tracks of any exact clip (sampling cursors are sized for it) and of any compiled
  /// clip's exact-key tracks.
  std::size_t max_tracks() const { return max_tracks_; }
  std::size_t max_keyed_tracks() const { return max_keyed_tracks_; }

  /// Bytes of everything the set holds (key data, compiled clips, cues, masks, blend spaces):
  /// the memory that characters share.
  std::size_t size_bytes() const;

 private:
  friend class ClipSetBuilder;
  struct Entry {
    Clip clip;
    std::optional<CompiledClip> compiled;
    bool additive = false;
    std::vector<ClipCue> cues;
    std::vector<SyncMarker> markers;
    RootMotionTrack root;
  };
  struct NamedMask {
    std::string name;
    std::vector<float> weights;
    std::vector<float> morph_weights;  ///< made by build()
  };
  Skeleton skeleton_;
  std::vector<Entry> clips_;
  std::vector<NamedMask> masks_;
  std::vector<BlendSpace> blend_spaces_;
  std::vector<std::string> names_;
  std::vector<Transform> identity_;
  std::vector<SoaTransform> soa_identity_;
  std::vector<float> morph_defaults_;
  std::vector<MorphSlots> morph_slots_;
  bool has_morph_layout_ = false;
  std::size_t max_tracks_ = 0, max_keyed_tracks_ = 0;
  JointIndex root_joint_ = kNoParent;
  RootMotionOptions root_options_;
  Transform root_parent_model_{};
  Vec3 root_up_local_{0, 1, 0};
};

class ClipSetBuilder {
 public:
  explicit ClipSetBuilder(const Skeleton& skeleton);

  /// Binds `clip` to the set's skeleton by joint name: every track must find its joint (the
  /// error lists those that do not); a clip made for another skeleton whose joints carry the same
  /// names is remapped (clip/binding.h). The clip's own events are kept. Names must be unique.
  Status add_clip(const Clip& clip, const ClipOptions& options = {});
  /// A clip with the compiled form made for it elsewhere (offline, or read from an archive). The
  /// compiled clip must have been made for a skeleton of the set's joint count from this very
  /// clip (same name and duration); the clip itself must bind without remapping.
  Status add_clip(const Clip& clip, CompiledClip compiled, const ClipOptions& options = {});

  /// An event or a sync marker at `time` seconds of a clip added before (0 <= time <= duration).
  Status add_event(std::string_view clip, float time, std::string name);
  Status add_marker(std::string_view clip, float time, std::string name);
  /// Sync markers detected from the feet rather than authored: ik/foot_contacts.h finds when each
  /// foot is planted (its ankle or toe low and slow), and a marker named options.left_name or
  /// right_name goes where each contact starts, i.e. where the foot comes down. A joint is named,
  /// or given as "#N" (joint N) where names repeat. Errors: an unknown
  /// clip or joint (naming it), the detector's own errors, and a foot that never comes down (no
  /// contact, or one contact through the whole loop, such as an idle's planted foot).
  Status add_detected_foot_markers(std::string_view clip, std::string_view left_foot,
                                   std::string_view right_foot,
                                   const FootMarkerOptions& options = {});

  /// A mask (pose/mask.h), one weight per joint, under a name layers refer to.
  Status add_mask(std::string name, std::vector<float> weights);

  /// Blend spaces over clips added before (blend_space.h has the rules). A 2D space triangulates
  /// its points (Delaunay). Samples marked sync take part in the space's phase sync: by markers
  /// when every one of them has markers, else by normalized time.
  Status add_blend_space_1d(std::string name, std::span<const BlendSampleDesc> samples);
  Status add_blend_space_2d(std::string name, std::span<const BlendSampleDesc> samples);

  /// The character's morph-weight array (MorphLayout::build over its meshes): its size, default
  /// weights, and the node each slot's meshes hang from, through which masks select slots.
  /// Every clip, added before or after, must drive slots inside it (checked by build()).
  Status set_morph_layout(const MorphLayout& layout);

  /// Root motion for every clip added with ClipOptions::root_motion (before or after this call).
  Status set_root_motion(RootMotionOptions options);

  /// Checks what could only be checked with everything in place (blend spaces' markers, root
  /// motion on every clip) and hands out the set. The builder is left empty.
  Result<std::shared_ptr<const ClipSet>> build();

 private:
  Status add_entry(const Clip& clip, std::optional<CompiledClip> compiled,
                   const ClipOptions& options);
  Status add_cue(std::string_view clip, float time, std::string name, CueKind kind);
  Status add_blend_space(std::string name, std::span<const BlendSampleDesc> samples, int dims);
  std::uint32_t intern(std::string name);

  std::unique_ptr<ClipSet> set_;
  std::vector<bool> root_motion_wanted_;
  bool has_root_options_ = false;
};

}  // namespace marrow
