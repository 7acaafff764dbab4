// The pose edits of an animation script: the timeline's IK constraints ("ik", "release_ik") and
// the script's foot planting, applied to each frame's evaluated pose before its model matrices
// are handed out (ScriptRunner). Setup and commands allocate; apply() reuses its buffers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/control/animator.h"
#include "marrow/ik/foot_contacts.h"
#include "marrow/ik/foot_planting.h"
#include "marrow/io/animation_script.h"
#include "marrow/io/asset.h"
#include "marrow/io/script_runner.h"

namespace marrow::script_detail {

// A joint by name: the node of that name, or, when several nodes share it, the one skin joint
// among them; "#N" is joint N. Errors name the joint.
Result<JointIndex> find_script_joint(const Asset& asset, const std::string& name);

class ScriptPoseEdits {
 public:
  // Resolves the foot planting's joints and detects the feet's contacts on every clip of `set`
  // (errors name `where` and the member).
  static Result<ScriptPoseEdits> create(const Asset& asset, const ClipSet& set,
                                        const AnimationScript& script);

  // "ik": sets or replaces the constraint `c.id`, fading its weight to c.ik.weight over
  // c.duration seconds. "release_ik": fades it out over c.duration, then removes it.
  Status set(const ScriptCommand& c, const std::string& where);
  Status release(const ScriptCommand& c, const std::string& where);
  // Moves the fades on by dt seconds.
  void advance(float dt);
  bool empty() const { return constraints_.empty() && !planting_; }

  // Plants the feet (contacts from what `animator` plays), then solves the constraints in the
  // order they were first set. `local` and `model` are the frame's pose (model current on entry
  // and on return). Reports each constraint's weight and whether it reached, the legs' contacts
  // and the pelvis' offset into `frame`.
  void apply(const Animator& animator, std::span<Transform> local, std::span<Mat4> model,
             ScriptFrame& frame);

 private:
  struct Constraint {
    std::string id;
    ScriptIk ik;
    JointIndex joint = 0, mid = 0, start = 0, root = 0, target_joint = kNoParent;
    float weight = 0, goal = 0, rate = 0;  // rate: weight per second towards goal (0: at once)
    bool releasing = false;
  };
  struct Planting {
    ScriptFootPlanting desc;
    JointIndex pelvis = 0;
    std::vector<FootPlantLeg> legs;
    std::vector<FootContacts> contacts;  // per clip of the set, one track per leg
  };

  Result<Constraint> resolve(const ScriptCommand& c, const std::string& where) const;
  void plant(const Animator& animator, std::span<Transform> local, std::span<Mat4> model,
             ScriptFrame& frame);
  // Each leg's contact weight over the players, weighted by their effective weights.
  void contact_weights(const Animator& animator, std::span<float> weights) const;
  bool solve(const Constraint& c, std::span<Transform> local, std::span<Mat4> model) const;

  const Asset* asset_ = nullptr;
  const ClipSet* set_ = nullptr;
  std::vector<Constraint> constraints_;
  std::optional<Planting> planting_;
};

}  // namespace marrow::script_detail
