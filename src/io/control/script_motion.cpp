// ScriptMotion: a script's motion matcher, its database and its steering.
#include "io/control/script_motion.h"

#include <cmath>

#include "control/root_motion.h"
#include "marrow/io/motion_database_archive.h"
#include "marrow/pose/local_to_model.h"

namespace marrow::script_detail {
namespace {

Result<std::shared_ptr<const MotionDatabase>> database_for(const Asset& asset,
                                                           const ScriptMotionMatching& mm,
                                                           const std::string& where) {
  if (mm.database.empty()) {
    std::vector<Asset> others;
    for (std::size_t i = 0; i < mm.files.size(); ++i) {
      Result<Asset> other = load_asset(mm.files[i]);
      if (!other) {
        return make_error(
            where, "motion_matching.files[" + std::to_string(i) + "]: " + other.error().message);
      }
      others.push_back(std::move(*other));
    }
    std::vector<const Asset*> assets = {&asset};
    for (const Asset& other : others) assets.push_back(&other);
    Result<std::shared_ptr<const MotionDatabase>> built = build_motion_database(assets, mm.recipe);
    if (!built) return make_error(where, "motion_matching: " + built.error().message);
    return built;
  }
  Result<std::shared_ptr<const MotionDatabase>> read = read_motion_database(mm.database);
  if (!read) return make_error(where, "motion_matching.database: " + read.error().message);
  // The file draws the pose: the database must be of its skeleton, joint for joint.
  const Skeleton& mine = asset.skeleton;
  const Skeleton& theirs = (*read)->skeleton();
  bool same = mine.size() == theirs.size();
  for (std::size_t j = 0; same && j < mine.size(); ++j)
    same = mine.name(j) == theirs.name(j) && mine.parent(j) == theirs.parent(j);
  if (!same) {
    return make_error(where, "motion_matching.database: " + mm.database + " was built on " +
                                 std::to_string(theirs.size()) + " joints that are not " +
                                 asset.source + "'s " + std::to_string(mine.size()));
  }
  return read;
}

}  // namespace

Status set_machine_parameter(StateMachine* machine, const ScriptCommand& c,
                             const std::string& where) {
  if (!machine) return make_error(where, "the script has no state machine");
  switch (c.kind) {
    case ScriptCommandKind::kSetParam:
      if (machine->set_float(c.name, c.value)) return {};
      return make_error(where, "the state machine has no float parameter '" + c.name + "'");
    case ScriptCommandKind::kSetBool:
      if (machine->set_bool(c.name, c.flag)) return {};
      return make_error(where, "the state machine has no bool parameter '" + c.name + "'");
    default:
      if (machine->set_trigger(c.name)) return {};
      return make_error(where, "the state machine has no trigger '" + c.name + "'");
  }
}

Result<ScriptMotion> ScriptMotion::create(const Asset& asset, const AnimationScript& script) {
  const ScriptMotionMatching& mm = *script.motion_matching;
  Result<std::shared_ptr<const MotionDatabase>> database = database_for(asset, mm, script.where);
  if (!database) return database.error();
  MotionMatcherOptions options;
  options.search_interval = mm.search_interval;
  Result<MotionMatcher> matcher = MotionMatcher::create(*database, options);
  if (!matcher) return make_error(script.where, "motion_matching: " + matcher.error().message);
  ScriptMotion m;
  m.matcher_ = std::make_unique<MotionMatcher>(std::move(*matcher));
  if (script.state_machine) {
    // Locomotion by matching, actions by states: the machine's clips are the database's.
    Result<std::shared_ptr<const StateMachineDefinition>> def =
        StateMachineDefinition::create(*script.state_machine, m.clip_set());
    if (!def) return make_error(script.where, "state_machine." + def.error().message);
    m.machine_.emplace(std::move(*def));
    if (Status s = m.machine_->start(*m.matcher_); !s)
      return make_error(script.where, "state_machine: " + s.error().message);
  }
  m.workspace_.emplace(m.clip_set());
  m.foot_locking_ = mm.foot_locking;
  m.local_.resize((*database)->skeleton().size());
  m.yaw_ = m.matcher_->yaw();
  return m;
}

Status ScriptMotion::apply(const ScriptCommand& c, const std::string& where) {
  const MotionDatabase& db = matcher_->database();
  if (c.kind == ScriptCommandKind::kStick) {
    waypoints_.clear();
    velocity_ = (db.ground_side() * std::sin(c.x) + db.ground_forward() * std::cos(c.x)) * c.value;
    yaw_ = c.y;
    return {};
  }
  if (c.kind != ScriptCommandKind::kWaypoints)
    return set_machine_parameter(machine_ ? &*machine_ : nullptr, c, where);
  waypoints_ = c.points;
  next_waypoint_ = 0;
  speed_ = c.value, radius_ = c.duration;
  return {};
}

// Toward the next waypoint from where the character stands, at the command's speed, facing
// where it goes; within the radius, on to the next; after the last, standing still.
void ScriptMotion::steer() {
  if (waypoints_.empty()) return;
  const MotionDatabase& db = matcher_->database();
  const Vec3 up = db.schema().up;
  while (next_waypoint_ < waypoints_.size()) {
    Vec3 to = waypoints_[next_waypoint_] - matcher_->position();
    to = to - up * dot(to, up);
    if (length(to) > radius_) {
      velocity_ = to * (speed_ / length(to));
      yaw_ = std::atan2(dot(to, db.ground_side()), dot(to, db.ground_forward()));
      return;
    }
    ++next_waypoint_;
  }
  velocity_ = {0, 0, 0};
}

namespace {

struct EventSink {
  std::span<AnimationEvent> events;
  std::size_t written = 0;
};

void collect(const AnimationEvent& e, void* user) {
  EventSink& sink = *static_cast<EventSink*>(user);
  if (sink.written < sink.events.size()) sink.events[sink.written++] = e;
}

}  // namespace

UpdateResult ScriptMotion::advance(float dt, std::span<AnimationEvent> events) {
  if (!(dt > 0)) return {};
  steer();
  matcher_->set_input(velocity_, yaw_);
  if (machine_) return machine_->update(*matcher_, dt, events);
  EventSink sink{events};
  UpdateResult r = matcher_->update(dt, &collect, &sink).animation;
  r.events_written = sink.written;
  return r;
}

Status ScriptMotion::finish(ScriptFrame& frame) {
  frame.model.resize(local_.size());
  const bool posed = foot_locking_
                         ? matcher_->evaluate_planted(*workspace_, local_, frame.model)
                         : matcher_->evaluate(*workspace_, local_) &&
                               local_to_model(matcher_->database().skeleton(), local_, frame.model);
  if (!posed) return make_error("motion matching", "the matcher could not evaluate its pose");
  const Transform world = matcher_->world();
  frame.update.root_motion =
      control_detail::rigid_compose(control_detail::rigid_inverse(last_world_), world);
  last_world_ = world;
  Animator& animator = matcher_->animator();
  frame.players.clear();
  for (std::size_t i = 0; i < animator.player_count(); ++i) {
    const PlayerId p = animator.player(i);
    const PlayerInfo info = animator.info(p);
    const std::string& clip = clip_set().clip(info.clip).name();
    frame.players.push_back({p, clip, clip, animator.options().layers[info.layer].name, info});
  }
  ScriptFrame::Matching m;
  m.world = world;
  m.desired = matcher_->desired().position();
  m.yaw = matcher_->yaw();
  m.desired_yaw = matcher_->desired().yaw();
  m.database_frame = matcher_->current_frame();
  m.searched = matcher_->searches() > searches_;
  m.switched = matcher_->switches() > switches_;
  m.contacts[0] = matcher_->contact(0), m.contacts[1] = matcher_->contact(1);
  frame.matching = m;
  searches_ = matcher_->searches(), switches_ = matcher_->switches();
  if (machine_) frame.state = machine_->current_state_name();
  return {};
}

std::string ScriptMotion::clip_of(PlayerId player) {
  const PlayerInfo info = matcher_->animator().info(player);
  return info.clip != kNoId ? clip_set().clip(info.clip).name() : "?";
}

}  // namespace marrow::script_detail
