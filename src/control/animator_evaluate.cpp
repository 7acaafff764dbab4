// Animator::evaluate: every weighted player sampled (compiled form where there is one), its root
// motion taken out, the layer stack blended by one SoaBlendJob, then inertialization's decaying
// offset added. Nothing allocates: poses live in the caller's AnimatorWorkspace.
#include <algorithm>
#include <cmath>

#include "animator_state.h"
#include "marrow/pose/soa_blend.h"
#include "root_motion.h"

namespace marrow {

using control_detail::Slot;
using control_detail::SlotKind;

float inertial_offset(float x0, float v0, float duration, float t) {
  if (!std::isfinite(x0) || !std::isfinite(v0) || !std::isfinite(duration) || !std::isfinite(t)) {
    return 0;
  }
  if (x0 == 0 && v0 == 0) return 0;
  float t1 = duration;
  if (x0 * v0 < 0) t1 = std::min(t1, -5 * x0 / v0);
  if (!(t1 > 1e-6f) || !(t < t1)) return 0;
  if (t <= 0) return x0;
  const double T = t1, T2 = T * T, x = x0, v = v0;
  const double a0 = (-8 * v * T - 20 * x) / T2;
  const double A = -(a0 * T2 + 6 * v * T + 12 * x) / (2 * T2 * T2 * T);
  const double B = (3 * a0 * T2 + 16 * v * T + 30 * x) / (2 * T2 * T2);
  const double C = -(3 * a0 * T2 + 12 * v * T + 20 * x) / (2 * T2 * T);
  const double s = t;
  return static_cast<float>(((((A * s + B) * s + C) * s + a0 / 2) * s + v) * s + x);
}

namespace {

constexpr std::size_t kExtraPoses = 5;  // inertialization's four, and one for AoS output

// Rotation offsets decay as the vector part of the offset quaternion (w >= 0): no trigonometry
// per frame, and the map back (w = sqrt(1 - |v|^2), apply_offsets) is smooth for offsets under a
// half turn.
Vec3 vector_part(Quat q) {
  if (q.w < 0) q = negate(q);
  return {q.x, q.y, q.z};
}

// One channel of a new offset into lane l of channel k: t1 shortened where v0 would carry x past
// zero sooner (inertialization.h). Non-finite values give a still channel.
void set_channel(control_detail::InertialGroup& g, int k, std::size_t l, float x0, float v0,
                 float duration) {
  float t1 = duration;
  if (x0 * v0 < 0) t1 = std::min(duration, -5 * x0 / v0);
  if (!std::isfinite(t1) || !(t1 > 1e-6f) || !std::isfinite(x0) || !std::isfinite(v0)) {
    x0 = v0 = 0;
    t1 = duration;
  }
  g.x0[k][l] = x0;
  g.v0t1[k][l] = v0 * t1;
  g.inv_t1[k][l] = 1 / t1;
  g.moves = g.moves || x0 != 0 || v0 != 0;
}

struct Evaluator {
  const ClipSet& set;
  const AnimatorOptions& options;
  AnimatorState& st;
  std::span<SoaTransform> poses;  // the workspace's
  std::span<Transform> aos;
  std::size_t groups;

  std::span<SoaTransform> pose(std::size_t k) const { return poses.subspan(k * groups, groups); }

  void sample(std::size_t slot, const Slot& s, double time, bool use_cursor,
              std::span<SoaTransform> out) const {
    const bool additive = set.is_additive(s.clip);
    const CompiledClip* compiled = options.prefer_compiled ? set.compiled(s.clip) : nullptr;
    if (compiled) {
      CompiledSamplingJob job;
      job.clip = compiled;
      job.time = static_cast<float>(time);
      job.rest_pose = additive ? set.soa_identity_pose() : set.skeleton().soa_rest_pose();
      if (use_cursor && st.contexts[slot].clip() == compiled) job.context = &st.contexts[slot];
      job.output = out;
      (void)job.run();
      return;
    }
    const Clip& clip = set.clip(s.clip);
    const std::span<const Transform> base =
        additive ? set.identity_pose() : set.skeleton().rest_pose();
    std::copy(base.begin(), base.end(), aos.begin());
    if (use_cursor && st.cursors[slot].clip() == &clip) {
      (void)sample_tracks(clip, static_cast<float>(time), st.cursors[slot], aos);
    } else {
      (void)sample_tracks(clip, static_cast<float>(time), aos);
    }
    (void)to_soa(aos, out);
  }

  // The layer stack of `slots` (now, or as it was before the last update) into `out`.
  void build(std::span<const Slot> slots, bool previous, bool use_cursors,
             std::span<SoaTransform> out) const {
    const auto weight_of = [&](const Slot& s) {
      return (previous ? s.prev_effective : control_detail::total_effective(slots, s)) *
             st.layer_weights[s.layer];
    };
    const auto contributes = [&](const Slot& s) {
      if (!s.active || s.kind == SlotKind::kBlendSpace) return false;
      const float w = weight_of(s);
      return options.layers[s.layer].mode == LayerMode::kAdditive ? w != 0 : w > 0;
    };
    // One unmasked normal player at or above the threshold is the blend's result bit for bit
    // (blend.h): it is sampled straight into the output and the blend is skipped.
    std::size_t count = 0, only = 0;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (contributes(slots[i])) ++count, only = i;
    }
    if (count == 1) {
      const Slot& s = slots[only];
      const LayerDesc& layer = options.layers[s.layer];
      if (layer.mode == LayerMode::kNormal && layer.mask == kNoId &&
          weight_of(s) >= options.blend_threshold) {
        sample(only, s, previous ? s.prev_playhead.local : s.playhead.local, use_cursors, out);
        remove_root_motion(s, out);
        return;
      }
    }
    SoaBlendLayer normal[kMaxAnimatorPlayers], over[kMaxAnimatorPlayers], add[kMaxAnimatorPlayers];
    std::size_t nn = 0, no = 0, na = 0, k = 0;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const Slot& s = slots[i];
      if (!contributes(s)) continue;
      const LayerDesc& layer = options.layers[s.layer];
      const std::span<SoaTransform> p = pose(k++);
      sample(i, s, previous ? s.prev_playhead.local : s.playhead.local, use_cursors, p);
      if (layer.mode == LayerMode::kNormal) remove_root_motion(s, p);
      const std::span<const float> mask =
          layer.mask == kNoId ? std::span<const float>{} : set.mask(layer.mask);
      const SoaBlendLayer entry{p, weight_of(s), mask};
      if (layer.mode == LayerMode::kNormal) normal[nn++] = entry;
      if (layer.mode == LayerMode::kOverride) over[no++] = entry;
      if (layer.mode == LayerMode::kAdditive) add[na++] = entry;
    }
    SoaBlendJob job;
    job.joint_count = set.skeleton().size();
    job.rest_pose = set.skeleton().soa_rest_pose();
    job.layers = {normal, nn};
    job.overrides = {over, no};
    job.additives = {add, na};
    job.threshold = options.blend_threshold;
    job.output = out;
    (void)job.run();
  }

  // The root joint keeps F(0) F(t)^-1 T(t): the motion since the clip's start goes to the game.
  void remove_root_motion(const Slot& s, std::span<SoaTransform> p) const {
    const JointIndex root = set.root_motion_joint();
    if (root == kNoParent || !set.root_motion_track(s.clip).enabled) return;
    SoaTransform& group = p[root / kSoaWidth];
    const Transform local = group.get(root % kSoaWidth);
    const Transform f =
        control_detail::extract(local, set.root_up_local(), set.root_motion_options());
    group.set(root % kSoaWidth,
              control_detail::remove_motion(local, f, set.root_motion_track(s.clip).start));
  }
};

// pose += the offsets at time t (seconds since the switch), through the SIMD level's kernel
// (inertial_kernels.h).
void apply_offsets(const AnimatorState& st, float t, std::span<SoaTransform> pose) {
  if (!(t < st.inertial_duration)) return;
  control_detail::control_kernels().add_inertial_offsets({st.inertial.data(),
                                                          std::min(st.inertial.size(), pose.size()),
                                                          std::max(t, 0.0f), pose.data()});
}

}  // namespace

bool Animator::evaluate(AnimatorWorkspace& ws, std::span<SoaTransform> local) {
  State& st = *state_;
  const ClipSet& set = *set_;
  const std::size_t joints = set.skeleton().size();
  const std::size_t groups = soa_group_count(joints);
  if (ws.joints_ != joints || ws.max_players_ < st.slots.size() || local.size() < groups ||
      ws.poses_.size() < groups * (st.slots.size() + kExtraPoses)) {
    return false;
  }
  Evaluator e{set, options_, st, ws.poses_, ws.aos_, groups};
  const std::size_t extra = st.slots.size();
  if (st.inertial_pending && !st.ghost.empty()) {
    // The switch: source (what was playing) and target (what plays now), each now and one frame
    // before, give the offset and its velocity per channel.
    const std::span<SoaTransform> s = e.pose(extra), sh = e.pose(extra + 1);
    const std::span<SoaTransform> t = e.pose(extra + 2), th = e.pose(extra + 3);
    const float h = st.last_dt;
    e.build(st.ghost, false, false, s);
    e.build(st.ghost, true, false, sh);
    if (st.inertial_active) {
      apply_offsets(st, st.inertial_elapsed, s);
      apply_offsets(st, st.inertial_elapsed - h, sh);
    }
    e.build(st.slots, false, true, t);
    e.build(st.slots, true, false, th);
    const float duration = st.pending_duration;
    for (control_detail::InertialGroup& g : st.inertial) g = control_detail::InertialGroup{};
    for (std::size_t j = 0; j < joints; ++j) {
      const std::size_t g = j / kSoaWidth, lane = j % kSoaWidth;
      const Transform a = s[g].get(lane), ah = sh[g].get(lane);
      const Transform b = t[g].get(lane), bh = th[g].get(lane);
      Quat q = a.rotation * conjugate(b.rotation);
      if (q.w < 0) q = negate(q);
      Quat qh = ah.rotation * conjugate(bh.rotation);
      if (dot(qh, q) < 0) qh = negate(qh);
      const Vec3 x[3] = {a.translation - b.translation, vector_part(q), a.scale - b.scale};
      const Vec3 xh[3] = {ah.translation - bh.translation, vector_part(qh), ah.scale - bh.scale};
      control_detail::InertialGroup& group = st.inertial[g];
      for (int k = 0; k < 3; ++k) {
        const Vec3 v = h > 0 ? (x[k] - xh[k]) * (1.0f / h) : Vec3{};
        set_channel(group, k * 3 + 0, lane, x[k].x, v.x, duration);
        set_channel(group, k * 3 + 1, lane, x[k].y, v.y, duration);
        set_channel(group, k * 3 + 2, lane, x[k].z, v.z, duration);
      }
    }
    // Lanes past the last joint stay still.
    for (std::size_t j = joints; j < st.inertial.size() * kSoaWidth; ++j) {
      for (int k = 0; k < 9; ++k)
        set_channel(st.inertial[j / kSoaWidth], k, j % kSoaWidth, 0, 0, duration);
    }
    st.inertial_duration = st.pending_duration;
    st.inertial_elapsed = 0;
    st.inertial_active = true;
    st.inertial_pending = false;
    std::copy(t.begin(), t.end(), local.begin());
  } else {
    e.build(st.slots, false, true, local.first(groups));
  }
  if (st.inertial_active) apply_offsets(st, st.inertial_elapsed, local);
  return true;
}

bool Animator::evaluate(AnimatorWorkspace& ws, std::span<Transform> local) {
  const std::size_t joints = set_->skeleton().size();
  const std::size_t groups = soa_group_count(joints);
  const std::size_t extra = state_->slots.size() + kExtraPoses - 1;
  if (local.size() < joints || ws.poses_.size() < groups * (extra + 1)) return false;
  const std::span<SoaTransform> soa =
      std::span<SoaTransform>(ws.poses_).subspan(extra * groups, groups);
  if (!evaluate(ws, soa)) return false;
  return from_soa(soa, local.first(joints));
}

}  // namespace marrow
