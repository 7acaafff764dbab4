#include "io/control/script_ik.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "marrow/ik/aim_ik.h"
#include "marrow/ik/chain_ik.h"
#include "marrow/ik/two_bone_ik.h"
#include "marrow/pose/local_to_model.h"

namespace marrow::script_detail {

Result<JointIndex> find_script_joint(const Asset& asset, const std::string& name) {
  const Skeleton& skeleton = asset.skeleton;
  if (name.size() > 1 && name[0] == '#' &&
      std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const unsigned long j = std::stoul(name.substr(1));
    if (j < skeleton.size()) return static_cast<JointIndex>(j);
    return Error{"joint " + name + " is out of range (the file has " +
                 std::to_string(skeleton.size()) + " nodes)"};
  }
  std::vector<JointIndex> named, skin_joints;
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    if (skeleton.name(j) != name) continue;
    named.push_back(static_cast<JointIndex>(j));
    if (asset.is_skin_joint(static_cast<JointIndex>(j)))
      skin_joints.push_back(static_cast<JointIndex>(j));
  }
  if (named.size() == 1) return named[0];
  if (named.empty()) return Error{"no joint named '" + name + "'"};
  if (skin_joints.size() == 1) return skin_joints[0];
  return Error{std::to_string(named.size()) + " nodes are named '" + name +
               "'; give one as \"#N\" (marrow info lists the indices)"};
}

namespace {

// The ancestor `levels` up from `joint`, or an error naming what is missing.
Result<JointIndex> ancestor(const Skeleton& skeleton, JointIndex joint, int levels,
                            const std::string& what) {
  JointIndex j = joint;
  for (int i = 0; i < levels; ++i) {
    j = skeleton.parent(j);
    if (j == kNoParent) {
      return Error{"'" + std::string(skeleton.name(joint)) + "' has no " + what};
    }
  }
  return j;
}

}  // namespace

Result<ScriptPoseEdits> ScriptPoseEdits::create(const Asset& asset, const ClipSet& set,
                                                const AnimationScript& script) {
  ScriptPoseEdits edits;
  edits.asset_ = &asset;
  edits.set_ = &set;
  if (!script.foot_planting) return edits;
  const ScriptFootPlanting& desc = *script.foot_planting;
  const Skeleton& skeleton = asset.skeleton;
  const auto fail = [&](const std::string& member, const Error& e) {
    return make_error(script.where, "foot_planting." + member + ": " + e.message);
  };
  Planting p;
  p.desc = desc;
  Result<JointIndex> pelvis = find_script_joint(asset, desc.pelvis);
  if (!pelvis) return fail("pelvis", pelvis.error());
  p.pelvis = *pelvis;
  std::vector<FootJoints> feet;
  for (std::size_t l = 0; l < desc.legs.size(); ++l) {
    const ScriptFootPlanting::Leg& leg = desc.legs[l];
    const std::string at = "legs[" + std::to_string(l) + "]";
    const auto joint = [&](const std::string& name, JointIndex below, int levels,
                           const char* what) -> Result<JointIndex> {
      if (name.empty()) return ancestor(skeleton, below, levels, what);
      return find_script_joint(asset, name);
    };
    Result<JointIndex> foot = find_script_joint(asset, leg.foot);
    if (!foot) return fail(at + ".foot", foot.error());
    Result<JointIndex> knee = joint(leg.knee, *foot, 1, "knee");
    if (!knee) return fail(at + ".knee", knee.error());
    Result<JointIndex> hip = joint(leg.hip, *knee, 1, "hip");
    if (!hip) return fail(at + ".hip", hip.error());
    Result<JointIndex> toe =
        leg.toe.empty() ? Result<JointIndex>(kNoParent) : find_script_joint(asset, leg.toe);
    if (!toe) return fail(at + ".toe", toe.error());
    if (!skeleton.is_descendant(*hip, p.pelvis) || *hip == p.pelvis) {
      return make_error(script.where, "foot_planting." + at + ": the hip '" +
                                          std::string(skeleton.name(*hip)) +
                                          "' is not below the pelvis '" + desc.pelvis + "'");
    }
    if (!skeleton.is_descendant(*foot, *knee) || !skeleton.is_descendant(*knee, *hip) ||
        *foot == *knee || *knee == *hip) {
      return make_error(script.where, "foot_planting." + at +
                                          ": hip, knee and foot must each lie below the last");
    }
    FootPlantLeg plant;
    plant.hip = *hip, plant.knee = *knee, plant.ankle = *foot;
    plant.ground_height = desc.ground_height;
    plant.pole_vector = leg.pole;
    p.legs.push_back(plant);
    feet.push_back({.foot = *foot, .toe = *toe, .knee = *knee, .hip = *hip});
  }
  FootContactOptions options;
  options.up = desc.up;
  for (std::size_t c = 0; c < set.clip_count(); ++c) {
    const ClipId id = static_cast<ClipId>(c);
    if (set.is_additive(id)) {
      p.contacts.emplace_back();  // deltas have no feet on the ground
      continue;
    }
    Result<FootContacts> contacts = detect_foot_contacts(skeleton, set.clip(id), feet, options);
    if (!contacts) {
      return make_error(script.where, "foot_planting: clip '" + set.clip(id).name() +
                                          "': " + contacts.error().message);
    }
    p.contacts.push_back(std::move(contacts).value());
  }
  edits.planting_ = std::move(p);
  return edits;
}

Result<ScriptPoseEdits::Constraint> ScriptPoseEdits::resolve(const ScriptCommand& c,
                                                             const std::string& where) const {
  const Skeleton& skeleton = asset_->skeleton;
  const ScriptIk& ik = c.ik;
  Constraint k;
  k.id = c.id;
  k.ik = ik;
  const auto fail = [&](const char* member, const Error& e) {
    return make_error(where + ".ik." + member, e.message);
  };
  Result<JointIndex> joint = find_script_joint(*asset_, ik.joint);
  if (!joint) return fail("joint", joint.error());
  k.joint = *joint;
  if (!ik.target_joint.empty()) {
    Result<JointIndex> target = find_script_joint(*asset_, ik.target_joint);
    if (!target) return fail("target", target.error());
    k.target_joint = *target;
  }
  if (ik.solver == ScriptIkSolver::kTwoBone) {
    Result<JointIndex> mid = ik.mid.empty() ? ancestor(skeleton, k.joint, 1, "parent")
                                            : find_script_joint(*asset_, ik.mid);
    if (!mid) return fail("mid", mid.error());
    Result<JointIndex> start = ik.start.empty() ? ancestor(skeleton, *mid, 1, "parent")
                                                : find_script_joint(*asset_, ik.start);
    if (!start) return fail("start", start.error());
    if (*mid == k.joint || *start == *mid || !skeleton.is_descendant(k.joint, *mid) ||
        !skeleton.is_descendant(*mid, *start)) {
      return make_error(where + ".ik", "start, mid and joint must each lie below the last");
    }
    k.mid = *mid, k.start = *start;
  } else if (ik.solver == ScriptIkSolver::kChain) {
    Result<JointIndex> root = find_script_joint(*asset_, ik.root);
    if (!root) return fail("root", root.error());
    int length = 1;
    for (JointIndex j = k.joint; j != *root && j != kNoParent; j = skeleton.parent(j)) ++length;
    if (k.joint == *root || !skeleton.is_descendant(k.joint, *root) ||
        length > static_cast<int>(kMaxChainJoints)) {
      return make_error(where + ".ik.root", "'" + ik.root + "' must be an ancestor of '" +
                                                ik.joint + "' at most " +
                                                std::to_string(kMaxChainJoints - 1) + " joints up");
    }
    k.root = *root;
  }
  return k;
}

Status ScriptPoseEdits::set(const ScriptCommand& c, const std::string& where) {
  Result<Constraint> k = resolve(c, where);
  if (!k) return k.error();
  auto it = std::find_if(constraints_.begin(), constraints_.end(),
                         [&](const Constraint& x) { return x.id == c.id; });
  const float from = it != constraints_.end() ? it->weight : 0.0f;
  k->goal = c.ik.weight;
  k->weight = c.duration > 0 ? from : k->goal;
  k->rate = c.duration > 0 ? std::fabs(k->goal - from) / c.duration : 0.0f;
  if (it != constraints_.end()) {
    *it = std::move(k).value();
  } else {
    constraints_.push_back(std::move(k).value());
  }
  return {};
}

Status ScriptPoseEdits::release(const ScriptCommand& c, const std::string& where) {
  auto it = std::find_if(constraints_.begin(), constraints_.end(),
                         [&](const Constraint& x) { return x.id == c.id; });
  if (it == constraints_.end()) {
    std::string list;
    for (const Constraint& k : constraints_) list += (list.empty() ? "" : ", ") + k.id;
    return make_error(where, "no IK constraint '" + c.id +
                                 "' is set (set: " + (list.empty() ? "none" : list) + ")");
  }
  if (c.duration > 0) {
    it->goal = 0;
    it->rate = it->weight / c.duration;
    it->releasing = true;
  } else {
    constraints_.erase(it);
  }
  return {};
}

void ScriptPoseEdits::advance(float dt) {
  for (Constraint& k : constraints_) {
    const float step = k.rate > 0 ? k.rate * dt : std::fabs(k.goal - k.weight);
    k.weight =
        k.weight < k.goal ? std::min(k.goal, k.weight + step) : std::max(k.goal, k.weight - step);
    // Within float noise of the goal (frame times are differences of floats) is the goal.
    if (std::fabs(k.goal - k.weight) < 1e-5f) k.weight = k.goal;
  }
  std::erase_if(constraints_, [](const Constraint& k) { return k.releasing && k.weight <= 0; });
}

void ScriptPoseEdits::contact_weights(const Animator& animator, std::span<float> weights) const {
  std::fill(weights.begin(), weights.end(), 0.0f);
  const Planting& p = *planting_;
  float total = 0;
  const auto add = [&](ClipId clip, float time, float weight) {
    const FootContacts& contacts = p.contacts[clip];
    if (contacts.feet.empty()) return;  // an additive clip
    for (std::size_t l = 0; l < p.legs.size(); ++l) {
      weights[l] +=
          weight * contact_weight(contacts.feet[l], time, contacts.duration, p.desc.blend);
    }
    total += weight;
  };
  // Players on whole-body layers (not additive, no mask) decide where the feet are.
  for (std::size_t i = 0; i < animator.player_count(); ++i) {
    const PlayerInfo info = animator.info(animator.player(i));
    const LayerDesc& layer = animator.options().layers[info.layer];
    if (!info.active || info.effective_weight <= 0 || layer.mode == LayerMode::kAdditive ||
        layer.mask != kNoId) {
      continue;
    }
    if (info.clip != kNoId) {
      add(info.clip, info.time, info.effective_weight);
      continue;
    }
    // A blend space: its samples at the leader's phase, by the space's weights.
    const BlendSpace& space = set_->blend_space(info.blend_space);
    float sample_weights[256];
    if (space.samples().size() > 256) continue;
    space.weights(info.blend_x, info.blend_y, sample_weights);
    const float phase = info.duration > 0 ? info.time / info.duration : 0.0f;
    for (std::size_t s = 0; s < space.samples().size(); ++s) {
      if (sample_weights[s] <= 0) continue;
      const ClipId clip = space.samples()[s].clip;
      add(clip, phase * set_->duration(clip), info.effective_weight * sample_weights[s]);
    }
  }
  if (total > 0) {
    for (float& w : weights) w = std::clamp(w / total, 0.0f, 1.0f);
  }
}

void ScriptPoseEdits::plant(const Animator& animator, std::span<Transform> local,
                            std::span<Mat4> model, ScriptFrame& frame) {
  Planting& p = *planting_;
  float weights[kMaxFootPlantLegs];
  contact_weights(animator, std::span<float>(weights, p.legs.size()));
  for (std::size_t l = 0; l < p.legs.size(); ++l) p.legs[l].contact = weights[l];
  FootPlantingJob job;
  job.skeleton = &asset_->skeleton;
  job.pelvis = p.pelvis;
  job.legs = p.legs;
  job.up = p.desc.up;
  job.animation_ground = p.desc.animation_ground;
  job.plane = p.desc.has_plane ? &p.desc.plane : nullptr;
  job.align_feet = p.desc.align_feet;
  job.soft_limit = p.desc.soft_limit;
  job.max_pelvis_offset = p.desc.max_pelvis_offset;
  job.local = local;
  job.model = model;
  FootPlantingResult result;
  job.result = &result;
  (void)job.run();
  frame.foot_contacts.assign(weights, weights + p.legs.size());
  frame.pelvis_offset = result.pelvis_offset;
}

bool ScriptPoseEdits::solve(const Constraint& k, std::span<Transform> local,
                            std::span<Mat4> model) const {
  const Skeleton* skeleton = &asset_->skeleton;
  const Vec3 target =
      k.target_joint != kNoParent ? model[k.target_joint].translation() + k.ik.target : k.ik.target;
  bool reached = false;
  JointIndex from = k.joint;
  switch (k.ik.solver) {
    case ScriptIkSolver::kTwoBone: {
      TwoBoneIkJob job{.skeleton = skeleton, .start = k.start, .mid = k.mid, .end = k.joint};
      job.target = target, job.pole_vector = k.ik.pole, job.weight = k.weight;
      job.soft_limit = k.ik.soft_limit, job.model = model, job.local = local;
      job.reached = &reached;
      (void)job.run();
      from = k.start;
      break;
    }
    case ScriptIkSolver::kAim: {
      AimIkJob job{.skeleton = skeleton, .joint = k.joint, .target = target};
      job.forward = k.ik.forward, job.up = k.ik.up;
      if (length(k.ik.pole) > 0) job.pole_vector = k.ik.pole;
      job.max_angle = k.ik.max_angle * std::numbers::pi_v<float> / 180;
      job.weight = k.weight, job.model = model, job.local = local, job.reached = &reached;
      (void)job.run();
      break;
    }
    case ScriptIkSolver::kChain: {
      ChainIkJob job{.skeleton = skeleton, .root = k.root, .tip = k.joint, .target = target};
      job.weight = k.weight, job.model = model, job.local = local, job.reached = &reached;
      (void)job.run();
      from = k.root;
      break;
    }
  }
  (void)local_to_model(*skeleton, local, model, from);
  return reached;
}

void ScriptPoseEdits::apply(const Animator& animator, std::span<Transform> local,
                            std::span<Mat4> model, ScriptFrame& frame) {
  frame.ik.clear();
  frame.foot_contacts.clear();
  frame.pelvis_offset = 0;
  if (planting_) plant(animator, local, model, frame);
  for (const Constraint& k : constraints_) {
    const bool reached = k.weight > 0 && solve(k, local, model);
    frame.ik.push_back({k.id, k.weight, reached});
  }
}

}  // namespace marrow::script_detail
