/// @file
/// Motion matching's controller (docs/motion_matching.md): a character that follows a desired
/// velocity and facing (a stick, a scripted path) by searching a MotionDatabase every few frames
/// for the frame whose pose and near future best continue what it does now toward what is asked,
/// and switching there by inertialization. The character moves by its animation's own motion.
///
/// @code
///   Result<MotionMatcher> matcher = MotionMatcher::create(database);
///   AnimatorWorkspace workspace(database->clip_set());
///   // per frame:
///   matcher->set_input(stick_velocity, stick_facing);   // world units per second, radians
///   matcher->update(dt);
///   matcher->evaluate(workspace, local);                 // the pose, in the character's frame
///   Transform world = matcher->world();                  // where the character stands
/// @endcode
///
/// Per frame (set_input, update, evaluate) nothing allocates, locks, throws or calls virtually.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/control/animator.h"
#include "marrow/control/motion_database.h"
#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"

namespace marrow {

/// A desired velocity and facing made smooth: critically damped springs, on the ground velocity
/// (toward the input's) and on the facing angle (toward the input's, the short way round). Their
/// closed forms give the state after any dt exactly and the position and facing at any time
/// ahead, which is the trajectory motion matching asks the database for. A halflife is the time
/// in which a gap, starting still, closes by half.
class TrajectorySpring {
 public:
  explicit TrajectorySpring(Vec3 up = {0, 1, 0}, float velocity_halflife = 0.25f,
                            float facing_halflife = 0.25f);
  void reset(Vec3 position, float yaw);
  /// Advances by dt seconds toward `velocity` (on the ground: its up component is dropped) and
  /// `yaw` (radians about up). Non-finite input is ignored; dt is clamped to [0, kMaxDeltaTime].
  void update(Vec3 velocity, float yaw, float dt);
  /// Where the spring will be `ahead` seconds from now if the input stays as given.
  Vec3 predict_position(Vec3 velocity, float ahead) const;
  float predict_yaw(float yaw, float ahead) const;

  Vec3 position() const { return position_; }
  Vec3 velocity() const { return velocity_; }
  float yaw() const { return yaw_; }
  /// Moves the position (the controller keeps it near the character).
  void set_position(Vec3 position) { position_ = position; }

 private:
  Vec3 ground(Vec3 v) const { return v - up_ * dot(v, up_); }
  Vec3 up_;
  float velocity_rate_, facing_rate_;
  Vec3 position_{0, 0, 0}, velocity_{0, 0, 0}, acceleration_{0, 0, 0};
  float yaw_ = 0, yaw_rate_ = 0;
};

struct MotionMatcherOptions {
  /// Seconds between searches (0.1: 10 Hz).
  float search_interval = 0.1f;
  /// The inertialization's length at a switch, seconds.
  float transition_time = 0.2f;
  float velocity_halflife = 0.25f, facing_halflife = 0.25f;
  /// A change of the desired velocity larger than this fraction of the database's mean speed, or
  /// of the desired facing by more than this many radians, searches at once.
  float input_change = 0.5f;
  /// A match in the clip playing now within this many seconds of where it plays is no switch.
  float same_clip_window = 0.2f;
  /// How far the desired path may run from the character before it is pulled along, in model
  /// units; negative: half a second at the database's mean speed.
  float max_drift = -1;
  MotionSearchMode search_mode = MotionSearchMode::kBoxTree;
  /// 0: exact search; N: the box tree stops after N leaves (MotionDatabase::search).
  std::uint32_t leaf_budget = 0;
  /// Seconds a foot's contact weight takes to go from 0 to 1 or back as the playing frame's
  /// contacts change (MotionFrame::left_contact); evaluate_planted() plants by that weight.
  float contact_blend = 0.1f;
};

struct MotionMatcherUpdate {
  bool searched = false;
  bool switched = false;
  MotionMatch match{};
  UpdateResult animation{};  ///< the Animator's update
};

class MotionMatcher {
 public:
  /// Errors: no database, option values not finite or not positive (max_drift may be negative),
  /// the Animator's own errors. Starts at the database's first searchable frame, at the world's
  /// origin facing the ground's forward axis, unless reset() says otherwise.
  static Result<MotionMatcher> create(std::shared_ptr<const MotionDatabase> database,
                                      MotionMatcherOptions options = {});

  /// Places the character (and its desired path) on the ground at `position`, facing `yaw`.
  void reset(Vec3 position, float yaw);
  /// The desired ground velocity (model units per second, world axes) and facing (radians about
  /// up, 0 facing MotionDatabase::ground_forward). Non-finite values are ignored.
  void set_input(Vec3 velocity, float yaw);
  /// Advances the desired path, searches when due, advances the animation and moves the character
  /// by the animation's own motion.
  MotionMatcherUpdate update(float dt);
  /// The same, the Animator's events passed to `callback` (as Animator::update's).
  MotionMatcherUpdate update(float dt, EventCallback callback, void* user);

  /// Whether update() searches (the default). Off, the matcher neither searches nor switches: it
  /// advances the Animator and moves the character by the clip of the player it follows, which
  /// another controller (a state machine's action state) plays on animator(). On again, it
  /// searches at its next update.
  void set_searching(bool on);
  bool searching() const { return searching_; }
  /// Follows `player` of animator() (a clip's player): its clip's ground motion moves the
  /// character, its frame is current_frame(), and the next switch inertializes from it. False,
  /// changing nothing, for a player that is not playing a database clip.
  bool follow(PlayerId player);
  /// The player followed now.
  PlayerId player() const { return player_; }
  /// The pose in the character's frame (place it with world()); as Animator::evaluate.
  bool evaluate(AnimatorWorkspace& workspace, std::span<SoaTransform> local);
  bool evaluate(AnimatorWorkspace& workspace, std::span<Transform> local);
  /// evaluate() with foot locking: local-to-model, then each planted foot held where it landed
  /// in the world (FootPlantingJob with the schema's feet, their knees and hips, a lock per foot
  /// that engages when the foot's contact weight reaches 1 and releases at 0, on the clips'
  /// floor). `local` and `model` hold one entry per joint; both are written. False, writing
  /// nothing useful, when they are short, the workspace is too small, or a foot's leg (the foot,
  /// its parent the knee, the knee's parent the thigh) does not hang below the schema's root.
  bool evaluate_planted(AnimatorWorkspace& workspace, std::span<Transform> local,
                        std::span<Mat4> model);
  /// The feet's contact weights now (0 swinging .. 1 planted): left, right.
  float contact(int foot) const { return contact_[foot & 1]; }

  /// The character's frame in the world: on the ground, turned by yaw() about up.
  Transform world() const;
  Vec3 position() const { return position_; }
  float yaw() const { return yaw_; }
  /// The desired path's point now (where the spring is).
  const TrajectorySpring& desired() const { return spring_; }
  /// The database frame playing now.
  std::uint32_t current_frame() const;
  std::uint64_t searches() const { return searches_; }
  std::uint64_t switches() const { return switches_; }
  const MotionDatabase& database() const { return *database_; }
  Animator& animator() { return *animator_; }
  /// The query of the last search (dims() normalized floats).
  std::span<const float> last_query() const { return query_; }

  MotionMatcher(MotionMatcher&&) noexcept = default;
  MotionMatcher& operator=(MotionMatcher&&) noexcept = default;

 private:
  MotionMatcher() = default;
  void build_query();
  bool input_changed() const;
  void switch_to(std::uint32_t frame);
  void ground_at(ClipId clip, float time, Vec3& position, float& yaw) const;

  std::shared_ptr<const MotionDatabase> database_;
  MotionMatcherOptions options_;
  std::unique_ptr<Animator> animator_;
  PlayerId player_{};
  ClipId clip_ = kNoId;
  TrajectorySpring spring_;
  Vec3 input_velocity_{0, 0, 0}, searched_velocity_{0, 0, 0};
  float input_yaw_ = 0, searched_yaw_ = 0;
  Vec3 position_{0, 0, 0};
  float yaw_ = 0;
  float since_search_ = 1e30f;
  float max_drift_ = 0;
  std::vector<float> query_;
  JointIndex feet_[2] = {0, 0};  ///< the schema's feet, found once
  float contact_[2] = {0, 0};
  bool locked_[2] = {false, false};
  Vec3 lock_world_[2] = {};
  std::uint64_t searches_ = 0, switches_ = 0;
  bool searching_ = true;
};

}  // namespace marrow
