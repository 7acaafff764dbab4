/// @file
/// Runs an animation script (io/animation_script.h) against a file's clips: builds the clip set
/// and the Animator (and state machine) the script describes, then steps it frame by frame at the
/// script's rate. Each timeline command acts at its own time: the update of the frame that reaches
/// it is cut there (the events of both parts are the frame's, their times counted from the
/// frame's start), so what plays does not depend on the frame rate. `marrow play` prints the
/// frames, `marrow render --script` draws them, Python's marrow.ScriptRunner hands them out.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/control/animator.h"
#include "marrow/control/state_machine.h"
#include "marrow/io/animation_script.h"
#include "marrow/io/asset.h"
#include "marrow/skin/morph.h"

namespace marrow {

struct ScriptFrame {
  int index = 0;
  float time = 0;  ///< seconds
  std::vector<AnimationEvent> events;
  UpdateResult update;
  struct Player {
    PlayerId player;
    std::string id;
    std::string motion;  ///< clip or blend space name
    std::string layer;
    PlayerInfo info;
  };
  std::vector<Player> players;
  std::string state;        ///< the state machine's current state, if there is one
  std::vector<Mat4> model;  ///< model matrices, skeleton order
  /// The morph-target weights, one per slot of the file's MorphLayout (empty when it has none).
  std::vector<float> morph_weights;
  /// The script's IK constraints in the order they were first set: weight now, and whether the
  /// solver reached its target.
  struct Ik {
    std::string id;
    float weight = 0;
    bool reached = false;
  };
  std::vector<Ik> ik;
  /// Foot planting (a script's "foot_planting"): each leg's contact weight, and how far the
  /// pelvis moved along up.
  std::vector<float> foot_contacts;
  float pelvis_offset = 0;
  /// A motion-matching script ("motion_matching"): where the character stands, where the stick
  /// asks it to be, and what the matcher did in this frame's updates. `model` is in the
  /// character's frame and update.root_motion moves it from the last frame's to this one's.
  struct Matching {
    Transform world{};               ///< the character's frame in the world
    Vec3 desired{0, 0, 0};           ///< the desired path's point now, on the ground
    float yaw = 0, desired_yaw = 0;  ///< radians about up, 0 along the ground's forward axis
    std::uint32_t database_frame = 0;
    bool searched = false, switched = false;
    float contacts[2] = {0, 0};  ///< the feet's contact weights, left and right
  };
  std::optional<Matching> matching;
};

namespace script_detail {
class ScriptPoseEdits;
class ScriptMotion;
}  // namespace script_detail

class ScriptRunner {
 public:
  /// `set`, when given, is what build_clip_set(asset, script) gave for this asset and a script
  /// of the same setup (characters of one setup share it); null: built here.
  static Result<ScriptRunner> create(const Asset& asset, const AnimationScript& script,
                                     std::shared_ptr<const ClipSet> set = nullptr);
  /// The clip set a script's setup describes (clips, masks, markers, blend spaces, root motion),
  /// errors naming the script's place. Not used by a motion-matching script.
  static Result<std::shared_ptr<const ClipSet>> build_clip_set(const Asset& asset,
                                                               const AnimationScript& script);
  ScriptRunner(ScriptRunner&&) noexcept;
  ScriptRunner& operator=(ScriptRunner&&) noexcept;
  ~ScriptRunner();

  int frame_count() const { return frames_; }
  double fps() const { return script_.fps; }
  /// The clips that play: the script's set, or a motion-matching script's database's.
  const ClipSet& clip_set() const { return *set_; }
  /// Steps to frame `frame.index + 1` (the first call gives frame 0). Errors name the script and
  /// the timeline entry (a player id that is not playing, a clip the file lacks, ...).
  Status next(ScriptFrame& frame);

  /// Runs one command now, as a timeline entry reached at this moment would (parse_script_command
  /// reads one). Errors as next()'s.
  Status run(const ScriptCommand& command);
  /// Advances by `dt` seconds (finite, >= 0) and evaluates, for a caller that keeps the clock
  /// itself and sends commands with run() (the WebAssembly interface): the timeline is not read,
  /// frame.time adds dt, frame.players is left empty (no names are built per frame).
  Status step(float dt, ScriptFrame& frame);
  /// The Animator the commands drive, for calls the commands do not cover; null for a
  /// motion-matching script (its matcher owns one).
  Animator* animator();

  /// The script's name for a player (its id, its state's name, or what it plays), also after it
  /// stopped.
  std::string name_of(PlayerId player) const;

 private:
  ScriptRunner();
  Status apply(const ScriptCommand& command);
  Status apply_morph(const ScriptCommand& command);
  /// The evaluation that ends next() and step(): pose, morph weights, model matrices, IK edits.
  Status finish(ScriptFrame& frame, bool list_players);
  /// One update of dt seconds, `offset` seconds into the frame's: its events and root motion are
  /// added to the frame's.
  void advance(float dt, float offset, ScriptFrame& frame);
  Result<std::uint32_t> layer(const std::string& name, const std::string& where) const;
  PlayerId find(const std::string& id) const;
  Result<PlayerId> start(const ScriptCommand& c, const std::string& motion, const std::string& id,
                         std::uint32_t layer);

  const Asset* asset_ = nullptr;
  AnimationScript script_;
  std::shared_ptr<const ClipSet> set_;
  MorphLayout morph_layout_;
  std::optional<Animator> animator_;
  std::optional<StateMachine> machine_;
  std::optional<AnimatorWorkspace> workspace_;
  std::vector<SoaTransform> local_;
  std::unique_ptr<script_detail::ScriptPoseEdits> edits_;  ///< IK and foot planting
  std::unique_ptr<script_detail::ScriptMotion> motion_;    ///< a motion-matching script's
  std::vector<Transform> edited_local_;
  std::vector<std::pair<std::string, PlayerId>> ids_;  ///< the script's ids and the states' names
  int frames_ = 0;
  std::vector<AnimationEvent> scratch_;
  int next_frame_ = 0;
  std::size_t next_command_ = 0;
};

}  // namespace marrow
