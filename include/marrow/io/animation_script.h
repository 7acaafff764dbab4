/// @file
/// Animation scripts and state machines as JSON (docs/control.md has both formats in full):
///
/// @code
///   {"fps": 30, "duration": 4,
///    "layers": [{"name": "base"}, {"name": "arm", "mode": "override", "mask": "arm"}],
///    "masks": {"arm": {"subtree": "mixamorig:RightShoulder"}},
///    "sync_groups": ["markers"],
///    "events": {"Walk": [{"time": 0.5, "name": "step"}]},
///    "markers": {"Walk": [{"time": 0.1, "name": "foot_left_down"}]},
///    "blend_spaces": [{"name": "move", "samples": [{"clip": "Walk", "x": 1}, {"clip": "Run", "x":
///    2}]}], "root_motion": {"joint": "mixamorig:Hips"}, "state_machine": "locomotion.json",
///    "timeline": [{"t": 0, "play": "Walk"},
///                 {"t": 1, "cross_fade": {"from": "Walk", "to": "Run", "duration": 0.5}}]}
/// @endcode
///
/// A script says how to set up a clip set and an Animator over the clips of a file, then what to
/// do at which time; `marrow play` and `marrow render --script` run it frame by frame. Reading
/// checks the JSON's shape (members, types, ranges) and names the file and the JSON place of any
/// error (`walk.json: timeline[3].cross_fade.duration: must be a number >= 0`); whether the clips,
/// joints and players it names exist is checked when the script runs against a file.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/control/animator.h"
#include "marrow/control/clip_set.h"
#include "marrow/control/state_machine.h"
#include "marrow/ik/foot_planting.h"
#include "marrow/io/motion_database_assets.h"
#include "marrow/math/vec3.h"

namespace marrow {

struct ScriptMask {
  std::string name;
  std::string subtree;              ///< a joint: it and everything below
  std::vector<std::string> joints;  ///< or these joints
  bool inverse = false;
};

struct ScriptLayer {
  std::string name;
  LayerMode mode = LayerMode::kNormal;
  float weight = 1;
  std::string mask;  ///< a ScriptMask's name; empty: every joint
};

struct ScriptCue {
  std::string clip;
  float time = 0;
  std::string name;
};

struct ScriptBlendSpace {
  std::string name;
  int dimensions = 1;
  std::vector<BlendSampleDesc> samples;
};

/// Sync markers found from the feet (ClipSetBuilder::add_detected_foot_markers): each foot's ankle
/// and optional toe, and the clips to mark (empty: every clip in which both feet come down).
struct ScriptFootMarkers {
  std::string left_foot, left_toe, right_foot, right_toe;
  std::vector<std::string> clips;
};

/// An IK constraint a timeline's "ik" command sets (docs/control.md, "IK in scripts"). Joints are
/// named; the target is a model-space point, or a joint's position plus an offset (the joint as
/// the pose stands when this constraint is solved: after foot planting and the constraints set
/// before it).
enum class ScriptIkSolver : std::uint8_t { kTwoBone, kAim, kChain };

struct ScriptIk {
  ScriptIkSolver solver = ScriptIkSolver::kTwoBone;
  std::string joint;         ///< two_bone: the end (ankle, wrist); aim: the aimed joint; chain: tip
  std::string mid, start;    ///< two_bone: default the end's parent and grandparent
  std::string root;          ///< chain: its first joint (stays in place)
  std::string target_joint;  ///< follow this joint's animated position; empty: `target`
  Vec3 target{0, 0, 0};      ///< model space (with target_joint: an offset from it)
  Vec3 pole{0, 0, 0};        ///< two_bone: where the middle joint bends; aim: where `up` points
  Vec3 forward{0, 0, 1};     ///< aim: the aiming axis in the joint's frame
  Vec3 up{0, 0, 0};          ///< aim: a local axis kept towards `pole` (zero: no twist control)
  float max_angle = 180;     ///< aim: degrees
  float soft_limit = 1;      ///< two_bone
  float weight = 1;          ///< reached over the command's `fade` seconds
};

/// Feet kept on the ground through a script (FootPlantingJob): each leg's contact comes from the
/// feet's contacts detected on the clips that play (ik/foot_contacts.h), weighted as they play.
struct ScriptFootPlanting {
  struct Leg {
    std::string foot, toe;  ///< the ankle and optionally its toe
    std::string knee, hip;  ///< default the foot's parent and grandparent
    Vec3 pole{0, 0, 0};
  };
  std::string pelvis;
  std::vector<Leg> legs;
  Vec3 up{0, 1, 0};
  bool has_plane = false;
  GroundPlane plane;           ///< with has_plane
  float ground_height = 0;     ///< without: a flat ground at this height
  float animation_ground = 0;  ///< the height of the ground the clips were made on
  float blend = 0.1f;          ///< seconds a contact ramps in and out over
  bool align_feet = true;
  float soft_limit = 1;
  float max_pelvis_offset = std::numeric_limits<float>::max();
};

/// "motion_matching": the character moved by a MotionMatcher (control/motion_matcher.h) over a
/// database of the file's clips (io/motion_database_assets.h) or a saved one, steered by the
/// timeline's "stick" and "waypoints" commands (docs/motion_matching.md, "In scripts").
struct ScriptMotionMatching {
  std::string database;  ///< a saved database's path (beside the script); empty: build one
  /// More files whose clips join the file's in the database (paths beside the script), bound to
  /// the file's skeleton by joint name.
  std::vector<std::string> files{};
  MotionDatabaseRecipe recipe{};
  float search_interval = 0.1f;  ///< seconds between searches
  bool foot_locking = false;     ///< hold planted feet where they land
};

enum class ScriptCommandKind : std::uint8_t {
  kPlay,               ///< motion (a clip), id, layer, play
  kPlayBlendSpace,     ///< motion (a blend space), id, layer, play, x, y
  kStop,               ///< id
  kPause,              ///< id
  kResume,             ///< id
  kSeek,               ///< id, value (seconds)
  kSetSpeed,           ///< id, value
  kSetWeight,          ///< id, value
  kSetTicksPerSecond,  ///< id, value
  kSetLayerWeight,     ///< layer, value
  kFadeIn,             ///< id, duration, curve
  kFadeOut,            ///< id, duration, curve
  kCrossFade,     ///< id (from), to (a player id, else a clip or blend space to play), duration,
                  ///< curve, layer and play for a new player
  kInertialize,   ///< as kCrossFade
  kWarp,          ///< id, value (time scale), duration
  kSetBlend,      ///< id, x, y
  kSetParam,      ///< name, value (a state machine's float parameter)
  kSetBool,       ///< name, flag
  kTrigger,       ///< name
  kSetMorph,      ///< name (a morph target's name or "#SLOT"), value (the weight)
  kFadeMorph,     ///< name, value, duration
  kReleaseMorph,  ///< name, duration (0: at once)
  kIk,            ///< id, ik, duration (the fade to ik.weight)
  kReleaseIk,     ///< id, duration (0: at once)
  kStick,         ///< value (speed, model units/s), x (direction), y (facing), radians
  kWaypoints,     ///< points (world, on the ground), value (speed), duration (the radius)
};

struct ScriptCommand {
  ScriptCommandKind kind = ScriptCommandKind::kPlay;
  float time = 0;
  std::string where;  ///< "timeline[3]", for errors when it runs
  std::string id, to, name, motion, layer;
  float value = 0, duration = 0, x = 0, y = 0;
  bool flag = false;
  FadeCurve curve = FadeCurve::kSmooth;
  PlayOptions play;  ///< layer is resolved from `layer` by name when the script runs
  ScriptIk ik;
  std::vector<Vec3> points;  ///< kWaypoints
};

struct AnimationScript {
  std::string where;  ///< the file, for errors when it runs
  double fps = 30;
  float duration = -1;  ///< seconds; < 0: one second after the last command
  bool compile = true;  ///< play compiled clips (false: the exact ones)
  std::uint32_t max_players = 16;
  bool inertialization = true;
  std::vector<ScriptLayer> layers;  ///< empty: one normal layer "base"
  std::vector<SyncMode> sync_groups;
  std::vector<ScriptMask> masks;
  std::vector<ScriptCue> events, markers;
  std::optional<ScriptFootMarkers> foot_markers;
  std::vector<ScriptBlendSpace> blend_spaces;
  std::optional<RootMotionOptions> root_motion;
  std::optional<StateMachineDesc> state_machine;
  std::optional<ScriptFootPlanting> foot_planting;
  std::optional<ScriptMotionMatching> motion_matching;
  std::vector<ScriptCommand> timeline;  ///< in time order (stable)
};

/// `where` names the text in errors (a file name). A "state_machine" given as a string is a path
/// read relative to `base_dir` (empty: refused, since there is no file to be relative to).
Result<AnimationScript> parse_animation_script(std::string_view json, std::string_view where,
                                               const std::string& base_dir = {});
Result<AnimationScript> read_animation_script(const std::string& path);

/// One timeline entry (`{"play": {"clip": "Walk"}}`), "t" optional: a command to run at once
/// (ScriptRunner::run). Errors name `where` and the JSON place, as a script's do.
Result<ScriptCommand> parse_script_command(std::string_view json, std::string_view where);

/// A state machine alone (the "state_machine" member's format).
Result<StateMachineDesc> parse_state_machine(std::string_view json, std::string_view where);
Result<StateMachineDesc> read_state_machine(const std::string& path);

}  // namespace marrow
