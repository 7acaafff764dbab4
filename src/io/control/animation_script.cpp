#include "marrow/io/animation_script.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "common/json_text.h"
#include "common/reader_support.h"

namespace marrow {
namespace {

using Json = nlohmann::json;

// Thrown deep in the reading and turned into an Error at the boundary; the message is complete.
struct ScriptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The document (json_text.h: nesting, repeated members and places checked there).
Json parse_json(std::string_view text, const std::string& where) {
  Result<Json> doc = io::parse_json_text(text, where);
  if (!doc) throw ScriptError(doc.error().message);
  return std::move(doc).value();
}

// A JSON value and where it is: every read checks the type and names the place when it fails.
class ScriptValue {
 public:
  ScriptValue(const Json& j, std::string path, const std::string& where)
      : j_(j), path_(std::move(path)), where_(where) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw ScriptError(where_ + ": " + (path_.empty() ? std::string("the top level") : path_) +
                      ": " + what);
  }
  const Json& json() const { return j_; }
  const std::string& path() const { return path_; }
  std::string sub(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  std::string sub(std::size_t i) const { return path_ + "[" + std::to_string(i) + "]"; }

  void object(std::initializer_list<const char*> allowed) const {
    object(std::span<const char* const>(allowed.begin(), allowed.size()));
  }
  void object(std::span<const char* const> allowed) const {
    if (!j_.is_object()) fail("must be an object");
    for (const auto& [key, value] : j_.items()) {
      (void)value;
      bool known = false;
      for (const char* a : allowed) known = known || key == a;
      if (!known) {
        std::string list;
        for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
        ScriptValue(j_, sub(key), where_).fail("unknown member (known: " + list + ")");
      }
    }
  }
  bool has(const char* key) const { return j_.is_object() && j_.contains(key); }
  ScriptValue at(const char* key) const {
    if (!has(key)) fail(std::string("needs \"") + key + "\"");
    return ScriptValue(j_.at(key), sub(key), where_);
  }
  ScriptValue at(std::size_t i) const { return ScriptValue(j_.at(i), sub(i), where_); }

  float number(float min = -std::numeric_limits<float>::max(),
               float max = std::numeric_limits<float>::max()) const {
    if (!j_.is_number()) fail("must be a number");
    const double v = j_.get<double>();
    if (!std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max()) {
      fail("must be a finite number");
    }
    if (v < min || v > max) {
      if (max == std::numeric_limits<float>::max()) fail("must be a number >= " + text(min));
      fail("must be a number from " + text(min) + " to " + text(max));
    }
    return static_cast<float>(v);
  }
  static std::string text(float v) {
    std::ostringstream out;
    out << v;
    return out.str();
  }
  float number(const char* key, float fallback, float min = -std::numeric_limits<float>::max(),
               float max = std::numeric_limits<float>::max()) const {
    return has(key) ? at(key).number(min, max) : fallback;
  }
  std::uint32_t count(const char* key, std::uint32_t fallback, std::uint32_t max) const {
    if (!has(key)) return fallback;
    const ScriptValue v = at(key);
    if (!v.j_.is_number_integer() || v.j_.get<long long>() < 0 || v.j_.get<long long>() > max) {
      v.fail("must be a whole number from 0 to " + std::to_string(max));
    }
    return static_cast<std::uint32_t>(v.j_.get<long long>());
  }
  std::string string() const {
    if (!j_.is_string()) fail("must be a string");
    std::string s = j_.get<std::string>();
    if (s.empty()) fail("is empty");
    return s;
  }
  std::string string(const char* key, const std::string& fallback) const {
    return has(key) ? at(key).string() : fallback;
  }
  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const ScriptValue v = at(key);
    if (!v.j_.is_boolean()) v.fail("must be true or false");
    return v.j_.get<bool>();
  }
  std::size_t array() const {
    if (!j_.is_array()) fail("must be an array");
    return j_.size();
  }
  Vec3 vec3() const {
    if (!j_.is_array() || j_.size() != 3) fail("must be [x, y, z]");
    return {at(std::size_t{0}).number(), at(1).number(), at(2).number()};
  }
  Vec3 vec3(const char* key, Vec3 fallback) const { return has(key) ? at(key).vec3() : fallback; }

 private:
  const Json& j_;
  std::string path_;
  const std::string& where_;
};

template <typename E>
E choose(const ScriptValue& v, std::initializer_list<std::pair<const char*, E>> options) {
  const std::string s = v.string();
  std::string list;
  for (const auto& [name, value] : options) {
    if (s == name) return value;
    list += std::string(list.empty() ? "" : ", ") + name;
  }
  v.fail("'" + s + "' is not one of " + list);
}

WrapMode wrap_mode(const ScriptValue& v) {
  return choose<WrapMode>(
      v,
      {{"loop", WrapMode::kLoop}, {"clamp", WrapMode::kClamp}, {"pingpong", WrapMode::kPingPong}});
}

FadeCurve curve(const ScriptValue& v) {
  return choose<FadeCurve>(v, {{"smooth", FadeCurve::kSmooth}, {"linear", FadeCurve::kLinear}});
}

// The members that start a player, shared by play, play_blend_space, cross_fade and inertialize.
void read_play_options(const ScriptValue& o, ScriptCommand& c) {
  c.layer = o.string("layer", "");
  c.play.weight = o.number("weight", 1, 0);
  c.play.time_scale = o.number("speed", 1);
  c.play.ticks_per_second = o.number("ticks_per_second", 0, 0);
  if (o.has("wrap")) c.play.wrap = wrap_mode(o.at("wrap"));
  c.play.repetitions = o.count("repetitions", 0, 1000000000u);
  c.play.start_offset = o.number("offset", 0, 0);
  c.play.fade_in = o.number("fade_in", 0, 0);
  if (o.has("curve")) c.play.fade_curve = curve(o.at("curve"));
  c.play.sync_group =
      o.has("sync_group") ? static_cast<std::int32_t>(o.count("sync_group", 0, 15)) : -1;
  c.x = c.play.blend_x = o.number("x", 0);
  c.y = c.play.blend_y = o.number("y", 0);
}

#define PLAY_MEMBERS                                                                          \
  "layer", "weight", "speed", "ticks_per_second", "wrap", "repetitions", "offset", "fade_in", \
      "curve", "sync_group", "x", "y"

// The commands' names, in ScriptCommandKind's order ("t" first: every entry's time).
constexpr const char* kCommandMembers[] = {"t",
                                           "play",
                                           "play_blend_space",
                                           "stop",
                                           "pause",
                                           "resume",
                                           "seek",
                                           "set_speed",
                                           "set_weight",
                                           "set_ticks_per_second",
                                           "set_layer_weight",
                                           "fade_in",
                                           "fade_out",
                                           "cross_fade",
                                           "inertialize",
                                           "warp",
                                           "set_blend",
                                           "set_param",
                                           "set_bool",
                                           "trigger",
                                           "set_morph",
                                           "fade_morph",
                                           "release_morph",
                                           "ik",
                                           "release_ik",
                                           "stick",
                                           "waypoints"};
static_assert(std::size(kCommandMembers) ==
                  static_cast<std::size_t>(ScriptCommandKind::kWaypoints) + 2,
              "one name per ScriptCommandKind, in its order");

// An "ik" command's constraint: the solver's members, each checked for the solver named.
ScriptIk read_ik(const ScriptValue& v) {
  v.object({"id", "solver", "joint", "mid", "start", "root", "target", "pole", "forward", "up",
            "max_angle", "soft_limit", "weight", "fade"});
  ScriptIk ik;
  ik.solver = choose<ScriptIkSolver>(v.at("solver"), {{"two_bone", ScriptIkSolver::kTwoBone},
                                                      {"aim", ScriptIkSolver::kAim},
                                                      {"chain", ScriptIkSolver::kChain}});
  ik.joint = v.at("joint").string();
  const auto only_for = [&](ScriptIkSolver solver, std::initializer_list<const char*> members) {
    if (ik.solver == solver) return;
    for (const char* m : members) {
      if (v.has(m)) v.at(m).fail("belongs to another solver than " + v.at("solver").string());
    }
  };
  only_for(ScriptIkSolver::kTwoBone, {"mid", "start", "soft_limit"});
  only_for(ScriptIkSolver::kAim, {"forward", "up", "max_angle"});
  only_for(ScriptIkSolver::kChain, {"root"});
  if (ik.solver == ScriptIkSolver::kChain && v.has("pole")) {
    v.at("pole").fail("belongs to the two_bone and aim solvers");
  }
  ik.mid = v.string("mid", "");
  ik.start = v.string("start", "");
  if (ik.solver == ScriptIkSolver::kChain) ik.root = v.at("root").string();
  const ScriptValue target = v.at("target");
  if (target.json().is_string()) {
    ik.target_joint = target.string();
  } else if (target.json().is_object()) {
    target.object({"joint", "offset"});
    ik.target_joint = target.at("joint").string();
    ik.target = target.vec3("offset", {0, 0, 0});
  } else {
    ik.target = target.vec3();
  }
  ik.pole = v.vec3("pole", {0, 0, 0});
  ik.forward = v.vec3("forward", {0, 0, 1});
  if (length(ik.forward) == 0) v.at("forward").fail("must not be zero");
  ik.up = v.vec3("up", {0, 0, 0});
  ik.max_angle = v.number("max_angle", 180, 0, 180);
  ik.soft_limit = v.number("soft_limit", 1, 0.01f, 1);
  ik.weight = v.number("weight", 1, 0, 1);
  return ik;
}

ScriptFootPlanting read_foot_planting(const ScriptValue& f) {
  f.object({"pelvis", "legs", "up", "ground", "animation_ground", "blend", "align_feet",
            "soft_limit", "max_pelvis_offset"});
  ScriptFootPlanting p;
  p.pelvis = f.at("pelvis").string();
  const ScriptValue legs = f.at("legs");
  const std::size_t n = legs.array();
  if (n == 0 || n > kMaxFootPlantLegs) legs.fail("must list 1 to 8 legs");
  for (std::size_t i = 0; i < n; ++i) {
    const ScriptValue l = legs.at(i);
    l.object({"foot", "toe", "knee", "hip", "pole"});
    p.legs.push_back({l.at("foot").string(), l.string("toe", ""), l.string("knee", ""),
                      l.string("hip", ""), l.vec3("pole", {0, 0, 0})});
  }
  p.up = f.vec3("up", {0, 1, 0});
  if (length(p.up) == 0) f.at("up").fail("must not be zero");
  if (f.has("ground")) {
    const ScriptValue g = f.at("ground");
    if (g.json().is_number()) {
      p.ground_height = g.number();
    } else {
      g.object({"point", "normal"});
      p.has_plane = true;
      p.plane.point = g.vec3("point", {0, 0, 0});
      p.plane.normal = g.at("normal").vec3();
      const float up_part = dot(p.plane.normal, p.up) / (length(p.plane.normal) * length(p.up));
      if (!(up_part > 1e-3f)) g.at("normal").fail("must point up (along \"up\")");
    }
  }
  p.animation_ground = f.number("animation_ground", 0);
  p.blend = f.number("blend", 0.1f, 0);
  p.align_feet = f.boolean("align_feet", true);
  p.soft_limit = f.number("soft_limit", 1, 0.01f, 1);
  p.max_pelvis_offset = f.number("max_pelvis_offset", std::numeric_limits<float>::max(), 0);
  return p;
}

// A motion-matching script's "stick" ({speed, direction, facing}, degrees about up from the
// database's ground forward axis, the facing defaulting to the direction) and "waypoints"
// ({points, speed, radius}: the stick turned toward each point until the character is within
// the radius, which defaults to half a second at the speed).
void read_steering(const ScriptValue& v, ScriptCommand& c) {
  constexpr float kRadians = std::numbers::pi_v<float> / 180;
  if (c.kind == ScriptCommandKind::kStick) {
    v.object({"speed", "direction", "facing"});
    c.value = v.at("speed").number(0);
    c.x = v.number("direction", 0) * kRadians;
    c.y = v.has("facing") ? v.at("facing").number() * kRadians : c.x;
    return;
  }
  v.object({"points", "speed", "radius"});
  const ScriptValue points = v.at("points");
  const std::size_t n = points.array();
  if (n == 0) points.fail("must list at least one point");
  for (std::size_t i = 0; i < n; ++i) c.points.push_back(points.at(i).vec3());
  c.value = v.at("speed").number(0);
  c.duration = v.number("radius", 0.5f * c.value, 0);
  if (!(c.duration > 0)) v.fail("needs a \"radius\" > 0 (or a speed > 0, whose half second it is)");
}

ScriptCommand read_command(const ScriptValue& entry) {
  const std::span<const char* const> kinds = std::span(kCommandMembers).subspan(1);
  entry.object(kCommandMembers);
  ScriptCommand c;
  c.where = entry.path();
  c.time = entry.at("t").number(0);
  int found = -1;
  for (int k = 0; k < static_cast<int>(kinds.size()); ++k) {
    if (!entry.has(kinds[k])) continue;
    if (found >= 0) {
      entry.fail(std::string("has two commands, \"") + kinds[found] + "\" and \"" + kinds[k] +
                 "\"; give one per entry");
    }
    found = k;
  }
  if (found < 0) entry.fail("has no command (play, cross_fade, set_param, seek, ...)");
  c.kind = static_cast<ScriptCommandKind>(found);
  const ScriptValue v = entry.at(kinds[found]);
  using K = ScriptCommandKind;
  switch (c.kind) {
    case K::kPlay:
    case K::kPlayBlendSpace: {
      const char* what = c.kind == K::kPlay ? "clip" : "blend_space";
      if (v.json().is_string()) {
        c.motion = v.string();
      } else {
        v.object({what, "id", PLAY_MEMBERS});
        c.motion = v.at(what).string();
        read_play_options(v, c);
        c.id = v.string("id", "");
      }
      if (c.id.empty()) c.id = c.motion;
      break;
    }
    case K::kStop:
    case K::kPause:
    case K::kResume:
      c.id = v.string();
      break;
    case K::kTrigger:
      c.name = v.string();
      break;
    case K::kSeek:
      v.object({"id", "time"});
      c.id = v.at("id").string();
      c.value = v.at("time").number();
      break;
    case K::kSetSpeed:
      v.object({"id", "speed"});
      c.id = v.at("id").string();
      c.value = v.at("speed").number();
      break;
    case K::kSetWeight:
      v.object({"id", "weight"});
      c.id = v.at("id").string();
      c.value = v.at("weight").number(0);
      break;
    case K::kSetTicksPerSecond:
      v.object({"id", "ticks_per_second"});
      c.id = v.at("id").string();
      c.value = v.at("ticks_per_second").number(0);
      break;
    case K::kSetLayerWeight:
      v.object({"layer", "weight"});
      c.layer = v.at("layer").string();
      c.value = v.at("weight").number();
      break;
    case K::kFadeIn:
    case K::kFadeOut:
      v.object({"id", "duration", "curve"});
      c.id = v.at("id").string();
      c.duration = v.at("duration").number(0);
      if (v.has("curve")) c.curve = curve(v.at("curve"));
      break;
    case K::kCrossFade:
    case K::kInertialize:
      v.object({"from", "to", "duration", "id", PLAY_MEMBERS});
      c.id = v.at("from").string();
      c.to = v.at("to").string();
      c.duration = v.at("duration").number(0);
      if (c.kind == K::kInertialize && !(c.duration > 0)) {
        v.at("duration").fail("must be a number > 0");
      }
      read_play_options(v, c);
      if (v.has("curve")) c.curve = c.play.fade_curve;
      c.play.fade_in = 0;
      c.name = v.string("id", "");  // the id of a player started for "to"
      break;
    case K::kWarp:
      v.object({"id", "speed", "duration"});
      c.id = v.at("id").string();
      c.value = v.at("speed").number();
      c.duration = v.at("duration").number(0);
      break;
    case K::kSetBlend:
      v.object({"id", "x", "y"});
      c.id = v.at("id").string();
      c.x = v.at("x").number();
      c.y = v.number("y", 0);
      break;
    case K::kSetParam:
      v.object({"name", "value"});
      c.name = v.at("name").string();
      c.value = v.at("value").number();
      break;
    case K::kSetBool:
      v.object({"name", "value"});
      c.name = v.at("name").string();
      c.flag = v.boolean("value", false);
      if (!v.has("value")) v.fail("needs \"value\"");
      break;
    case K::kSetMorph:
      v.object({"target", "weight"});
      c.name = v.at("target").string();
      c.value = v.at("weight").number();
      break;
    case K::kFadeMorph:
      v.object({"target", "weight", "duration"});
      c.name = v.at("target").string();
      c.value = v.at("weight").number();
      c.duration = v.at("duration").number(0);
      break;
    case K::kReleaseMorph:
      if (v.json().is_string()) {
        c.name = v.string();
      } else {
        v.object({"target", "duration"});
        c.name = v.at("target").string();
        c.duration = v.number("duration", 0, 0);
      }
      break;
    case K::kIk:
      c.ik = read_ik(v);
      c.id = v.at("id").string();
      c.duration = v.number("fade", 0, 0);
      break;
    case K::kReleaseIk:
      if (v.json().is_string()) {
        c.id = v.string();
      } else {
        v.object({"id", "duration"});
        c.id = v.at("id").string();
        c.duration = v.number("duration", 0, 0);
      }
      break;
    case K::kStick:
    case K::kWaypoints:
      read_steering(v, c);
      break;
  }
  return c;
}

StateMachineDesc read_machine(const ScriptValue& m) {
  m.object({"parameters", "states", "transitions", "initial", "layer", "sync_group"});
  StateMachineDesc d;
  if (m.has("parameters")) {
    const ScriptValue ps = m.at("parameters");
    for (std::size_t i = 0, n = ps.array(); i < n; ++i) {
      const ScriptValue p = ps.at(i);
      p.object({"name", "type", "initial"});
      ParameterDesc desc;
      desc.name = p.at("name").string();
      desc.type = p.has("type")
                      ? choose<ParameterType>(p.at("type"), {{"float", ParameterType::kFloat},
                                                             {"bool", ParameterType::kBool},
                                                             {"trigger", ParameterType::kTrigger}})
                      : ParameterType::kFloat;
      if (p.has("initial")) {
        const ScriptValue init = p.at("initial");
        desc.initial =
            init.json().is_boolean() ? (init.json().get<bool>() ? 1.0f : 0.0f) : init.number();
      }
      d.parameters.push_back(std::move(desc));
    }
  }
  const ScriptValue states = m.at("states");
  for (std::size_t i = 0, n = states.array(); i < n; ++i) {
    const ScriptValue s = states.at(i);
    s.object({"name", "clip", "blend_space", "motion_matching", "x", "y", "speed", "wrap", "sync"});
    StateDesc desc;
    desc.name = s.at("name").string();
    desc.clip = s.string("clip", "");
    desc.blend_space = s.string("blend_space", "");
    desc.motion_matching = s.boolean("motion_matching", false);
    desc.parameter_x = s.string("x", "");
    desc.parameter_y = s.string("y", "");
    desc.speed = s.number("speed", 1);
    if (s.has("wrap")) desc.wrap = wrap_mode(s.at("wrap"));
    desc.sync = s.boolean("sync", false);
    d.states.push_back(std::move(desc));
  }
  if (m.has("transitions")) {
    const ScriptValue ts = m.at("transitions");
    for (std::size_t i = 0, n = ts.array(); i < n; ++i) {
      const ScriptValue t = ts.at(i);
      t.object({"from", "to", "when", "at_marker", "exit_time", "exit_seconds", "on_finish", "kind",
                "duration", "curve"});
      TransitionDesc desc;
      desc.from = t.at("from").string();
      desc.to = t.at("to").string();
      if (t.has("when")) {
        const ScriptValue when = t.at("when");
        for (std::size_t k = 0, nk = when.array(); k < nk; ++k) {
          const ScriptValue c = when.at(k);
          c.object({"parameter", "op", "value"});
          ConditionDesc cd;
          cd.parameter = c.at("parameter").string();
          cd.op = choose<CompareOp>(c.at("op"), {{">", CompareOp::kGreater},
                                                 {">=", CompareOp::kGreaterEqual},
                                                 {"<", CompareOp::kLess},
                                                 {"<=", CompareOp::kLessEqual},
                                                 {"==", CompareOp::kEqual},
                                                 {"!=", CompareOp::kNotEqual},
                                                 {"true", CompareOp::kTrue},
                                                 {"false", CompareOp::kFalse},
                                                 {"triggered", CompareOp::kTriggered}});
          cd.value = c.number("value", 0);
          desc.conditions.push_back(std::move(cd));
        }
      }
      desc.at_marker = t.string("at_marker", "");
      const int exits = t.has("exit_time") + t.has("exit_seconds") + t.has("on_finish");
      if (exits > 1) t.fail("give one of exit_time, exit_seconds and on_finish");
      if (t.has("exit_time")) {
        desc.exit = ExitKind::kNormalized;
        desc.exit_at = t.number("exit_time", 0, 0);
      } else if (t.has("exit_seconds")) {
        desc.exit = ExitKind::kSeconds;
        desc.exit_at = t.number("exit_seconds", 0, 0);
      } else if (t.boolean("on_finish", false)) {
        desc.exit = ExitKind::kOnFinish;
      }
      if (t.has("kind")) {
        desc.kind = choose<TransitionKind>(
            t.at("kind"),
            {{"fade", TransitionKind::kFade}, {"inertialize", TransitionKind::kInertialize}});
      }
      desc.duration = t.number("duration", desc.duration, 0);
      if (t.has("curve")) desc.curve = curve(t.at("curve"));
      d.transitions.push_back(std::move(desc));
    }
  }
  d.initial = m.string("initial", "");
  d.layer = m.count("layer", 0, 31);
  d.sync_group = m.has("sync_group") ? static_cast<std::int32_t>(m.count("sync_group", 0, 15)) : -1;
  return d;
}

std::vector<ScriptCue> read_cue_lists(const ScriptValue& v) {
  if (!v.json().is_object()) v.fail("must be an object of clip name: [{\"time\", \"name\"}, ...]");
  std::vector<ScriptCue> cues;
  for (const auto& item : v.json().items()) {
    const ScriptValue list = v.at(item.key().c_str());
    for (std::size_t i = 0, n = list.array(); i < n; ++i) {
      const ScriptValue cue = list.at(i);
      cue.object({"time", "name"});
      cues.push_back({item.key(), cue.at("time").number(0), cue.at("name").string()});
    }
  }
  return cues;
}

// "motion_matching": a saved database, or the recipe to build one from the file's clips.
ScriptMotionMatching read_motion_matching(const ScriptValue& m, const std::string& base) {
  m.object({"database", "files", "root", "left_foot", "right_foot", "clips", "actions",
            "exclude_start", "trajectory_weight", "mirror", "search_interval", "foot_locking"});
  ScriptMotionMatching mm;
  // Paths are the script's folder's; a script that is no file takes absolute ones alone.
  const auto beside = [&](const ScriptValue& v) {
    const std::filesystem::path path = v.string();
    if (base.empty() && path.is_relative())
      v.fail("a relative file name needs the script to be a file");
    return (std::filesystem::path(base) / path).string();
  };
  if (m.has("database")) {
    mm.database = beside(m.at("database"));
    for (const char* recipe : {"files", "root", "left_foot", "right_foot", "clips", "actions",
                               "exclude_start", "trajectory_weight", "mirror"}) {
      if (m.has(recipe)) m.at(recipe).fail("builds a database; a saved \"database\" has its own");
    }
  } else {
    if (m.has("files")) {
      const ScriptValue files = m.at("files");
      for (std::size_t i = 0, n = files.array(); i < n; ++i)
        mm.files.push_back(beside(files.at(i)));
    }
    mm.recipe.root = m.at("root").string();
    mm.recipe.left_foot = m.at("left_foot").string();
    mm.recipe.right_foot = m.at("right_foot").string();
    if (m.has("clips")) {
      const ScriptValue clips = m.at("clips");
      for (std::size_t i = 0, n = clips.array(); i < n; ++i)
        mm.recipe.clips.push_back(clips.at(i).string());
      if (mm.recipe.clips.empty()) clips.fail("must name at least one clip (leave it out for all)");
    }
    if (m.has("actions")) {
      const ScriptValue actions = m.at("actions");
      for (std::size_t i = 0, n = actions.array(); i < n; ++i)
        mm.recipe.actions.push_back(actions.at(i).string());
    }
    mm.recipe.exclude_start = m.number("exclude_start", 0, 0);
    mm.recipe.trajectory_weight = m.number("trajectory_weight", 4, 0);
    mm.recipe.mirror = m.boolean("mirror", false);
  }
  mm.search_interval = m.number("search_interval", 0.1f, 0.001f, 60);
  mm.foot_locking = m.boolean("foot_locking", false);
  return mm;
}

// A motion-matching script: the matcher plays the clips, so the Animator's set-up and commands
// have no place in it, and the steering commands have none elsewhere.
void check_motion_matching(const ScriptValue& top, const AnimationScript& s) {
  if (s.motion_matching) {
    for (const char* animator :
         {"compile", "max_players", "inertialization", "layers", "masks", "sync_groups", "events",
          "markers", "foot_markers", "blend_spaces", "root_motion", "foot_planting"}) {
      if (top.has(animator))
        top.at(animator).fail("does not go with \"motion_matching\" (the matcher plays the clips)");
    }
  }
  for (const ScriptCommand& c : s.timeline) {
    using K = ScriptCommandKind;
    const bool steering = c.kind == K::kStick || c.kind == K::kWaypoints;
    // A state machine's parameters are set in either kind of script.
    const bool parameter = c.kind == K::kSetParam || c.kind == K::kSetBool || c.kind == K::kTrigger;
    if (steering == s.motion_matching.has_value() || (parameter && s.motion_matching)) continue;
    throw ScriptError(s.where + ": " + c.where +
                      (steering ? ": steers a motion matcher: it needs the script's "
                                  "\"motion_matching\""
                                : ": a motion-matching script is steered by \"stick\" and "
                                  "\"waypoints\" (and its state machine's parameters)"));
  }
}

AnimationScript read_script(const Json& doc, const std::string& where, const std::string& base) {
  const ScriptValue top(doc, "", where);
  top.object({"fps", "duration", "compile", "max_players", "inertialization", "layers", "masks",
              "sync_groups", "events", "markers", "foot_markers", "blend_spaces", "root_motion",
              "state_machine", "foot_planting", "motion_matching", "timeline"});
  AnimationScript s;
  s.where = where;
  s.fps = top.number("fps", 30, 1, 240);
  s.duration = top.number("duration", -1, 0, 3600);
  s.compile = top.boolean("compile", true);
  s.max_players = std::max<std::uint32_t>(1, top.count("max_players", 16, kMaxAnimatorPlayers));
  s.inertialization = top.boolean("inertialization", true);
  if (top.has("layers")) {
    const ScriptValue layers = top.at("layers");
    for (std::size_t i = 0, n = layers.array(); i < n; ++i) {
      const ScriptValue l = layers.at(i);
      l.object({"name", "mode", "weight", "mask"});
      ScriptLayer layer;
      layer.name = l.at("name").string();
      if (l.has("mode")) {
        layer.mode = choose<LayerMode>(l.at("mode"), {{"normal", LayerMode::kNormal},
                                                      {"override", LayerMode::kOverride},
                                                      {"additive", LayerMode::kAdditive}});
      }
      layer.weight = l.number("weight", 1);
      layer.mask = l.string("mask", "");
      s.layers.push_back(std::move(layer));
    }
  }
  if (top.has("masks")) {
    const ScriptValue masks = top.at("masks");
    if (!masks.json().is_object()) masks.fail("must be an object of mask name: {...}");
    for (const auto& item : masks.json().items()) {
      const ScriptValue m = masks.at(item.key().c_str());
      m.object({"subtree", "joints", "inverse"});
      ScriptMask mask;
      mask.name = item.key();
      mask.subtree = m.string("subtree", "");
      if (m.has("joints")) {
        const ScriptValue joints = m.at("joints");
        for (std::size_t i = 0, n = joints.array(); i < n; ++i) {
          mask.joints.push_back(joints.at(i).string());
        }
      }
      if (mask.subtree.empty() == mask.joints.empty()) {
        m.fail("needs exactly one of \"subtree\" and \"joints\"");
      }
      mask.inverse = m.boolean("inverse", false);
      s.masks.push_back(std::move(mask));
    }
  }
  if (top.has("sync_groups")) {
    const ScriptValue groups = top.at("sync_groups");
    const std::size_t n = groups.array();
    if (n > kMaxSyncGroups) groups.fail("has more than 16 groups");
    for (std::size_t i = 0; i < n; ++i) {
      s.sync_groups.push_back(choose<SyncMode>(
          groups.at(i), {{"markers", SyncMode::kMarkers}, {"phase", SyncMode::kPhase}}));
    }
  }
  if (top.has("events")) s.events = read_cue_lists(top.at("events"));
  if (top.has("markers")) s.markers = read_cue_lists(top.at("markers"));
  if (top.has("foot_markers")) {
    const ScriptValue f = top.at("foot_markers");
    f.object({"left_foot", "left_toe", "right_foot", "right_toe", "clips"});
    ScriptFootMarkers feet;
    feet.left_foot = f.at("left_foot").string();
    feet.right_foot = f.at("right_foot").string();
    feet.left_toe = f.string("left_toe", "");
    feet.right_toe = f.string("right_toe", "");
    if (f.has("clips")) {
      const ScriptValue clips = f.at("clips");
      for (std::size_t i = 0, n = clips.array(); i < n; ++i) {
        feet.clips.push_back(clips.at(i).string());
      }
      if (feet.clips.empty()) clips.fail("must name at least one clip (leave it out for all)");
    }
    s.foot_markers = std::move(feet);
  }
  if (top.has("blend_spaces")) {
    const ScriptValue spaces = top.at("blend_spaces");
    for (std::size_t i = 0, n = spaces.array(); i < n; ++i) {
      const ScriptValue b = spaces.at(i);
      b.object({"name", "dimensions", "samples"});
      ScriptBlendSpace space;
      space.name = b.at("name").string();
      space.dimensions = static_cast<int>(b.count("dimensions", 1, 2));
      if (space.dimensions < 1) b.at("dimensions").fail("must be 1 or 2");
      const ScriptValue samples = b.at("samples");
      for (std::size_t k = 0, nk = samples.array(); k < nk; ++k) {
        const ScriptValue sample = samples.at(k);
        sample.object({"clip", "x", "y", "sync"});
        BlendSampleDesc d;
        d.clip = sample.at("clip").string();
        d.x = sample.at("x").number();
        d.y = space.dimensions == 2 ? sample.at("y").number() : sample.number("y", 0);
        d.sync = sample.boolean("sync", true);
        space.samples.push_back(std::move(d));
      }
      s.blend_spaces.push_back(std::move(space));
    }
  }
  if (top.has("root_motion")) {
    const ScriptValue r = top.at("root_motion");
    r.object({"joint", "up", "horizontal", "vertical", "yaw"});
    RootMotionOptions o;
    o.joint = r.at("joint").string();
    if (r.has("up")) {
      const ScriptValue up = r.at("up");
      if (up.array() != 3) up.fail("must be [x, y, z]");
      o.up = {up.at(std::size_t{0}).number(), up.at(1).number(), up.at(2).number()};
    }
    o.horizontal = r.boolean("horizontal", true);
    o.vertical = r.boolean("vertical", false);
    o.yaw = r.boolean("yaw", false);
    s.root_motion = std::move(o);
  }
  if (top.has("state_machine")) {
    const ScriptValue m = top.at("state_machine");
    if (m.json().is_string()) {
      if (base.empty()) m.fail("a file name needs the script to be a file");
      const std::string path = (std::filesystem::path(base) / m.string()).string();
      Result<StateMachineDesc> machine = read_state_machine(path);
      if (!machine) throw ScriptError(machine.error().message);
      s.state_machine = std::move(machine).value();
    } else {
      s.state_machine = read_machine(m);
    }
  }
  if (top.has("foot_planting")) s.foot_planting = read_foot_planting(top.at("foot_planting"));
  if (top.has("motion_matching"))
    s.motion_matching = read_motion_matching(top.at("motion_matching"), base);
  if (top.has("timeline")) {
    const ScriptValue timeline = top.at("timeline");
    for (std::size_t i = 0, n = timeline.array(); i < n; ++i) {
      s.timeline.push_back(read_command(timeline.at(i)));
    }
    std::stable_sort(
        s.timeline.begin(), s.timeline.end(),
        [](const ScriptCommand& a, const ScriptCommand& b) { return a.time < b.time; });
  }
  check_motion_matching(top, s);
  return s;
}

template <typename F>
auto guarded(const std::string& where, F read) -> Result<decltype(read())> {
  try {
    return read();
  } catch (const ScriptError& e) {
    return Error{e.what()};
  } catch (const std::bad_alloc&) {
    return make_error(where, "out of memory");
  }
}

Result<std::string> read_text(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  return std::string(bytes->begin(), bytes->end());
}

}  // namespace

Result<AnimationScript> parse_animation_script(std::string_view json, std::string_view where,
                                               const std::string& base_dir) {
  const std::string w(where);
  return guarded(w, [&] { return read_script(parse_json(json, w), w, base_dir); });
}

Result<AnimationScript> read_animation_script(const std::string& path) {
  Result<std::string> text = read_text(path);
  if (!text) return text.error();
  return parse_animation_script(*text, path, std::filesystem::path(path).parent_path().string());
}

Result<StateMachineDesc> parse_state_machine(std::string_view json, std::string_view where) {
  const std::string w(where);
  return guarded(w, [&] { return read_machine(ScriptValue(parse_json(json, w), "", w)); });
}

Result<ScriptCommand> parse_script_command(std::string_view json, std::string_view where) {
  const std::string w(where);
  return guarded(w, [&] {
    Json doc = parse_json(json, w);
    // Run at once: the time is the caller's, so "t" may be left out.
    if (doc.is_object() && !doc.contains("t")) doc["t"] = 0;
    return read_command(ScriptValue(doc, "", w));
  });
}

Result<StateMachineDesc> read_state_machine(const std::string& path) {
  Result<std::string> text = read_text(path);
  if (!text) return text.error();
  return parse_state_machine(*text, path);
}

}  // namespace marrow
