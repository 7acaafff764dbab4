// A motion-matching animation script ("motion_matching"): the database (built from the file's
// clips or read from a saved archive), the matcher, and the timeline's steering ("stick",
// "waypoints") turned into the matcher's input before every update (ScriptRunner).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/control/motion_matcher.h"
#include "marrow/control/state_machine.h"
#include "marrow/io/animation_script.h"
#include "marrow/io/asset.h"
#include "marrow/io/script_runner.h"

namespace marrow::script_detail {

// "set_param", "set_bool", "trigger" on the script's state machine (none: an error naming
// `where`).
Status set_machine_parameter(StateMachine* machine, const ScriptCommand& c,
                             const std::string& where);

class ScriptMotion {
 public:
  // Errors name the script and the member: the database's, a saved database of another skeleton
  // than the file's, the matcher's.
  static Result<ScriptMotion> create(const Asset& asset, const AnimationScript& script);

  const ClipSet& clip_set() const { return matcher_->database().clip_set(); }
  std::shared_ptr<const ClipSet> shared_clip_set() const {
    return matcher_->database().shared_clip_set();
  }
  // "stick" holds an input until the next steering command; "waypoints" steers toward each
  // point in turn, then stops; the state machine's parameters are set as in any script.
  Status apply(const ScriptCommand& c, const std::string& where);
  // One update of dt seconds, the input steered first; the clips' events go to `events` (as many
  // as fit), as Animator::update gives them.
  UpdateResult advance(float dt, std::span<AnimationEvent> events);
  // The frame's pose, players and Matching record; root motion is the move since the last call.
  Status finish(ScriptFrame& frame);
  // The clip a player of the matcher plays.
  std::string clip_of(PlayerId player);

 private:
  ScriptMotion() = default;
  void steer();

  // The matcher is the machine's locomotion state (StateMachine::start(MotionMatcher&)); kept
  // on the heap, since the machine holds its address.
  std::unique_ptr<MotionMatcher> matcher_;
  std::optional<StateMachine> machine_;
  std::optional<AnimatorWorkspace> workspace_;
  bool foot_locking_ = false;
  std::vector<Transform> local_;
  Vec3 velocity_{0, 0, 0};
  float yaw_ = 0;
  std::vector<Vec3> waypoints_;
  std::size_t next_waypoint_ = 0;
  float speed_ = 0, radius_ = 0;
  std::uint64_t searches_ = 0, switches_ = 0;  // the matcher's counts at the frame's start
  Transform last_world_{};
};

}  // namespace marrow::script_detail
