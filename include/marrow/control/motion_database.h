/// @file
/// Motion matching's database (docs/motion_matching.md): clips of one skeleton cut into frames at
/// a fixed rate, each described by a feature vector (where the feet are and how they move, how the
/// hips move, where the character will be and which way it will face at a few horizons, all in
/// the character's own frame), normalized per feature so that no unit dominates, weighted, and
/// indexed for exact nearest-neighbour search. A database is immutable once built and shared by
/// every character that matches against it (motion_matcher.h); searching allocates nothing.
///
/// @code
///   MotionSchema schema = MotionSchema::locomotion("Hips", "LeftFoot", "RightFoot");
///   std::vector<MotionClipDesc> clips = {{&walk}, {&jog}, {&turns}};
///   Result<std::shared_ptr<const MotionDatabase>> db = MotionDatabase::build(skeleton, clips,
///                                                                           schema);
///   MotionMatch best = (*db)->search(query);   // query: (*db)->dims() normalized floats
/// @endcode
///
/// The character's frame at a database frame is the root joint's model transform brought to the
/// ground: its position with the up component removed, and its facing, the root's forward axis
/// (found from the feet: left minus right, crossed with up, averaged over every frame) projected
/// on the ground. The database's clips (clip_set()) are the sources with the root joint's
/// motion in that frame taken out, so poses of different clips and times line up for
/// inertialization and the character moves by the frame's own motion (MotionDatabase::frame).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/control/clip_set.h"
#include "marrow/math/vec3.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

enum class MotionFeature : std::uint8_t {
  kJointPosition,        ///< a joint's position relative to the character: 3 floats
  kJointVelocity,        ///< a joint's velocity, in the character's frame: 3 floats
  kTrajectoryPosition,   ///< where the character will be `horizon` s ahead: 2 floats (side, fwd)
  kTrajectoryDirection,  ///< which way it will face `horizon` s ahead: 2 floats (side, fwd)
};

/// One feature of the schema. Its floats form one normalization group: divided by the group's
/// standard deviation (the mean of its components'), then multiplied by `weight`.
struct MotionFeatureDesc {
  MotionFeature kind = MotionFeature::kJointPosition;
  std::string joint{};  ///< the joint of position and velocity features
  float horizon = 0;    ///< seconds ahead, trajectory features (> 0)
  float weight = 1;     ///< >= 0 and finite; 0 keeps the floats but makes them not count
};

struct MotionSchema {
  /// The joint whose ground projection is the character (the hips, or a root that carries the
  /// motion). Its ancestors must not be animated.
  std::string root{};
  /// The feet, which say which way the root faces (forward = (left - right) x up).
  std::string left_foot{}, right_foot{};
  Vec3 up{0, 1, 0};        ///< the model-space up axis
  float sample_rate = 60;  ///< database frames per second of clip time
  /// Play the database's clips in compiled form (compiled_clip.h, default options): what a crowd
  /// wants; off, the exact clips play.
  bool compile_clips = false;
  /// Mirroring: per joint, the joint on the other side (retarget/mirror.h's mirror_joints makes
  /// it from the humanoid parts and the names); each clip is then also added mirrored across the
  /// character's middle, as "NAME (mirrored)", its excluded ranges kept. Empty: no mirroring.
  std::vector<JointIndex> mirror{};
  std::vector<MotionFeatureDesc> features{};

  /// Holden's locomotion set (27 floats): both feet's positions and velocities, the root's
  /// velocity (weight 1), and the future positions and facings at 1/3, 2/3 and 1 s (weight 4).
  static MotionSchema locomotion(std::string root, std::string left_foot, std::string right_foot,
                                 Vec3 up = {0, 1, 0});
};

/// A clip for the database and the stretches of it no search may land in (an idle's fidgets, a
/// stumble), in seconds. Frames whose longest trajectory horizon runs past the clip's end are
/// left out on their own.
struct MotionClipDesc {
  const Clip* clip = nullptr;
  struct Range {
    float begin = 0, end = 0;
  };
  std::vector<Range> excluded{};
};

/// The most floats a feature vector may have (a query is padded on the stack, not allocated).
inline constexpr std::size_t kMaxMotionDims = 256;

inline constexpr std::uint32_t kNoMotionFrame = std::numeric_limits<std::uint32_t>::max();

/// A search's answer: the frame (kNoMotionFrame when nothing was searchable), its squared
/// distance to the query in normalized units, and what the search looked at.
struct MotionMatch {
  std::uint32_t frame = kNoMotionFrame;
  float distance = std::numeric_limits<float>::infinity();
  std::uint32_t frames_compared = 0;
  std::uint32_t boxes_tested = 0;
  /// False when a leaf budget stopped the search before it had ruled out every other frame.
  bool exact = true;
};

/// A database frame: which clip and time it is, and the character's frame there (model space of
/// the source clip: ground position and facing angle about up, 0 facing the ground's forward
/// axis, see MotionDatabase::ground_axes).
struct MotionFrame {
  ClipId clip = kNoId;
  float time = 0;
  float ground_side = 0, ground_forward = 0;  ///< the character's position on the ground
  float yaw = 0;                              ///< radians
  bool searchable = false;
  /// The feet planted at this frame: within 5% of the leg's length of the clip's floor and moving
  /// slower than half a leg length per second (ik/foot_contacts.h's thresholds).
  bool left_contact = false, right_contact = false;
};

/// What a saved database holds besides its skeleton and its clips (clip_set()'s, in order): the
/// schema (with the up axis as the database settled it), every frame and its normalized features,
/// and the normalization that made them. io/motion_database_archive.h stores it in a .marrow
/// archive; MotionDatabase::restore() checks it and rebuilds the rest (axes, leg length, search
/// index), so a restored database searches exactly as the one saved.
struct MotionDatabaseContents {
  MotionSchema schema{};
  /// Where each clip's frames begin, then the frame count: clips + 1 entries, 0 first, rising.
  std::vector<std::uint32_t> first_frame_of_clip{};
  std::vector<MotionFrame> frames{};
  std::vector<float> mean{}, scale{};  ///< dims floats each: normalized = (raw - mean) * scale
  std::vector<float> features{};       ///< frames x dims, normalized and weighted
  float mean_speed = 0;
};

enum class MotionSearchMode : std::uint8_t {
  kBruteForce,  ///< every frame compared: the reference
  kBoxTree,     ///< a tree of bounding boxes over the frames, pruned by distance: the same frame
};

class MotionDatabase {
 public:
  /// Errors: no clips, a null clip, a clip whose tracks do not bind to `skeleton`, an unknown
  /// joint in the schema (named), a root with animated ancestors, a rate or horizon or weight that
  /// is not positive and finite (zero weights allowed), no feature, feet that do not tell a
  /// facing, more than kMaxMotionDims floats, a mirror map of the wrong size or that does not pair
  /// both ways, and a database with no searchable frame.
  static Result<std::shared_ptr<const MotionDatabase>> build(const Skeleton& skeleton,
                                                             std::span<const MotionClipDesc> clips,
                                                             const MotionSchema& schema);

  const MotionSchema& schema() const { return schema_; }
  const Skeleton& skeleton() const { return set_->skeleton(); }
  /// The clips with the root's motion taken out, in the order given, named as the sources.
  const ClipSet& clip_set() const { return *set_; }
  const std::shared_ptr<const ClipSet>& shared_clip_set() const { return set_; }
  JointIndex root_joint() const { return root_; }

  /// Floats per feature vector, and where each feature's floats start (schema order).
  std::size_t dims() const { return dims_; }
  std::uint32_t feature_offset(std::size_t feature) const { return offsets_[feature]; }
  std::size_t frame_count() const { return frames_.size(); }
  std::size_t searchable_count() const { return searchable_; }
  const MotionFrame& frame(std::uint32_t index) const { return frames_[index]; }
  /// The frame of `clip` nearest `time` (clamped to the clip).
  std::uint32_t frame_at(ClipId clip, float time) const;
  /// A frame's normalized, weighted features (dims() floats).
  std::span<const float> features(std::uint32_t frame) const {
    return {features_.data() + std::size_t{frame} * dims_, dims_};
  }
  /// Raw features (the schema's units: model units, per second, unit vectors) to normalized
  /// ones, float by float: (raw - mean) * scale. Both spans hold dims() floats.
  void normalize(std::span<const float> raw, std::span<float> out) const;
  float normalize(std::size_t dim, float raw) const { return (raw - mean_[dim]) * scale_[dim]; }
  /// Two unit vectors on the ground (across up): side x up = forward. A yaw of 0 faces forward.
  Vec3 ground_side() const { return side_; }
  Vec3 ground_forward() const { return forward_; }
  /// The root's horizontal speed averaged over the searchable frames (model units per second).
  float mean_speed() const { return mean_speed_; }
  /// The feet's legs' rest length (ankle to knee to hip, model units), averaged: the scale of the
  /// contact thresholds.
  float leg_length() const { return leg_length_; }

  /// The nearest searchable frame to `query` (dims() normalized floats) by squared Euclidean
  /// distance; ties go to the lower frame index, so both modes return the same frame. Allocates
  /// nothing; a query of the wrong size or with a non-finite float gives kNoMotionFrame.
  /// `leaf_budget` > 0 makes the box tree approximate: it stops after comparing that many leaves
  /// (64 frames each), nearest boxes first, and answers the best frame seen (MotionMatch::exact
  /// says whether that was still provably the nearest); docs/motion_matching.md measures its
  /// recall.
  /// `start`, a searchable frame (kNoMotionFrame: none), bounds the search from the outset by its
  /// own distance, as a controller gives the frame it is playing (its continuation is usually
  /// near the best): the box tree then skips at once every box farther than it. The answer is the
  /// same frame and distance as without it (the bound is the start's distance widened past
  /// rounding, so the start itself and every tie are still compared); a start that is not a
  /// searchable frame is ignored.
  MotionMatch search(std::span<const float> query,
                     MotionSearchMode mode = MotionSearchMode::kBoxTree,
                     std::uint32_t leaf_budget = 0, std::uint32_t start = kNoMotionFrame) const;

  /// The contents to save (the clips are clip_set()'s). Errors: a database made by
  /// from_features(), which has no skeleton or clips.
  Result<MotionDatabaseContents> contents() const;
  /// A database from saved contents, on `skeleton` with `clips` (the saved clip set's, in order).
  /// Errors name the part: the schema's own errors (as build()), a mirror map that does not pair,
  /// clip frame ranges that are not 0, rising, ending at the frame count, a frame of another clip
  /// than its range's or at a time outside it, a non-finite value, arrays of the wrong size, no
  /// searchable frame, a clip the skeleton cannot play.
  static Result<std::shared_ptr<const MotionDatabase>> restore(const Skeleton& skeleton,
                                                               std::span<const Clip> clips,
                                                               MotionDatabaseContents contents);

  /// Bytes held: features twice (by frame, and in the search's blocks), boxes, frames and their
  /// places in the blocks, clips.
  std::size_t size_bytes() const;

  /// Builds a database from feature rows directly (benchmarks and tests of the search): no clips,
  /// frames all searchable; normalized as build() does it with one group per float, or, with
  /// `normalize` false, kept as given (rows already normalized, such as another database's).
  static Result<std::shared_ptr<const MotionDatabase>> from_features(std::size_t dims,
                                                                     std::span<const float> rows,
                                                                     bool normalize = true);

  MotionDatabase() = default;  // use build()

 private:
  struct Node {
    std::uint32_t first_block = 0, block_count = 0;
    std::uint32_t left = 0, right = 0;  ///< children; 0 for a leaf (the root is node 0)
  };
  static constexpr std::uint32_t kLeafFrames = 64;

  void normalize_groups(std::span<const std::uint32_t> group_of_dim);
  void build_search_index();
  std::uint32_t build_node(std::span<std::uint32_t> frames);
  MotionMatch search_tree(const float* padded_query, std::uint32_t leaf_budget, float bound) const;
  float start_bound(const float* padded_query, std::uint32_t start) const;
  void rotate_query(std::span<const float> query, float* out) const;

  MotionSchema schema_;
  std::shared_ptr<const ClipSet> set_;
  JointIndex root_ = 0;
  std::size_t dims_ = 0, padded_dims_ = 0;  ///< padded: a multiple of 8, for the boxes
  std::vector<std::uint32_t> offsets_;
  std::vector<MotionFrame> frames_;
  std::vector<std::uint32_t> first_frame_of_clip_;  ///< one more than clips: the end
  std::size_t searchable_ = 0;
  std::vector<float> features_, mean_, scale_;
  Vec3 side_{1, 0, 0}, forward_{0, 0, 1};
  float mean_speed_ = 0, leg_length_ = 0;
  // The search runs on the features turned onto their principal axes (basis_: dims x dims, row k
  // the k-th axis by decreasing variance), where the tree's boxes fit the data far more tightly;
  // a rotation keeps every distance. rotated_ holds the turned features while the tree is built.
  std::vector<float> basis_, rotated_;
  // The search's index: searchable frames in leaf order, in blocks of 8 frames stored float by
  // float (dims() x 8), padded with infinite frames; each tree node's box (lower, upper).
  std::vector<float> blocks_;
  std::vector<std::uint32_t> block_frames_;
  std::vector<std::uint32_t> slot_of_frame_;  ///< a frame's place in block_frames_, or ~0u
  std::vector<Node> nodes_;
  std::vector<float> box_lower_, box_upper_;
};

}  // namespace marrow
