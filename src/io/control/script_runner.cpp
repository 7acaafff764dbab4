#include "marrow/io/script_runner.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "io/control/script_ik.h"
#include "io/control/script_motion.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"

namespace marrow {
namespace {

std::string names_of(const std::vector<std::pair<std::string, PlayerId>>& ids,
                     const Animator& animator) {
  std::string list;
  for (const auto& [id, player] : ids) {
    if (animator.is_playing(player)) list += (list.empty() ? "" : ", ") + id;
  }
  return list.empty() ? "none" : list;
}

}  // namespace

// A joint's name as add_detected_foot_markers takes it: "#N" for the joint find_script_joint
// picks when nodes share the name (the one skin joint among them), else the name unchanged (the
// builder's error then names it).
namespace {

std::string foot_joint_reference(const Asset& asset, const std::string& name) {
  const Result<JointIndex> joint = script_detail::find_script_joint(asset, name);
  // The name itself where a lookup by name finds that joint, so messages keep the name.
  if (!joint || asset.skeleton.find(name) == std::optional<JointIndex>(*joint)) return name;
  return "#" + std::to_string(*joint);
}

}  // namespace

ScriptRunner::ScriptRunner() = default;
ScriptRunner::ScriptRunner(ScriptRunner&&) noexcept = default;
ScriptRunner& ScriptRunner::operator=(ScriptRunner&&) noexcept = default;
ScriptRunner::~ScriptRunner() = default;

namespace {

int frame_count_of(const AnimationScript& script) {
  float duration = script.duration;
  if (duration < 0) duration = (script.timeline.empty() ? 0 : script.timeline.back().time) + 1;
  return static_cast<int>(std::floor(duration * script.fps + 1e-6)) + 1;
}

}  // namespace

Result<std::shared_ptr<const ClipSet>> ScriptRunner::build_clip_set(const Asset& asset,
                                                                    const AnimationScript& script) {
  const std::string& where = script.where;
  const Skeleton& skeleton = asset.skeleton;
  ClipSetBuilder builder(skeleton);
  // The character's morph weights, so clips' weight tracks and the morph commands reach them.
  const MorphLayout morph_layout = MorphLayout::build(asset.meshes);
  if (morph_layout.weight_count() > 0) {
    if (Status s = builder.set_morph_layout(morph_layout); !s)
      return make_error(asset.source, s.error().message);
  }
  for (std::size_t c = 0; c < asset.clips.size(); ++c) {
    const Clip& clip = asset.clips[c];
    // A compiled form the archive holds is played as it is, without compiling again.
    const CompiledClip* stored = script.compile ? asset.compiled_clip(c) : nullptr;
    if (Status s = stored ? builder.add_clip(clip, *stored)
                          : builder.add_clip(clip, {.compile = script.compile});
        !s) {
      return make_error(asset.source, s.error().message);
    }
  }
  for (const ScriptMask& m : script.masks) {
    Result<std::vector<float>> weights = !m.subtree.empty() ? mask_from_subtree(skeleton, m.subtree)
                                                            : [&]() -> Result<std::vector<float>> {
      std::vector<std::string_view> names(m.joints.begin(), m.joints.end());
      return mask_from_names(skeleton, std::span<const std::string_view>(names));
    }();
    if (!weights) return make_error(where, "masks." + m.name + ": " + weights.error().message);
    if (m.inverse) *weights = mask_inverse(*weights);
    if (Status s = builder.add_mask(m.name, std::move(weights).value()); !s) {
      return make_error(where, "masks." + m.name + ": " + s.error().message);
    }
  }
  for (const ScriptCue& c : script.events) {
    if (Status s = builder.add_event(c.clip, c.time, c.name); !s) {
      return make_error(where, "events: " + s.error().message);
    }
  }
  for (const ScriptCue& c : script.markers) {
    if (Status s = builder.add_marker(c.clip, c.time, c.name); !s) {
      return make_error(where, "markers: " + s.error().message);
    }
  }
  if (script.foot_markers) {
    const ScriptFootMarkers& f = *script.foot_markers;
    // Names are looked up among the skin's joints first: a rig may also have a mesh or helper
    // node of the same name (an FBX's "LeftFoot" mesh beside its "LeftFoot" bone).
    const std::string left_toe = foot_joint_reference(asset, f.left_toe),
                      right_toe = foot_joint_reference(asset, f.right_toe),
                      left_foot = foot_joint_reference(asset, f.left_foot),
                      right_foot = foot_joint_reference(asset, f.right_foot);
    const FootMarkerOptions feet{.left_toe = left_toe, .right_toe = right_toe};
    const auto mark = [&](const std::string& clip) {
      return builder.add_detected_foot_markers(clip, left_foot, right_foot, feet);
    };
    // Named clips must all be marked. Without names every clip is tried and those where a foot
    // never comes down (an idle, a T-pose) stay unmarked; when none is marked, the first clip's
    // error says why.
    std::optional<Error> first_error;
    bool any = false;
    for (const std::string& clip : f.clips) {
      if (Status s = mark(clip); !s) return make_error(where, "foot_markers: " + s.error().message);
    }
    for (std::size_t c = 0; f.clips.empty() && c < asset.clips.size(); ++c) {
      Status s = mark(asset.clips[c].name());
      any = any || s.ok();
      if (!s && !first_error) first_error = s.error();
    }
    if (f.clips.empty() && !any) {
      return make_error(where, "foot_markers: no clip was marked; " +
                                   (first_error ? first_error->message : "the file has no clips"));
    }
  }
  for (std::size_t i = 0; i < script.blend_spaces.size(); ++i) {
    const ScriptBlendSpace& b = script.blend_spaces[i];
    const Status s = b.dimensions == 2 ? builder.add_blend_space_2d(b.name, b.samples)
                                       : builder.add_blend_space_1d(b.name, b.samples);
    if (!s)
      return make_error(where, "blend_spaces[" + std::to_string(i) + "]: " + s.error().message);
  }
  if (script.root_motion) {
    if (Status s = builder.set_root_motion(*script.root_motion); !s) {
      return make_error(where, "root_motion: " + s.error().message);
    }
  }
  Result<std::shared_ptr<const ClipSet>> set = builder.build();
  if (!set) return make_error(where, set.error().message);
  return set;
}

Result<ScriptRunner> ScriptRunner::create(const Asset& asset, const AnimationScript& script,
                                          std::shared_ptr<const ClipSet> set) {
  ScriptRunner r;
  r.asset_ = &asset;
  r.script_ = script;
  r.frames_ = frame_count_of(script);
  if (script.motion_matching) {
    Result<script_detail::ScriptMotion> motion = script_detail::ScriptMotion::create(asset, script);
    if (!motion) return motion.error();
    r.motion_ = std::make_unique<script_detail::ScriptMotion>(std::move(*motion));
    r.set_ = r.motion_->shared_clip_set();
    return r;
  }
  const std::string& where = script.where;
  const Skeleton& skeleton = asset.skeleton;
  r.morph_layout_ = MorphLayout::build(asset.meshes);
  if (!set) {
    Result<std::shared_ptr<const ClipSet>> built = build_clip_set(asset, script);
    if (!built) return built.error();
    set = std::move(built).value();
  }
  r.set_ = std::move(set);

  AnimatorOptions options;
  for (std::size_t i = 0; i < script.layers.size(); ++i) {
    const ScriptLayer& l = script.layers[i];
    LayerDesc desc{l.name, l.mode, l.weight, kNoId};
    if (!l.mask.empty()) {
      Result<MaskId> mask = r.set_->mask_id(l.mask);
      if (!mask) {
        return make_error(where, "layers[" + std::to_string(i) + "].mask: " + mask.error().message);
      }
      desc.mask = *mask;
    }
    options.layers.push_back(std::move(desc));
  }
  options.sync_groups = script.sync_groups;
  options.max_players = script.max_players;
  options.inertialization = script.inertialization;
  bool markers = false;
  for (ClipId c = 0; c < r.set_->clip_count(); ++c)
    markers = markers || !r.set_->markers(c).empty();
  options.marker_events = markers;
  Result<Animator> animator = Animator::create(r.set_, options);
  if (!animator) return make_error(where, animator.error().message);
  r.animator_.emplace(std::move(animator).value());
  if (script.state_machine) {
    Result<std::shared_ptr<const StateMachineDefinition>> def =
        StateMachineDefinition::create(*script.state_machine, *r.set_);
    if (!def) return make_error(where, "state_machine." + def.error().message);
    r.machine_.emplace(std::move(def).value());
    if (Status s = r.machine_->start(*r.animator_); !s) {
      return make_error(where, "state_machine: " + s.error().message);
    }
  }
  r.workspace_.emplace(*r.set_, options.max_players);
  r.local_.resize(soa_group_count(skeleton.size()));
  Result<script_detail::ScriptPoseEdits> edits =
      script_detail::ScriptPoseEdits::create(asset, *r.set_, script);
  if (!edits) return edits.error();
  r.edits_ = std::make_unique<script_detail::ScriptPoseEdits>(std::move(edits).value());
  return r;
}

Result<std::uint32_t> ScriptRunner::layer(const std::string& name, const std::string& where) const {
  const std::vector<LayerDesc>& layers = animator_->options().layers;
  std::string list;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].name == name) return static_cast<std::uint32_t>(i);
    list += (list.empty() ? "" : ", ") + layers[i].name;
  }
  return make_error(where, "no layer '" + name + "' (layers: " + list + ")");
}

PlayerId ScriptRunner::find(const std::string& id) const {
  for (const auto& [name, player] : ids_) {
    if (name == id && animator_->is_playing(player)) return player;
  }
  return PlayerId{};
}

Result<PlayerId> ScriptRunner::start(const ScriptCommand& c, const std::string& motion,
                                     const std::string& id, std::uint32_t layer) {
  const std::string where = script_.where + ": " + c.where;
  if (find(id).valid()) {
    return make_error(where,
                      "a player '" + id + "' is already playing; give the new one an \"id\"");
  }
  PlayOptions options = c.play;
  options.layer = layer;
  Result<PlayerId> player = [&]() -> Result<PlayerId> {
    if (c.kind == ScriptCommandKind::kPlayBlendSpace) {
      Result<BlendSpaceId> space = set_->blend_space_id(motion);
      if (!space) return space.error();
      return animator_->play_blend_space(*space, options);
    }
    if (const std::optional<ClipId> clip = set_->find_clip(motion)) {
      return animator_->play(*clip, options);
    }
    if (c.kind != ScriptCommandKind::kPlay) {
      // cross_fade and inertialize may name a blend space to start.
      if (Result<BlendSpaceId> space = set_->blend_space_id(motion); space) {
        return animator_->play_blend_space(*space, options);
      }
    }
    return set_->clip_id(motion).error();
  }();
  if (!player) return make_error(where, player.error().message);
  ids_.erase(std::remove_if(ids_.begin(), ids_.end(), [&](const auto& p) { return p.first == id; }),
             ids_.end());
  ids_.emplace_back(id, *player);
  return player;
}

Status ScriptRunner::apply(const ScriptCommand& c) {
  const std::string where = script_.where + ": " + c.where;
  Animator& a = *animator_;
  using K = ScriptCommandKind;
  const auto player = [&](const std::string& id) -> Result<PlayerId> {
    const PlayerId p = find(id);
    if (!p.valid()) {
      return make_error(where,
                        "no player '" + id + "' is playing (playing: " + names_of(ids_, a) + ")");
    }
    return p;
  };
  switch (c.kind) {
    case K::kPlay:
    case K::kPlayBlendSpace: {
      Result<std::uint32_t> l = c.layer.empty() ? Result<std::uint32_t>(0u) : layer(c.layer, where);
      if (!l) return l.error();
      Result<PlayerId> p = start(c, c.motion, c.id, *l);
      if (!p) return p.error();
      return {};
    }
    case K::kCrossFade:
    case K::kInertialize: {
      Result<PlayerId> from = player(c.id);
      if (!from) return from.error();
      PlayerId to = find(c.to);
      if (!to.valid()) {
        Result<std::uint32_t> l =
            c.layer.empty() ? Result<std::uint32_t>(a.info(*from).layer) : layer(c.layer, where);
        if (!l) return l.error();
        Result<PlayerId> started = start(c, c.to, c.name.empty() ? c.to : c.name, *l);
        if (!started) return started.error();
        to = *started;
      }
      const Status s = c.kind == K::kCrossFade ? a.cross_fade(*from, to, c.duration, c.curve)
                                               : a.inertialize(*from, to, c.duration);
      if (!s) return make_error(where, s.error().message);
      return {};
    }
    case K::kSetLayerWeight: {
      Result<std::uint32_t> l = layer(c.layer, where);
      if (!l) return l.error();
      (void)a.set_layer_weight(*l, c.value);
      return {};
    }
    case K::kSetParam:
    case K::kSetBool:
    case K::kTrigger:
      return script_detail::set_machine_parameter(machine_ ? &*machine_ : nullptr, c, where);
    case K::kSetMorph:
    case K::kFadeMorph:
    case K::kReleaseMorph:
      return apply_morph(c);
    case K::kIk:
      return edits_->set(c, where);
    case K::kReleaseIk:
      return edits_->release(c, where);
    case K::kStick:
    case K::kWaypoints:
      return make_error(where, "steers a motion matcher: the script has no \"motion_matching\"");
    default:
      break;
  }
  Result<PlayerId> p = player(c.id);
  if (!p) return p.error();
  Status s;
  switch (c.kind) {
    case K::kStop:
      a.stop(*p);
      break;
    case K::kPause:
    case K::kResume:
      a.set_paused(*p, c.kind == K::kPause);
      break;
    case K::kSeek:
      s = a.set_time(*p, c.value);
      break;
    case K::kSetSpeed:
      (void)a.set_time_scale(*p, c.value);
      break;
    case K::kSetWeight:
      (void)a.set_weight(*p, c.value);
      break;
    case K::kSetTicksPerSecond:
      (void)a.set_ticks_per_second(*p, c.value);
      break;
    case K::kFadeIn:
      s = a.fade_in(*p, c.duration, c.curve);
      break;
    case K::kFadeOut:
      s = a.fade_out(*p, c.duration, c.curve);
      break;
    case K::kWarp:
      s = a.warp(*p, c.value, c.duration);
      break;
    case K::kSetBlend:
      if (!a.set_blend_parameter(*p, c.x, c.y)) {
        return make_error(where, "player '" + c.id + "' is not a blend space");
      }
      break;
    default:
      break;
  }
  if (!s) return make_error(where, s.error().message);
  return {};
}

std::string ScriptRunner::name_of(PlayerId player) const {
  if (motion_) return motion_->clip_of(player);
  for (auto it = ids_.rbegin(); it != ids_.rend(); ++it) {
    if (it->second == player) return it->first;
  }
  const PlayerInfo info = animator_->info(player);
  if (info.clip != kNoId) return set_->clip(info.clip).name();
  if (info.blend_space != kNoId) return set_->blend_space(info.blend_space).name();
  return "?";
}

void ScriptRunner::advance(float dt, float offset, ScriptFrame& frame) {
  scratch_.resize(256);
  UpdateResult r;
  if (motion_) {
    r = motion_->advance(dt, scratch_);
  } else {
    edits_->advance(dt);
    r = machine_ ? machine_->update(*animator_, dt, scratch_) : animator_->update(dt, scratch_);
  }
  for (std::size_t i = 0; i < r.events_written; ++i) {
    AnimationEvent e = scratch_[i];
    e.time += offset;  // from the start of the frame's update
    frame.events.push_back(e);
  }
  UpdateResult& u = frame.update;
  u.events += r.events;
  u.events_written += r.events_written;
  u.skipped_crossings += r.skipped_crossings;
  u.dt_clamped = u.dt_clamped || r.dt_clamped;
  u.refused = u.refused || r.refused;
  // world * a * b: b's translation turns with a's rotation (root-motion deltas are unscaled).
  const Transform a = u.root_motion, b = r.root_motion;
  u.root_motion = {a.translation + rotate(a.rotation, b.translation),
                   normalize(a.rotation * b.rotation),
                   {1, 1, 1}};
}

// set_morph, fade_morph, release_morph: every slot the target names (MorphLayout::find_slots).
Status ScriptRunner::apply_morph(const ScriptCommand& c) {
  const std::string where = script_.where + ": " + c.where;
  Result<std::vector<std::uint32_t>> slots = morph_layout_.find_slots(c.name);
  if (!slots) return make_error(where, asset_->source + ": " + slots.error().message);
  for (std::uint32_t slot : *slots) {
    switch (c.kind) {
      case ScriptCommandKind::kSetMorph:
        (void)animator_->set_morph_weight(slot, c.value);
        break;
      case ScriptCommandKind::kFadeMorph:
        (void)animator_->fade_morph_weight(slot, c.value, c.duration);
        break;
      default:
        (void)animator_->release_morph_weight(slot, c.duration);
        break;
    }
  }
  return {};
}

Status ScriptRunner::next(ScriptFrame& frame) {
  const int k = next_frame_++;
  const float t = static_cast<float>(k / script_.fps);
  const float start = k == 0 ? 0.0f : static_cast<float>((k - 1) / script_.fps);
  frame.index = k;
  frame.time = t;
  frame.events.clear();
  frame.update = UpdateResult{};
  // Commands act at their own time: the update is cut there, so what plays does not depend on
  // the frame rate.
  const auto step = [&](float dt, float offset) { advance(dt, offset, frame); };
  float now = start;
  while (next_command_ < script_.timeline.size() &&
         script_.timeline[next_command_].time <= t + 1e-6f) {
    const ScriptCommand& command = script_.timeline[next_command_];
    const float at = std::clamp(command.time, now, t);
    if (at > now) step(at - now, now - start);
    now = at;
    if (Status s = motion_ ? motion_->apply(command, script_.where + ": " + command.where)
                           : apply(command);
        !s) {
      return s;
    }
    ++next_command_;
  }
  step(t - now, now - start);
  return finish(frame, true);
}

Status ScriptRunner::run(const ScriptCommand& command) {
  return motion_ ? motion_->apply(command, script_.where + ": " + command.where) : apply(command);
}

Status ScriptRunner::step(float dt, ScriptFrame& frame) {
  if (!(dt >= 0) || !std::isfinite(dt)) {
    return make_error(script_.where,
                      "step: dt must be a finite number >= 0, not " + std::to_string(dt));
  }
  frame.index = next_frame_++;
  frame.time += dt;
  frame.events.clear();
  frame.update = UpdateResult{};
  advance(dt, 0, frame);
  return finish(frame, false);
}

Animator* ScriptRunner::animator() {
  return animator_ ? &*animator_ : nullptr;
}

Status ScriptRunner::finish(ScriptFrame& frame, bool list_players) {
  if (motion_) return motion_->finish(frame);
  if (machine_ && !find(machine_->current_state_name()).valid()) {
    ids_.emplace_back(machine_->current_state_name(), machine_->current_player());
  }
  // Every player, named by its id in the script, by its state, or by what it plays.
  frame.players.clear();
  for (std::size_t i = 0; list_players && i < animator_->player_count(); ++i) {
    const PlayerId p = animator_->player(i);
    const PlayerInfo info = animator_->info(p);
    const std::string motion = info.clip != kNoId ? set_->clip(info.clip).name()
                                                  : set_->blend_space(info.blend_space).name();
    frame.players.push_back(
        {p, name_of(p), motion, animator_->options().layers[info.layer].name, info});
  }
  if (machine_) frame.state = machine_->current_state_name();
  if (!animator_->evaluate(*workspace_, local_)) {
    return make_error(script_.where, "the animator could not evaluate (workspace too small)");
  }
  frame.morph_weights.resize(set_->morph_weight_count());
  if (!animator_->evaluate_morph_weights(*workspace_, frame.morph_weights)) {
    return make_error(script_.where, "the animator could not evaluate its morph weights");
  }
  frame.model.resize(asset_->skeleton.size());
  SoaLocalToModelJob job;
  job.skeleton = &asset_->skeleton;
  job.local = local_;
  job.model = frame.model;
  (void)job.run();
  if (!edits_->empty()) {
    edited_local_.resize(asset_->skeleton.size());
    (void)from_soa(local_, edited_local_);
  }
  edits_->apply(*animator_, edited_local_, frame.model, frame);
  return {};
}

}  // namespace marrow
