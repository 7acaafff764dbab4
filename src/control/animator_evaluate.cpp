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

Vec3 rotation_vector(Quat q) {
  if (q.w < 0) q = negate(q);
  const Vec3 v{q.x, q.y, q.z};
  const float s = length(v);
  if (!(s > 1e-12f)) return v * 2.0f;
  return v * (2.0f * std::atan2(s, q.w) / s);
}

Quat from_rotation_vector(Vec3 r) {
  const float angle = length(r);
  if (!(angle > 1e-12f)) return normalize(Quat{r.x / 2, r.y / 2, r.z / 2, 1});
  const float s = std::sin(angle / 2) / angle;
  return {r.x * s, r.y * s, r.z * s, std::cos(angle / 2)};
}

struct Evaluator {
  const ClipSet& set;
  const AnimatorOptions& options;
  Animator::State& st;
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
    SoaBlendLayer normal[kMaxAnimatorPlayers], over[kMaxAnimatorPlayers], add[kMaxAnimatorPlayers];
    std::size_t nn = 0, no = 0, na = 0, k = 0;
    const JointIndex root = set.root_motion_joint();
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const Slot& s = slots[i];
      if (!s.active || s.kind == SlotKind::kBlendSpace) continue;
      const LayerDesc& layer = options.layers[s.layer];
      const float w = (previous ? s.prev_effective : control_detail::total_effective(slots, s)) *
                      st.layer_weights[s.layer];
      if (layer.mode == LayerMode::kAdditive ? w == 0 : !(w > 0)) continue;
      const std::span<SoaTransform> p = pose(k++);
      sample(i, s, previous ? s.prev_playhead.local : s.playhead.local, use_cursors, p);
      if (root != kNoParent && layer.mode == LayerMode::kNormal &&
          set.root_motion_track(s.clip).enabled) {
        SoaTransform& group = p[root / kSoaWidth];
        const Transform local = group.get(root % kSoaWidth);
        const Transform f =
            control_detail::extract(local, set.root_up_local(), set.root_motion_options());
        group.set(root % kSoaWidth,
                  control_detail::remove_motion(local, f, set.root_motion_track(s.clip).start));
      }
      const std::span<const float> mask =
          layer.mask == kNoId ? std::span<const float>{} : set.mask(layer.mask);
      const SoaBlendLayer entry{p, w, mask};
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
};

// out = target + the offsets at time t.
void apply_offsets(std::span<const control_detail::InertialChannel> channels, float duration,
                   float t, std::size_t joints, std::span<SoaTransform> pose) {
  for (std::size_t j = 0; j < joints; ++j) {
    const control_detail::InertialChannel* c = &channels[j * 9];
    float x[9];
    bool any = false;
    for (int k = 0; k < 9; ++k) {
      x[k] = inertial_offset(c[k].x0, c[k].v0, duration, t);
      any = any || x[k] != 0;
    }
    if (!any) continue;
    SoaTransform& group = pose[j / kSoaWidth];
    Transform local = group.get(j % kSoaWidth);
    local.translation += Vec3{x[0], x[1], x[2]};
    local.rotation = normalize(from_rotation_vector({x[3], x[4], x[5]}) * local.rotation);
    local.scale += Vec3{x[6], x[7], x[8]};
    group.set(j % kSoaWidth, local);
  }
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
      apply_offsets(st.inertial, st.inertial_duration, st.inertial_elapsed, joints, s);
      apply_offsets(st.inertial, st.inertial_duration, std::max(0.0f, st.inertial_elapsed - h),
                    joints, sh);
    }
    e.build(st.slots, false, true, t);
    e.build(st.slots, true, false, th);
    for (std::size_t j = 0; j < joints; ++j) {
      const std::size_t g = j / kSoaWidth, lane = j % kSoaWidth;
      const Transform a = s[g].get(lane), ah = sh[g].get(lane);
      const Transform b = t[g].get(lane), bh = th[g].get(lane);
      Quat q = a.rotation * conjugate(b.rotation);
      if (q.w < 0) q = negate(q);
      Quat qh = ah.rotation * conjugate(bh.rotation);
      if (dot(qh, q) < 0) qh = negate(qh);
      const Vec3 x[3] = {a.translation - b.translation, rotation_vector(q), a.scale - b.scale};
      const Vec3 xh[3] = {ah.translation - bh.translation, rotation_vector(qh),
                          ah.scale - bh.scale};
      control_detail::InertialChannel* c = &st.inertial[j * 9];
      for (int k = 0; k < 3; ++k) {
        const Vec3 v = h > 0 ? (x[k] - xh[k]) * (1.0f / h) : Vec3{};
        c[k * 3 + 0] = {x[k].x, v.x};
        c[k * 3 + 1] = {x[k].y, v.y};
        c[k * 3 + 2] = {x[k].z, v.z};
      }
    }
    st.inertial_duration = st.pending_duration;
    st.inertial_elapsed = 0;
    st.inertial_active = true;
    st.inertial_pending = false;
    std::copy(t.begin(), t.end(), local.begin());
  } else {
    e.build(st.slots, false, true, local.first(groups));
  }
  if (st.inertial_active) {
    apply_offsets(st.inertial, st.inertial_duration, st.inertial_elapsed, joints, local);
  }
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
