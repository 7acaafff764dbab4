// The controller in Python (docs/python.md, "Animator"): a ClipSet made from an asset's clips
// (events, sync markers, masks and blend spaces added by keyword), and an Animator that plays
// them. Players are ints (the C++ PlayerId's value); events come back from update() as dicts.
// Bindings only: every rule is the C++ Animator's (docs/control.md).
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "arrays.h"
#include "errors.h"
#include "marrow/control/animator.h"
#include "marrow/control/clip_set.h"
#include "marrow/control/state_machine.h"
#include "marrow/io/animation_script.h"
#include "marrow/io/asset.h"
#include "marrow/io/script_runner.h"
#include "marrow/pose/mask.h"
#include "marrow/skin/morph.h"

namespace marrow::python {
namespace {

FadeCurve parse_curve(const std::string& curve) {
  if (curve == "linear") return FadeCurve::kLinear;
  if (curve == "smooth") return FadeCurve::kSmooth;
  throw py::value_error("curve: expected 'linear' or 'smooth', got '" + curve + "'");
}

LayerMode parse_layer_mode(const std::string& mode) {
  if (mode == "normal") return LayerMode::kNormal;
  if (mode == "override") return LayerMode::kOverride;
  if (mode == "additive") return LayerMode::kAdditive;
  throw py::value_error("layer mode: expected 'normal', 'override' or 'additive', got '" + mode +
                        "'");
}

SyncMode parse_sync(const std::string& mode) {
  if (mode == "markers") return SyncMode::kMarkers;
  if (mode == "phase") return SyncMode::kPhase;
  throw py::value_error("sync group: expected 'markers' or 'phase', got '" + mode + "'");
}

// Blend space samples: (clip, x) for 1D, (clip, x, y) for 2D; a fourth item False keeps the
// sample out of phase sync.
std::vector<BlendSampleDesc> samples_of(const std::string& space, const py::list& samples,
                                        int dims) {
  std::vector<BlendSampleDesc> out;
  for (const py::handle& item : samples) {
    const py::tuple t = py::cast<py::tuple>(item);
    const std::size_t want = static_cast<std::size_t>(dims) + 1;
    if (t.size() != want && t.size() != want + 1) {
      throw py::value_error("blend space '" + space + "': a sample is (clip, " +
                            (dims == 1 ? "x" : "x, y") + "[, sync])");
    }
    BlendSampleDesc d;
    d.clip = py::cast<std::string>(t[0]);
    d.x = py::cast<float>(t[1]);
    if (dims == 2) d.y = py::cast<float>(t[2]);
    if (t.size() == want + 1) d.sync = py::cast<bool>(t[want]);
    out.push_back(std::move(d));
  }
  return out;
}

struct ClipSetRef {
  std::shared_ptr<const ClipSet> set;
};

ClipSetRef make_clip_set(const Asset& asset, bool compile, float error_mm,
                         const std::vector<std::tuple<std::string, float, std::string>>& events,
                         const std::vector<std::tuple<std::string, float, std::string>>& markers,
                         const std::map<std::string, std::string>& subtree_masks,
                         const std::map<std::string, py::list>& blend_spaces_1d,
                         const std::map<std::string, py::list>& blend_spaces_2d) {
  ClipSetBuilder builder(asset.skeleton);
  // The character's morph-weight array, so Animators drive its faces (masks select by node).
  const MorphLayout layout = MorphLayout::build(asset.meshes);
  if (layout.weight_count() > 0) check_or_raise(builder.set_morph_layout(layout));
  ClipOptions options;
  options.compile = compile;
  if (compile) {
    if (!(error_mm > 0) || !std::isfinite(error_mm))
      throw py::value_error("error_mm: expected a bound above 0 millimetres");
    options.compile_options.error = error_mm / 1800.0f;  // relative: a 1.8 m character
  }
  for (const Clip& clip : asset.clips) check_or_raise(builder.add_clip(clip, options));
  for (const auto& [clip, time, name] : events) check_or_raise(builder.add_event(clip, time, name));
  for (const auto& [clip, time, name] : markers) {
    check_or_raise(builder.add_marker(clip, time, name));
  }
  for (const auto& [name, joint] : subtree_masks) {
    check_or_raise(
        builder.add_mask(name, value_or_raise(mask_from_subtree(asset.skeleton, joint))));
  }
  for (const auto& [name, samples] : blend_spaces_1d) {
    check_or_raise(builder.add_blend_space_1d(name, samples_of(name, samples, 1)));
  }
  for (const auto& [name, samples] : blend_spaces_2d) {
    check_or_raise(builder.add_blend_space_2d(name, samples_of(name, samples, 2)));
  }
  return {value_or_raise(builder.build())};
}

py::dict event_dict(const ClipSet& set, const AnimationEvent& e) {
  py::dict d;
  d["type"] = std::string(to_string(e.type));
  d["name"] = std::string(e.name);
  d["player"] = e.player.value;
  d["clip"] = e.clip != kNoId ? set.clip(e.clip).name() : std::string();
  d["layer"] = e.layer;
  d["clip_time"] = e.clip_time;
  d["time"] = e.time;
  d["pass"] = e.pass;
  d["backwards"] = e.backwards;
  return d;
}

py::array transform_array(const Transform& t) {
  py::array_t<float> a(py::ssize_t{10});
  std::memcpy(a.mutable_data(), &t, sizeof(Transform));
  return a;
}

// An Animator with what Python needs around it: its clip set alive, a workspace, an event
// buffer that grows when an update fires more events than it holds.
class PyAnimator {
 public:
  PyAnimator(ClipSetRef set, const std::vector<py::tuple>& layers,
             const std::vector<std::string>& sync_groups, bool inertialization, bool marker_events,
             std::uint32_t max_players)
      : set_(std::move(set.set)) {
    AnimatorOptions o;
    for (const py::tuple& l : layers) {
      if (l.size() < 1 || l.size() > 4)
        throw py::value_error("layers: each is (name[, mode[, weight[, mask]]])");
      LayerDesc d;
      d.name = py::cast<std::string>(l[0]);
      if (l.size() > 1) d.mode = parse_layer_mode(py::cast<std::string>(l[1]));
      if (l.size() > 2) d.weight = py::cast<float>(l[2]);
      if (l.size() > 3 && !l[3].is_none()) {
        d.mask = value_or_raise(set_->mask_id(py::cast<std::string>(l[3])));
      }
      o.layers.push_back(std::move(d));
    }
    for (const std::string& s : sync_groups) o.sync_groups.push_back(parse_sync(s));
    o.inertialization = inertialization;
    o.marker_events = marker_events;
    o.max_players = max_players;
    animator_ = value_or_raise(Animator::create(set_, std::move(o)));
    workspace_.reserve(*set_, max_players);
    events_.resize(64);
  }

  std::uint32_t play(const std::string& clip, std::uint32_t layer, float weight, float time_scale,
                     const std::string& wrap, std::uint32_t repetitions, float start_offset,
                     float fade_in, const std::string& curve, int sync_group) {
    PlayOptions o = options(layer, weight, time_scale, wrap, repetitions, start_offset, fade_in,
                            curve, sync_group);
    return value_or_raise(animator_->play(value_or_raise(set_->clip_id(clip)), o)).value;
  }
  std::uint32_t play_blend_space(const std::string& space, float x, float y, std::uint32_t layer,
                                 float weight, float time_scale, float fade_in,
                                 const std::string& curve, int sync_group) {
    PlayOptions o = options(layer, weight, time_scale, "loop", 0, 0, fade_in, curve, sync_group);
    o.blend_x = x;
    o.blend_y = y;
    return value_or_raise(
               animator_->play_blend_space(value_or_raise(set_->blend_space_id(space)), o))
        .value;
  }

  py::list update(float dt) {
    return step(dt,
                [&](std::span<AnimationEvent> events) { return animator_->update(dt, events); });
  }

  // One update by `advance` (the Animator's own, or a state machine's), its events as dicts.
  template <typename Advance>
  py::list step(float dt, Advance&& advance) {
    if (!std::isfinite(dt) || dt < 0)
      throw py::value_error("dt: expected a finite number of seconds >= 0");
    UpdateResult r = advance(std::span<AnimationEvent>(events_));
    if (r.events > events_.size()) {
      // The buffer was short: C++ delivers what fits; Python wants every event, so the update
      // is not repeated but the buffer grows for the next one and the shortfall is reported.
      events_.resize(r.events * 2);
      PyErr_WarnEx(PyExc_RuntimeWarning,
                   "more events in one update than the buffer held; some were dropped", 1);
    }
    root_motion_ = r.root_motion;
    py::list out;
    for (std::size_t i = 0; i < r.events_written; ++i) out.append(event_dict(*set_, events_[i]));
    return out;
  }

  py::array evaluate(const py::object& out) {
    const std::size_t n = set_->skeleton().size();
    py::array result =
        out.is_none()
            ? py::array(py::array_t<float>({static_cast<py::ssize_t>(n), py::ssize_t{10}}))
            : checked(out, "out", {static_cast<py::ssize_t>(n), 10});
    std::span<Transform> pose = pose_out(result, "out", n);
    if (!animator_->evaluate(workspace_, pose)) raise("evaluate: the animator cannot evaluate");
    return result;
  }

  py::dict info(std::uint32_t player) const {
    const PlayerInfo i = animator_->info(PlayerId{player});
    py::dict d;
    d["active"] = i.active;
    // A player plays a clip or a blend space: the other is None.
    d["clip"] = i.clip != kNoId ? py::object(py::str(set_->clip(i.clip).name())) : py::none();
    d["blend_space"] = i.blend_space != kNoId
                           ? py::object(py::str(set_->blend_space(i.blend_space).name()))
                           : py::none();
    d["layer"] = i.layer;
    d["time"] = i.time;
    d["duration"] = i.duration;
    d["weight"] = i.weight;
    d["fade"] = i.fade;
    d["effective_weight"] = i.effective_weight;
    d["time_scale"] = i.time_scale;
    d["passes"] = i.passes;
    d["paused"] = i.paused;
    d["finished"] = i.finished;
    d["follower"] = i.follower;
    return d;
  }

  py::array morph_weights() {
    py::array_t<float> out(static_cast<py::ssize_t>(set_->morph_weight_count()));
    const std::span<float> w(out.mutable_data(), set_->morph_weight_count());
    if (!animator_->evaluate_morph_weights(workspace_, w))
      raise("evaluate_morph_weights: the animator cannot evaluate");
    return out;
  }

  Animator& get() { return *animator_; }
  py::array root_motion() const { return transform_array(root_motion_); }

 private:
  static PlayOptions options(std::uint32_t layer, float weight, float time_scale,
                             const std::string& wrap, std::uint32_t repetitions, float start_offset,
                             float fade_in, const std::string& curve, int sync_group) {
    PlayOptions o;
    o.layer = layer;
    o.weight = weight;
    o.time_scale = time_scale;
    o.wrap = parse_wrap(wrap);
    o.repetitions = repetitions;
    o.start_offset = start_offset;
    o.fade_in = fade_in;
    o.fade_curve = parse_curve(curve);
    o.sync_group = sync_group;
    return o;
  }

  std::shared_ptr<const ClipSet> set_;
  std::optional<Animator> animator_;
  AnimatorWorkspace workspace_;
  std::vector<AnimationEvent> events_;
  Transform root_motion_{};
};

}  // namespace

// A state machine from JSON text, a dict (the same members) or a JSON file, checked against a
// clip set, running on one Animator.
class PyStateMachine {
 public:
  PyStateMachine(ClipSetRef set, const py::object& definition) {
    const JsonSource source = json_source(definition);
    Result<StateMachineDesc> desc = source.path.empty()
                                        ? parse_state_machine(source.text, "state machine")
                                        : read_state_machine(source.path);
    definition_ =
        value_or_raise(StateMachineDefinition::create(value_or_raise(std::move(desc)), *set.set));
    machine_.emplace(definition_);
  }
  void start(PyAnimator& animator) { check_or_raise(machine_->start(animator.get())); }
  py::list update(PyAnimator& animator, float dt) {
    return animator.step(dt, [&](std::span<AnimationEvent> events) {
      return machine_->update(animator.get(), dt, events);
    });
  }
  StateMachine& get() { return *machine_; }
  const StateMachine& get() const { return *machine_; }

 private:
  std::shared_ptr<const StateMachineDefinition> definition_;
  std::optional<StateMachine> machine_;
};

// An animation script (docs/control.md, "Scripts") run on an asset, frame by frame, as `marrow
// play` runs it: from a dict of the JSON members, JSON text, or a JSON file.
class PyScriptRunner {
 public:
  PyScriptRunner(std::shared_ptr<Asset> asset, const py::object& script)
      : asset_(std::move(asset)) {
    const JsonSource source = json_source(script);
    Result<AnimationScript> parsed = source.path.empty()
                                         ? parse_animation_script(source.text, "script")
                                         : read_animation_script(source.path);
    runner_.emplace(
        value_or_raise(ScriptRunner::create(*asset_, value_or_raise(std::move(parsed)))));
  }
  int frame_count() const { return runner_->frame_count(); }
  double fps() const { return runner_->fps(); }
  bool done() const { return frame_.index + 1 >= runner_->frame_count() && started_; }

  py::dict next() {
    if (done()) throw py::stop_iteration();
    check_or_raise(runner_->next(frame_));
    started_ = true;
    return frame_dict();
  }
  // A timeline entry run now (docs/control.md), from a dict or JSON text, "t" optional.
  void run(const py::object& command) {
    const JsonSource source = json_source(command);
    if (!source.path.empty()) throw py::value_error("run: give the command as a dict or JSON text");
    Result<ScriptCommand> parsed = parse_script_command(source.text, "command");
    check_or_raise(runner_->run(value_or_raise(std::move(parsed))));
  }
  // Advances by dt seconds on the caller's clock and returns the frame (players not listed).
  py::dict step(float dt) {
    check_or_raise(runner_->step(dt, frame_));
    started_ = true;
    return frame_dict();
  }

 private:
  py::dict frame_dict() {
    const ClipSet& set = runner_->clip_set();
    py::dict d;
    d["index"] = frame_.index;
    d["time"] = frame_.time;
    py::list events;
    for (const AnimationEvent& e : frame_.events) {
      py::dict event = event_dict(set, e);
      event["player"] = runner_->name_of(e.player);
      events.append(event);
    }
    d["events"] = events;
    py::list players;
    for (const ScriptFrame::Player& p : frame_.players) {
      py::dict player;
      player["id"] = p.id;
      player["motion"] = p.motion;
      player["layer"] = p.layer;
      player["time"] = p.info.time;
      player["weight"] = p.info.weight;
      player["effective_weight"] = p.info.effective_weight;
      players.append(player);
    }
    d["players"] = players;
    d["state"] = frame_.state.empty() ? py::object(py::none()) : py::object(py::str(frame_.state));
    d["root_motion"] = transform_array(frame_.update.root_motion);
    auto [model, matrices] = new_matrices(frame_.model.size());
    std::copy(frame_.model.begin(), frame_.model.end(), matrices.begin());
    d["model"] = model;
    py::array_t<float> weights(static_cast<py::ssize_t>(frame_.morph_weights.size()));
    std::copy(frame_.morph_weights.begin(), frame_.morph_weights.end(), weights.mutable_data());
    d["morph_weights"] = weights;
    py::list ik;
    for (const ScriptFrame::Ik& k : frame_.ik) {
      ik.append(py::dict(py::arg("id") = k.id, py::arg("weight") = k.weight,
                         py::arg("reached") = k.reached));
    }
    d["ik"] = ik;
    d["foot_contacts"] = py::cast(frame_.foot_contacts);
    d["pelvis_offset"] = frame_.pelvis_offset;
    if (frame_.matching) {  // a motion-matching script's: positions as (3,) lists, angles radians
      const ScriptFrame::Matching& m = *frame_.matching;
      const auto xyz = [](Vec3 v) { return py::make_tuple(v.x, v.y, v.z); };
      d["motion_matching"] =
          py::dict(py::arg("position") = xyz(m.world.translation), py::arg("facing") = m.yaw,
                   py::arg("desired") = xyz(m.desired), py::arg("desired_facing") = m.desired_yaw,
                   py::arg("database_frame") = m.database_frame, py::arg("searched") = m.searched,
                   py::arg("switched") = m.switched,
                   py::arg("contacts") = py::make_tuple(m.contacts[0], m.contacts[1]));
    } else {
      d["motion_matching"] = py::none();
    }
    return d;
  }

  std::shared_ptr<Asset> asset_;  // the runner points into it
  std::optional<ScriptRunner> runner_;
  ScriptFrame frame_;
  bool started_ = false;
};

void bind_control(py::module_& m) {
  py::class_<ClipSetRef>(m, "ClipSet",
                         "An asset's clips bound to its skeleton, shared by many Animators")
      .def(py::init([](std::shared_ptr<Asset> asset, bool compile, float error_mm,
                       const std::vector<std::tuple<std::string, float, std::string>>& events,
                       const std::vector<std::tuple<std::string, float, std::string>>& markers,
                       const std::map<std::string, std::string>& masks,
                       const std::map<std::string, py::list>& blend_spaces_1d,
                       const std::map<std::string, py::list>& blend_spaces_2d) {
             return make_clip_set(*asset, compile, error_mm, events, markers, masks,
                                  blend_spaces_1d, blend_spaces_2d);
           }),
           py::arg("asset"), py::kw_only(), py::arg("compile") = false, py::arg("error_mm") = 0.1f,
           py::arg("events") = py::list(), py::arg("markers") = py::list(),
           py::arg("masks") = py::dict(), py::arg("blend_spaces_1d") = py::dict(),
           py::arg("blend_spaces_2d") = py::dict(), "Binds `asset`'s clips to its skeleton, compiling them under `error_mm` when compile=True; adds events and markers ((clip, time, name) tuples), masks (name: joint names) and blend spaces (name: [(clip, x[, y])])")
      .def("__repr__",
           [](const ClipSetRef& s) {
             return "<marrow.ClipSet " + std::to_string(s.set->clip_count()) + " clips, " +
                    std::to_string(s.set->skeleton().size()) + " joints, " +
                    std::to_string(s.set->morph_weight_count()) + " morph weights>";
           })
      .def_property_readonly("clip_names",
                             [](const ClipSetRef& s) {
                               std::vector<std::string> names;
                               for (std::size_t i = 0; i < s.set->clip_count(); ++i)
                                 names.push_back(s.set->clip(static_cast<ClipId>(i)).name());
                               return names;
                             }, "The clips' names, in ClipSet order")
      .def(
          "duration",
          [](const ClipSetRef& s, const std::string& clip) {
            return s.set->duration(value_or_raise(s.set->clip_id(clip)));
          },
          py::arg("clip"), "A clip's duration in seconds")
      .def(
          "is_compiled",
          [](const ClipSetRef& s, const std::string& clip) {
            return s.set->compiled(value_or_raise(s.set->clip_id(clip))) != nullptr;
          },
          py::arg("clip"), "Whether a clip plays from its compiled form")
      .def_property_readonly("joint_count",
                             [](const ClipSetRef& s) { return s.set->skeleton().size(); }, "The skeleton's joint count")
      .def_property_readonly("morph_weight_count",
                             [](const ClipSetRef& s) { return s.set->morph_weight_count(); }, "How many morph-target weights the character has (Animator.evaluate_morph_weights' length)");

  auto ok = [](const Status& s) { check_or_raise(s); };
  py::class_<PyAnimator>(m, "Animator", "One character's players, fades, sync and events")
      .def("__repr__",
           [](PyAnimator& a) {
             return "<marrow.Animator " + std::to_string(a.get().player_count()) + " players>";
           })
      .def(py::init<ClipSetRef, std::vector<py::tuple>, std::vector<std::string>, bool, bool,
                    std::uint32_t>(),
           py::arg("clip_set"), py::kw_only(), py::arg("layers") = std::vector<py::tuple>(),
           py::arg("sync_groups") = std::vector<std::string>(), py::arg("inertialization") = false,
           py::arg("marker_events") = false, py::arg("max_players") = 8u,
           "A character's players over `clip_set`: layers as (name, mode, weight, mask) tuples, "
           "sync groups ('markers' or 'phase'), inertialization, marker events, at most "
           "`max_players` players")
      .def("play", &PyAnimator::play, py::arg("clip"), py::kw_only(), py::arg("layer") = 0u,
           py::arg("weight") = 1.0f, py::arg("time_scale") = 1.0f, py::arg("wrap") = "loop",
           py::arg("repetitions") = 0u, py::arg("start_offset") = 0.0f, py::arg("fade_in") = 0.0f,
           py::arg("curve") = "linear", py::arg("sync_group") = -1,
           "Starts a clip; returns the player")
      .def("play_blend_space", &PyAnimator::play_blend_space, py::arg("space"), py::arg("x") = 0.0f,
           py::arg("y") = 0.0f, py::kw_only(), py::arg("layer") = 0u, py::arg("weight") = 1.0f,
           py::arg("time_scale") = 1.0f, py::arg("fade_in") = 0.0f, py::arg("curve") = "linear",
           py::arg("sync_group") = -1,
           "Starts a blend space at parameter (x, y); returns the player")
      .def(
          "stop", [](PyAnimator& a, std::uint32_t p) { return a.get().stop(PlayerId{p}); },
          py::arg("player"), "Stops a player at once; False when it is not playing")
      .def(
          "pause",
          [](PyAnimator& a, std::uint32_t p, bool paused) {
            return a.get().set_paused(PlayerId{p}, paused);
          },
          py::arg("player"), py::arg("paused") = true,
          "Pauses (or resumes, with paused=False) a player's time; False when it is not playing")
      .def(
          "set_time",
          [ok](PyAnimator& a, std::uint32_t p, float s) { ok(a.get().set_time(PlayerId{p}, s)); },
          py::arg("player"), py::arg("seconds"),
          "Moves a player to `seconds` of its clip, firing no events")
      .def(
          "set_weight",
          [](PyAnimator& a, std::uint32_t p, float w) {
            return a.get().set_weight(PlayerId{p}, w);
          },
          py::arg("player"), py::arg("weight"),
          "Sets a player's weight (before its fade); False when it is not playing or the weight is "
          "not finite")
      .def(
          "set_time_scale",
          [](PyAnimator& a, std::uint32_t p, float s) {
            return a.get().set_time_scale(PlayerId{p}, s);
          },
          py::arg("player"), py::arg("time_scale"),
          "Sets a player's speed (negative plays backwards); False when it is not playing")
      .def(
          "set_parameter",
          [](PyAnimator& a, std::uint32_t p, float x, float y) {
            return a.get().set_blend_parameter(PlayerId{p}, x, y);
          },
          py::arg("player"), py::arg("x"), py::arg("y") = 0.0f,
          "Moves a blend-space player's parameter to (x, y); False when it is not one")
      .def(
          "fade_in",
          [ok](PyAnimator& a, std::uint32_t p, float d, const std::string& c) {
            ok(a.get().fade_in(PlayerId{p}, d, parse_curve(c)));
          },
          py::arg("player"), py::arg("duration"), py::arg("curve") = "linear",
          "Fades a player's weight in from 0 over `duration` seconds ('linear' or 'smooth')")
      .def(
          "fade_out",
          [ok](PyAnimator& a, std::uint32_t p, float d, const std::string& c, bool stop) {
            ok(a.get().fade_out(PlayerId{p}, d, parse_curve(c), stop));
          },
          py::arg("player"), py::arg("duration"), py::arg("curve") = "linear",
          py::arg("stop_when_faded") = true,
          "Fades a player out over `duration` seconds, stopping it at 0 unless "
          "stop_when_faded=False")
      .def(
          "cross_fade",
          [ok](PyAnimator& a, std::uint32_t from, std::uint32_t to, float d, const std::string& c) {
            ok(a.get().cross_fade(PlayerId{from}, PlayerId{to}, d, parse_curve(c)));
          },
          py::arg("from_player"), py::arg("to_player"), py::arg("duration"),
          py::arg("curve") = "linear",
          "Fades `from_player` out and `to_player` in over `duration` seconds")
      .def(
          "warp",
          [ok](PyAnimator& a, std::uint32_t p, float scale, float d) {
            ok(a.get().warp(PlayerId{p}, scale, d));
          },
          py::arg("player"), py::arg("time_scale"), py::arg("duration"),
          "Moves a player's speed to `time_scale` over `duration` seconds")
      .def(
          "inertialize",
          [ok](PyAnimator& a, std::uint32_t from, std::uint32_t to, float d) {
            ok(a.get().inertialize(PlayerId{from}, PlayerId{to}, d));
          },
          py::arg("from_player"), py::arg("to_player"), py::arg("duration"),
          "Switches from `from_player` to `to_player` at once, decaying the pose's difference over "
          "`duration` seconds (needs inertialization=True)")
      .def("update", &PyAnimator::update, py::arg("dt"),
           "Advances time by dt seconds; returns the events fired, in time order")
      .def("evaluate", &PyAnimator::evaluate, py::arg("out") = py::none(),
           "The blended local pose: (joints, 10) float32")
      .def("info", &PyAnimator::info, py::arg("player"),
           "A player's state as a dict: clip or blend space, layer, time, duration, weight, fade, "
           "effective weight, time scale, passes, paused, finished")
      .def("evaluate_morph_weights", &PyAnimator::morph_weights,
           "The blended morph-target weights: (ClipSet.morph_weight_count,) float32")
      .def(
          "set_morph_weight",
          [](PyAnimator& a, std::uint32_t slot, float weight) {
            if (!std::isfinite(weight)) throw py::value_error("weight: expected a finite number");
            if (!a.get().set_morph_weight(slot, weight))
              throw py::index_error("slot " + std::to_string(slot) + ": the character has " +
                                    std::to_string(a.get().clip_set().morph_weight_count()) +
                                    " morph weights");
          },
          py::arg("slot"), py::arg("weight"), "Holds a weight by hand until released")
      .def(
          "fade_morph_weight",
          [](PyAnimator& a, std::uint32_t slot, float weight, float seconds) {
            if (!std::isfinite(weight)) throw py::value_error("weight: expected a finite number");
            if (!(seconds >= 0) || !std::isfinite(seconds))
              throw py::value_error("seconds: expected a finite number >= 0");
            if (!a.get().fade_morph_weight(slot, weight, seconds))
              throw py::index_error("slot " + std::to_string(slot) + ": the character has " +
                                    std::to_string(a.get().clip_set().morph_weight_count()) +
                                    " morph weights");
          },
          py::arg("slot"), py::arg("weight"), py::arg("seconds"),
          "Moves a weight linearly from what it shows to `weight` over `seconds`, then holds it")
      .def(
          "release_morph_weight",
          [](PyAnimator& a, std::uint32_t slot, float seconds) {
            if (!(seconds >= 0) || !std::isfinite(seconds))
              throw py::value_error("seconds: expected a finite number >= 0");
            if (!a.get().release_morph_weight(slot, seconds))
              throw py::index_error("slot " + std::to_string(slot) + ": the character has " +
                                    std::to_string(a.get().clip_set().morph_weight_count()) +
                                    " morph weights");
          },
          py::arg("slot"), py::arg("seconds") = 0.0f,
          "Gives the slot back to the clips, at once or blending over `seconds`")
      .def_property_readonly("root_motion", &PyAnimator::root_motion,
                             "The last update's root-motion delta: (10,) float32")
      .def_property_readonly(
          "player_count",
          [](const PyAnimator& a) { return const_cast<PyAnimator&>(a).get().player_count(); },
          "How many players are playing")
      .def_property_readonly(
          "size_bytes",
          [](const PyAnimator& a) { return const_cast<PyAnimator&>(a).get().size_bytes(); },
          "The memory the Animator holds, bytes");

  py::class_<PyStateMachine>(
      m, "StateMachine",
      "States that play clips or blend spaces, parameters, and transitions on conditions, "
      "markers and exit times (docs/control.md), driving one Animator")
      .def(py::init<ClipSetRef, const py::object&>(), py::arg("clip_set"), py::arg("definition"),
           "`definition`: a dict of the JSON form's members, JSON text, or a path to a JSON file")
      .def("__repr__",
           [](const PyStateMachine& s) {
             return "<marrow.StateMachine in " +
                    std::string(py::repr(py::str(s.get().current_state_name()))) +
                    (s.get().in_transition() ? ", in a transition>" : ">");
           })
      .def("start", &PyStateMachine::start, py::arg("animator"),
           "Plays the initial state on `animator`")
      .def("update", &PyStateMachine::update, py::arg("animator"), py::arg("dt"),
           "Checks transitions, advances `animator` by dt seconds; returns the events fired")
      .def(
          "set_float",
          [](PyStateMachine& s, const std::string& name, float value) {
            if (!s.get().set_float(name, value))
              throw py::value_error("no float parameter '" + name + "', or a value not finite");
          },
          py::arg("name"), py::arg("value"),
          "Sets a float parameter; ValueError for an unknown name or a value not finite")
      .def(
          "set_bool",
          [](PyStateMachine& s, const std::string& name, bool value) {
            if (!s.get().set_bool(name, value))
              throw py::value_error("no bool parameter '" + name + "'");
          },
          py::arg("name"), py::arg("value"),
          "Sets a bool parameter; ValueError for an unknown name")
      .def(
          "trigger",
          [](PyStateMachine& s, const std::string& name) {
            if (!s.get().set_trigger(name)) throw py::value_error("no trigger '" + name + "'");
          },
          py::arg("name"), "Sets a trigger; the transition that tests it spends it")
      .def_property_readonly(
          "state", [](const PyStateMachine& s) { return s.get().current_state_name(); },
          "The current state's name")
      .def_property_readonly(
          "player", [](const PyStateMachine& s) { return s.get().current_player().value; },
          "The Animator player of the current state")
      .def_property_readonly(
          "in_transition", [](const PyStateMachine& s) { return s.get().in_transition(); },
          "Whether a transition is under way");

  py::class_<PyScriptRunner>(
      m, "ScriptRunner",
      "An animation script run on an asset as `marrow play` runs it: iterate for one dict per "
      "frame (index, time, events, players, state, root_motion, model (joints, 4, 4), "
      "morph_weights)")
      .def(py::init<std::shared_ptr<Asset>, const py::object&>(), py::arg("asset"),
           py::arg("script"), "`script`: a dict of the JSON members, JSON text, or a JSON file")
      .def("__repr__",
           [](const PyScriptRunner& r) {
             return "<marrow.ScriptRunner " + std::to_string(r.frame_count()) + " frames at " +
                    std::string(py::repr(py::float_(r.fps()))) + " fps>";
           })
      .def(
          "__iter__", [](py::object self) { return self; },
          "The runner itself: each step gives the next frame")
      .def("__next__", &PyScriptRunner::next,
           "The next frame as a dict; StopIteration after the last")
      .def("run", &PyScriptRunner::run, py::arg("command"),
           "Runs one timeline entry now (a dict or JSON text, \"t\" optional), as the timeline "
           "would at this moment")
      .def("step", &PyScriptRunner::step, py::arg("dt"),
           "Advances by dt seconds on the caller's clock (the timeline is not read) and returns "
           "the frame as a dict, its players not listed")
      .def_property_readonly("frame_count", &PyScriptRunner::frame_count,
                             "How many frames the script runs")
      .def_property_readonly("fps", &PyScriptRunner::fps, "The script's frame rate");
}

}  // namespace marrow::python
