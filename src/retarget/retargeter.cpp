#include "marrow/retarget/retargeter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "base/job_problem.h"
#include "ik/ik_math.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/sampling.h"
#include "marrow/pose/force.h"
#include "marrow/pose/local_to_model.h"

namespace marrow {

using namespace ik_detail;

namespace {

using P = HumanoidPart;

constexpr float kMaxAxisDeviation = 30.0f * 3.14159265f / 180.0f;

// A reference pose's model matrices and their rotations.
struct Reference {
  std::vector<Mat4> model;
  std::vector<Quat> rotation;
  Vec3 pos(JointIndex j) const { return model[j].translation(); }
};

Result<Reference> make_reference(const Skeleton& s, std::span<const Transform> pose,
                                 const char* which) {
  if (pose.empty()) pose = s.rest_pose();
  if (pose.size() != s.size()) {
    return make_error(std::string(which) + " reference pose",
                      "has " + std::to_string(pose.size()) + " transforms for " +
                          std::to_string(s.size()) + " joints");
  }
  for (std::size_t j = 0; j < pose.size(); ++j) {
    if (!is_finite(pose[j])) {
      return make_error(std::string(which) + " reference pose",
                        "joint '" + s.name(j) + "' is not finite");
    }
  }
  Reference r;
  r.model.resize(s.size());
  (void)local_to_model(s, pose, r.model);
  r.rotation.resize(s.size());
  for (std::size_t j = 0; j < s.size(); ++j) r.rotation[j] = rotation_of(r.model[j]);
  return r;
}

// The principal axis (+-x, +-y, +-z) nearest to v; `deviation` is the angle between them.
Vec3 snap(Vec3 v, float& deviation) {
  const Vec3 axes[] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  const Vec3 d = normalized_or(v, {0, 0, 0});
  Vec3 best = axes[0];
  for (const Vec3& a : axes) {
    if (dot(d, a) > dot(d, best)) best = a;
  }
  deviation = std::acos(std::clamp(dot(d, best), -1.0f, 1.0f));
  return best;
}

// The character's axes in a reference pose, snapped: left, up, forward = left x up.
Result<Quat> character_axes(const HumanoidRig& rig, const Reference& ref, const Skeleton& s,
                            const char* which) {
  const JointIndex hips = rig.joint(P::kHips);
  JointIndex top = rig.joint(P::kHead);
  if (top == kNoParent && rig.has(P::kNeck)) top = rig[P::kNeck].back();
  if (top == kNoParent && rig.has(P::kSpine)) top = rig[P::kSpine].back();
  const Vec3 up = top == kNoParent ? Vec3{0, 0, 0} : ref.pos(top) - ref.pos(hips);
  const Vec3 left = ref.pos(rig.joint(P::kLeftThigh)) - ref.pos(rig.joint(P::kRightThigh));
  const std::string where = std::string(which) + " reference pose";
  if (top == kNoParent) {
    return make_error(where, "cannot tell up: no head, neck or spine was matched above the hips '" +
                                 s.name(hips) + "' (name the head in a map)");
  }
  if (!(length(up) > kTiny) || !(length(left) > kTiny)) {
    const bool up_fails = !(length(up) > kTiny);
    return make_error(where, std::string("cannot tell ") + (up_fails ? "up" : "left") + ": '" +
                                 (up_fails ? s.name(hips) + "' and '" + s.name(top)
                                           : s.name(rig.joint(P::kLeftThigh)) + "' and '" +
                                                 s.name(rig.joint(P::kRightThigh))) +
                                 "' lie at the same place in the reference pose");
  }
  float up_off = 0, left_off = 0;
  const Vec3 up_axis = snap(up, up_off);
  const Vec3 left_axis = snap(left - up_axis * dot(left, up_axis), left_off);
  const auto degrees = [](float r) {
    return std::to_string(static_cast<int>(r * 57.2958f + 0.5f));
  };
  if (up_off > kMaxAxisDeviation || left_off > kMaxAxisDeviation ||
      std::fabs(dot(up_axis, left_axis)) > 0.5f) {
    return make_error(where, "is not upright along the model axes (up is " + degrees(up_off) +
                                 " degrees and left " + degrees(left_off) +
                                 " degrees from the nearest axis): give a T-pose as the "
                                 "reference pose");
  }
  return quat_from_rotation_columns(left_axis, up_axis, cross(left_axis, up_axis));
}

struct LegMeasures {
  float hip_height = 0;
  float leg_length = 0;
  float floor = 0;  // height of the lowest foot joint (ankle or toe), along up
};

LegMeasures measure_legs(const HumanoidRig& rig, const Reference& ref, Vec3 up) {
  LegMeasures m;
  const Vec3 hips = ref.pos(rig.joint(P::kHips));
  for (const auto& [thigh_p, shin_p, foot_p, toe_p] :
       {std::array{P::kLeftThigh, P::kLeftShin, P::kLeftFoot, P::kLeftToe},
        std::array{P::kRightThigh, P::kRightShin, P::kRightFoot, P::kRightToe}}) {
    const Vec3 thigh = ref.pos(rig.joint(thigh_p)), shin = ref.pos(rig.joint(shin_p)),
               foot = ref.pos(rig.joint(foot_p));
    const float leg = length(shin - thigh) + length(foot - shin);
    float lowest = dot(foot, up);
    if (rig.has(toe_p)) lowest = std::min(lowest, dot(ref.pos(rig.joint(toe_p)), up));
    m.leg_length += 0.5f * leg;
    m.hip_height += 0.5f * (dot(hips - thigh, up) + leg + dot(foot, up) - lowest);
    m.floor = thigh_p == P::kLeftThigh ? lowest : std::min(m.floor, lowest);
  }
  return m;
}

// Per limb part: the next mapped part its bone points to. Only limbs are aligned: their
// reference directions change with the reference pose (arms T or A, legs together or spread).
// Feet, toes, the spine, the neck and the head are not: both references stand flat-footed and
// upright, and their directions differ between rigs by anatomy (where a toe joint or a head-top
// marker sits), which aligning would turn into a pose.
std::optional<P> next_part(P p) {
  switch (p) {
    case P::kLeftShoulder:
      return P::kLeftUpperArm;
    case P::kLeftUpperArm:
      return P::kLeftForearm;
    case P::kLeftForearm:
      return P::kLeftHand;
    case P::kRightShoulder:
      return P::kRightUpperArm;
    case P::kRightUpperArm:
      return P::kRightForearm;
    case P::kRightForearm:
      return P::kRightHand;
    case P::kLeftThigh:
      return P::kLeftShin;
    case P::kLeftShin:
      return P::kLeftFoot;
    case P::kRightThigh:
      return P::kRightShin;
    case P::kRightShin:
      return P::kRightFoot;
    default:
      return std::nullopt;
  }
}
// The part whose swing a part without its own direction borrows.
std::optional<P> parent_part(P p) {
  switch (p) {
    case P::kLeftHand:
      return P::kLeftForearm;
    case P::kRightHand:
      return P::kRightForearm;
    case P::kLeftUpperArm:
      return P::kLeftShoulder;
    case P::kRightUpperArm:
      return P::kRightShoulder;
    case P::kLeftForearm:
      return P::kLeftUpperArm;
    case P::kRightForearm:
      return P::kRightUpperArm;
    case P::kLeftShin:
      return P::kLeftThigh;
    case P::kRightShin:
      return P::kRightThigh;
    default:
      return std::nullopt;
  }
}

// Fraction of the chain's length at the end of each joint's bone (the last is 1).
std::vector<float> chain_fractions(const std::vector<JointIndex>& chain, JointIndex end,
                                   const Reference& ref) {
  const std::size_t m = chain.size();
  std::vector<float> u(m);
  float total = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const JointIndex next = i + 1 < m ? chain[i + 1] : end;
    if (next != kNoParent) total += length(ref.pos(next) - ref.pos(chain[i]));
    u[i] = total;
  }
  for (std::size_t i = 0; i < m; ++i) {
    u[i] = total > kTiny ? u[i] / total : static_cast<float>(i + 1) / static_cast<float>(m);
  }
  if (m > 0) u[m - 1] = 1;
  return u;
}

// Which source joints drive each joint of a target chain: the same joint when both chains are
// as long; otherwise the two source samples around the target joint's fraction of its chain
// (the source's base at 0, each source joint at the end of its bone), slerped by `fraction`.
struct ChainLink {
  JointIndex target, source_a, source_b;
  float fraction;
};
std::vector<ChainLink> chain_links(const RetargetChain& c, const Reference& S0,
                                   const Reference& T0) {
  std::vector<ChainLink> out;
  const std::size_t m = c.source.size(), n = c.target.size();
  if (m == n) {
    for (std::size_t i = 0; i < n; ++i) out.push_back({c.target[i], c.source[i], c.source[i], 0});
    return out;
  }
  std::vector<JointIndex> joints;
  std::vector<float> at;
  if (c.source_base != kNoParent) {
    joints.push_back(c.source_base);
    at.push_back(0);
  }
  const std::vector<float> u = chain_fractions(c.source, c.source_end, S0);
  for (std::size_t i = 0; i < m; ++i) {
    joints.push_back(c.source[i]);
    at.push_back(u[i]);
  }
  if (m == 0 && c.source_end != kNoParent) {
    joints.push_back(c.source_end);
    at.push_back(1);
  }
  if (joints.empty()) return out;
  const std::vector<float> v = chain_fractions(c.target, c.target_end, T0);
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t i = 0;
    while (i + 1 < at.size() && at[i + 1] < v[k]) ++i;
    const std::size_t i1 = std::min(i + 1, at.size() - 1);
    const float span = at[i1] - at[i];
    const float f = span > kTiny ? std::clamp((v[k] - at[i]) / span, 0.0f, 1.0f) : 0.0f;
    out.push_back({c.target[k], joints[i], joints[i1], f});
  }
  return out;
}

// Every joint the map names lies in its skeleton (a map made for other skeletons is an error).
Status check_map_joints(const Skeleton& source, const Skeleton& target, const RetargetMap& map) {
  const auto in_range = [](JointIndex j, const Skeleton& s) {
    return j == kNoParent || j < s.size();
  };
  for (const RetargetPair& p : map.pairs) {
    if (p.source >= source.size() || p.target >= target.size()) {
      return make_error("retargeter", "the map names joints the skeletons do not have");
    }
  }
  for (const RetargetChain& c : map.chains) {
    for (JointIndex j : c.source) {
      if (j >= source.size()) return make_error("retargeter", "chain joint out of range");
    }
    for (JointIndex j : c.target) {
      if (j >= target.size()) return make_error("retargeter", "chain joint out of range");
    }
    if (!in_range(c.source_base, source) || !in_range(c.source_end, source) ||
        !in_range(c.target_base, target) || !in_range(c.target_end, target)) {
      return make_error("retargeter", "chain joint out of range");
    }
  }
  if (!in_range(map.source_hips, source) || !in_range(map.target_hips, target)) {
    return make_error("retargeter", "hips out of range");
  }
  return {};
}

// Per part, the swing turning the target reference's bone onto the source's seen through A
// (the hips: the line between the thighs); parts without a direction borrow their parent part's.
std::array<std::optional<Quat>, kHumanoidPartCount> part_swings(const HumanoidRig& sr,
                                                                const HumanoidRig& tr,
                                                                const Reference& S0,
                                                                const Reference& T0, Quat A) {
  std::array<std::optional<Quat>, kHumanoidPartCount> part_swing;
  const auto swing_between = [&](Vec3 target_dir, Vec3 source_dir) -> std::optional<Quat> {
    if (!(length(target_dir) > kTiny) || !(length(source_dir) > kTiny)) return std::nullopt;
    return rotation_between(target_dir, rotate(A, source_dir));
  };
  part_swing[static_cast<std::size_t>(P::kHips)] =
      swing_between(T0.pos(tr.joint(P::kLeftThigh)) - T0.pos(tr.joint(P::kRightThigh)),
                    S0.pos(sr.joint(P::kLeftThigh)) - S0.pos(sr.joint(P::kRightThigh)));
  for (std::size_t i = 0; i < kHumanoidPartCount; ++i) {
    const P p = static_cast<P>(i);
    const std::optional<P> next = next_part(p);
    if (!next || !sr.has(p) || !tr.has(p) || !sr.has(*next) || !tr.has(*next)) continue;
    part_swing[i] = swing_between(T0.pos(tr.joint(*next)) - T0.pos(tr.joint(p)),
                                  S0.pos(sr.joint(*next)) - S0.pos(sr.joint(p)));
  }
  // Parts without a direction borrow their parent part's (repeat: chains of borrowing).
  for (int pass = 0; pass < 3; ++pass) {
    for (std::size_t i = 0; i < kHumanoidPartCount; ++i) {
      const std::optional<P> parent = parent_part(static_cast<P>(i));
      if (!part_swing[i] && parent) part_swing[i] = part_swing[static_cast<std::size_t>(*parent)];
    }
  }
  return part_swing;
}

// The target's limb joints that hang away from the part above them, with their place in that
// part's frame in the reference.
std::vector<Retargeter::Follower> limb_followers(const Skeleton& target, const HumanoidRig& tr,
                                                 const Reference& T0) {
  std::vector<Retargeter::Follower> out;
  for (const auto& [above, part] :
       {std::pair{P::kLeftThigh, P::kLeftShin}, std::pair{P::kLeftShin, P::kLeftFoot},
        std::pair{P::kRightThigh, P::kRightShin}, std::pair{P::kRightShin, P::kRightFoot},
        std::pair{P::kLeftUpperArm, P::kLeftForearm}, std::pair{P::kLeftForearm, P::kLeftHand},
        std::pair{P::kRightUpperArm, P::kRightForearm},
        std::pair{P::kRightForearm, P::kRightHand}}) {
    const JointIndex a = tr.joint(above), j = tr.joint(part);
    if (a == kNoParent || j == kNoParent || target.is_descendant(j, a)) continue;
    Mat4 inverse = Mat4::identity();
    if (!invert_affine(T0.model[a], inverse)) continue;
    out.push_back({j, a, transform_point(inverse, T0.pos(j))});
  }
  return out;
}

// The joints whose translation a frame writes: the hips, then the followers.
std::vector<JointIndex> translated_joints_of(JointIndex hips,
                                             std::span<const Retargeter::Follower> followers) {
  std::vector<JointIndex> out;
  if (hips != kNoParent) out.push_back(hips);
  for (const Retargeter::Follower& f : followers) {
    if (f.joint != hips) out.push_back(f.joint);
  }
  return out;
}

// The turn from the source character's axes to the target's, the root scale and each side's up
// and floor: measured on the humanoid rigs for the rest-relative method, else the identity and 1
// (a given root_scale_factor wins).
struct AxesAndScale {
  Quat axes = Quat::identity();
  float root_scale = 1;
  bool humanoid = false;  // the ups and floors below were measured
  Vec3 source_up{0, 1, 0}, target_up{0, 1, 0};
  float source_floor = 0, target_floor = 0;
};

Result<AxesAndScale> axes_and_scale(const Skeleton& source, const Skeleton& target,
                                    const RetargetMap& map, const Reference& S0,
                                    const Reference& T0, const RetargetOptions& options) {
  AxesAndScale out;
  if (map.humanoid && options.method == RetargetMethod::kRestRelative) {
    Result<Quat> fs = character_axes(map.source_rig, S0, source, "source");
    if (!fs) return fs.error();
    Result<Quat> ft = character_axes(map.target_rig, T0, target, "target");
    if (!ft) return ft.error();
    out.axes = normalize(*ft * conjugate(*fs));
    const LegMeasures ms = measure_legs(map.source_rig, S0, rotate(*fs, {0, 1, 0}));
    const LegMeasures mt = measure_legs(map.target_rig, T0, rotate(*ft, {0, 1, 0}));
    const float s_measure =
        options.root_scale == RootScale::kLegLength ? ms.leg_length : ms.hip_height;
    const float t_measure =
        options.root_scale == RootScale::kLegLength ? mt.leg_length : mt.hip_height;
    if (!(s_measure > kTiny) || !(t_measure > kTiny) || !std::isfinite(s_measure / t_measure)) {
      return make_error("retargeter",
                        "the hip height or leg length of the source or the target "
                        "reference pose is zero");
    }
    out.root_scale = t_measure / s_measure;
    out.humanoid = true;
    out.source_up = rotate(*fs, {0, 1, 0});
    out.target_up = rotate(*ft, {0, 1, 0});
    out.source_floor = std::isfinite(options.source_floor) ? options.source_floor : ms.floor;
    out.target_floor = mt.floor;
  }
  if (options.root_scale_factor > 0 && std::isfinite(options.root_scale_factor)) {
    out.root_scale = options.root_scale_factor;
  }
  return out;
}

}  // namespace

Result<Retargeter> Retargeter::create(const Skeleton& source, const Skeleton& target,
                                      const RetargetMap& map, const RetargetOptions& options) {
  Retargeter r;
  r.source_ = &source;
  r.target_ = &target;
  r.map_ = map;
  r.method_ = options.method;
  const Status in_range = check_map_joints(source, target, map);
  if (!in_range) return in_range.error();
  r.driver_of_.assign(target.size(), -1);

  Result<Reference> sref = make_reference(source, options.source_reference, "source");
  if (!sref) return sref.error();
  Result<Reference> tref = make_reference(target, options.target_reference, "target");
  if (!tref) return tref.error();
  const Reference& S0 = *sref;
  const Reference& T0 = *tref;

  Result<AxesAndScale> measured = axes_and_scale(source, target, map, S0, T0, options);
  if (!measured) return measured.error();
  const Quat A = measured->axes;
  r.axes_ = A;
  r.root_scale_ = measured->root_scale;
  if (measured->humanoid) {
    r.source_up_ = measured->source_up;
    r.target_up_ = measured->target_up;
    r.source_floor_ = measured->source_floor;
    r.target_floor_ = measured->target_floor;
  }

  // Swings of the target reference onto the source's, seen through A.
  const bool align = options.align_reference_poses && map.humanoid;
  const HumanoidRig& sr = map.source_rig;
  const HumanoidRig& tr = map.target_rig;
  std::array<std::optional<Quat>, kHumanoidPartCount> part_swing;
  if (align) part_swing = part_swings(sr, tr, S0, T0, A);
  // The swing each driven target joint got, so joints outside the profile (fingers, tails)
  // borrow their nearest driven ancestor's.
  std::vector<std::optional<Quat>> joint_swing(target.size());
  const auto swing_of_pair = [&](const RetargetPair& p) -> Quat {
    if (!align) return Quat::identity();
    for (std::size_t i = 0; i < kHumanoidPartCount; ++i) {
      if (tr.parts[i].size() == 1 && tr.parts[i][0] == p.target && !is_chain(static_cast<P>(i))) {
        return part_swing[i].value_or(Quat::identity());
      }
    }
    for (JointIndex a = target.parent(p.target); a != kNoParent; a = target.parent(a)) {
      if (joint_swing[a]) return *joint_swing[a];
    }
    return Quat::identity();
  };

  const auto add_driver = [&](JointIndex t, JointIndex a, JointIndex b, float f, Quat swing) {
    Driver d;
    d.target = t;
    d.source_a = a;
    d.source_b = b;
    d.fraction = f;
    d.inverse_a = conjugate(S0.rotation[a]);
    d.inverse_b = conjugate(S0.rotation[b]);
    d.post = normalize(conjugate(A) * swing * T0.rotation[t]);
    r.driver_of_[t] = 0;  // placeholder, indexed below
    joint_swing[t] = swing;
    r.drivers_.push_back(d);
  };

  // Chains: spine and neck keep B = identity (see next_part).
  for (const RetargetChain& c : map.chains) {
    for (const ChainLink& k : chain_links(c, S0, T0)) {
      add_driver(k.target, k.source_a, k.source_b, k.fraction, Quat::identity());
    }
  }
  for (const RetargetPair& p : map.pairs) {
    if (r.driver_of_[p.target] >= 0) continue;  // a chain joint given explicitly twice: keep one
    add_driver(p.target, p.source, p.source, 0, swing_of_pair(p));
  }

  // Recipes in target order, so a frame is one forward pass.
  std::sort(r.drivers_.begin(), r.drivers_.end(),
            [](const Driver& a, const Driver& b) { return a.target < b.target; });
  std::vector<char> used(source.size());
  for (std::size_t i = 0; i < r.drivers_.size(); ++i) {
    r.driver_of_[r.drivers_[i].target] = static_cast<std::int32_t>(i);
    r.driven_.push_back(r.drivers_[i].target);
    used[r.drivers_[i].source_a] = used[r.drivers_[i].source_b] = 1;
  }
  for (std::size_t j = 0; j < source.size(); ++j) {
    if (used[j]) r.source_used_.push_back(static_cast<JointIndex>(j));
  }
  if (map.humanoid && options.method == RetargetMethod::kRestRelative) {
    r.followers_ = limb_followers(target, map.target_rig, T0);
  }
  r.translated_ = translated_joints_of(map.target_hips, r.followers_);
  if (map.humanoid) {
    for (P p : {P::kLeftFoot, P::kLeftToe, P::kRightFoot, P::kRightToe}) {
      if (sr.has(p)) r.source_feet_.push_back(sr.joint(p));
    }
  }
  return r;
}

void RetargetContext::resize(const Retargeter& retargeter) {
  source_model_.resize(retargeter.source().size());
  source_rotation_.resize(retargeter.source().size());
  target_rotation_.resize(retargeter.target().size());
}

bool RetargetContext::sized_for(const Retargeter& retargeter) const {
  const std::size_t ns = retargeter.source().size(), nt = retargeter.target().size();
  return source_model_.size() >= ns && source_rotation_.size() >= ns &&
         target_rotation_.size() >= nt;
}

namespace {

detail::JobProblem find_problem(const RetargetJob& job) {
  if (job.retargeter == nullptr) return {"retargeter", "is null"};
  if (job.context == nullptr) return {"context", "is null"};
  const std::size_t ns = job.retargeter->source().size();
  const std::size_t nt = job.retargeter->target().size();
  if (job.source_pose.size() < ns) {
    return {"source_pose", "is shorter than the source skeleton's joint count"};
  }
  if (job.target_pose.size() < nt) {
    return {"target_pose", "is shorter than the target skeleton's joint count"};
  }
  if (!job.context->sized_for(*job.retargeter)) {
    return {"context", "is not sized for this retargeter"};
  }
  for (std::size_t j = 0; j < ns; ++j) {
    if (!is_finite(job.source_pose[j])) return {"source_pose[]", "is not finite", j};
  }
  return {};
}

}  // namespace

Status RetargetJob::validate() const {
  return detail::to_status("RetargetJob", find_problem(*this));
}

bool RetargetJob::run() const {
  if (find_problem(*this)) return false;
  const Retargeter& r = *retargeter;
  const Skeleton& source = r.source();
  const Skeleton& target = r.target();
  const std::span<const Transform> rest = target.rest_pose();
  const JointIndex source_hips = r.map_.source_hips, target_hips = r.map_.target_hips;

  if (r.method_ == RetargetMethod::kCopyLocal) {
    for (std::size_t j = 0; j < target.size(); ++j) target_pose[j] = rest[j];
    for (const Retargeter::Driver& d : r.drivers_) {
      target_pose[d.target].rotation = source_pose[d.source_a].rotation;
    }
    if (source_hips != kNoParent && target_hips != kNoParent) {
      target_pose[target_hips].translation = source_pose[source_hips].translation;
    }
    return true;
  }

  RetargetContext& c = *context;
  // Source model rotations. With uniform scales (the common case, a 0.01 armature included) the
  // rotation of a product is the product of rotations: one quaternion product per joint. Any
  // non-uniform or negative scale takes the exact path through the matrices.
  bool uniform = true;
  for (std::size_t j = 0; j < source.size() && uniform; ++j) {
    const Vec3 sc = source_pose[j].scale;
    const float tolerance = 1e-5f * std::fabs(sc.x);
    uniform =
        sc.x > 0 && std::fabs(sc.y - sc.x) <= tolerance && std::fabs(sc.z - sc.x) <= tolerance;
  }
  if (uniform) {
    for (std::size_t j = 0; j < source.size(); ++j) {
      const JointIndex p = source.parent(j);
      const Quat local = source_pose[j].rotation;
      c.source_rotation_[j] = p == kNoParent ? local : c.source_rotation_[p] * local;
    }
  } else {
    (void)local_to_model(source, source_pose, c.source_model_);
    for (JointIndex j : r.source_used_) c.source_rotation_[j] = rotation_of(c.source_model_[j]);
  }
  const Vec3 source_hips_position =
      source_hips == kNoParent ? Vec3{0, 0, 0}
                               : (uniform ? model_matrix_of(source, source_pose, source_hips)
                                          : c.source_model_[source_hips])
                                     .translation();
  const Quat A = r.axes_;
  for (std::size_t j = 0; j < target.size(); ++j) {
    const JointIndex p = target.parent(j);
    const Quat parent = p == kNoParent ? Quat::identity() : c.target_rotation_[p];
    Transform out = rest[j];
    const std::int32_t d = r.driver_of_[j];
    if (d >= 0) {
      const Retargeter::Driver& k = r.drivers_[static_cast<std::size_t>(d)];
      Quat delta = c.source_rotation_[k.source_a] * k.inverse_a;
      if (k.source_b != k.source_a && k.fraction > 0) {
        delta = slerp(normalize(delta), normalize(c.source_rotation_[k.source_b] * k.inverse_b),
                      k.fraction);
      }
      const Quat model = normalize(A * delta * k.post);
      out.rotation = normalize(conjugate(parent) * model);
      c.target_rotation_[j] = model;
    } else {
      c.target_rotation_[j] = normalize(parent * out.rotation);
    }
    target_pose[j] = out;
    if (j == target_hips && source_hips != kNoParent) {
      // Floor onto floor: heights are measured from each side's lowest foot joint.
      const float floor = std::isfinite(source_floor) ? source_floor : r.source_floor_;
      const Vec3 from_floor = source_hips_position - r.source_up_ * floor;
      const Vec3 place = rotate(A, from_floor) * r.root_scale_ + r.target_up_ * r.target_floor_;
      Mat4 inverse = Mat4::identity();
      if (p != kNoParent && !invert_affine(model_matrix_of(target, target_pose, p), inverse)) {
        continue;  // a collapsed parent: keep the rest translation
      }
      target_pose[j].translation = transform_point(inverse, place);
    }
  }
  for (const Retargeter::Follower& f : r.followers_) {
    const Vec3 place = transform_point(model_matrix_of(target, target_pose, f.anchor), f.offset);
    const JointIndex p = target.parent(f.joint);
    Mat4 inverse = Mat4::identity();
    if (p != kNoParent && !invert_affine(model_matrix_of(target, target_pose, p), inverse)) {
      continue;
    }
    target_pose[f.joint].translation = transform_point(inverse, place);
  }
  return true;
}

Result<Clip> retarget_clip(const Retargeter& retargeter, const Clip& source_clip,
                           const RetargetClipOptions& options) {
  const Skeleton& source = retargeter.source();
  const Skeleton& target = retargeter.target();
  const std::string where = "retarget clip '" + source_clip.name() + "'";
  if (source_clip.joint_count() != source.size()) {
    return make_error(where, "was built for " + std::to_string(source_clip.joint_count()) +
                                 " joints, the source skeleton has " +
                                 std::to_string(source.size()));
  }
  // Sample times: the source's keys (with midpoints for cubic splines), or a uniform grid.
  std::vector<float> times;
  bool all_step = !source_clip.tracks().empty(), any_cubic = false;
  if (options.sample_rate > 0 && std::isfinite(options.sample_rate)) {
    const float duration = source_clip.duration();
    const std::size_t n =
        duration > 0 ? static_cast<std::size_t>(std::ceil(duration * options.sample_rate)) + 1 : 1;
    for (std::size_t k = 0; k < n; ++k) {
      times.push_back(k + 1 == n ? duration
                                 : duration * static_cast<float>(k) / static_cast<float>(n - 1));
    }
    all_step = false;
  } else {
    for (const Track& t : source_clip.tracks()) {
      all_step = all_step && t.interpolation == Interpolation::kStep;
      any_cubic = any_cubic || t.interpolation == Interpolation::kCubicSpline;
      const std::span<const float> keys = source_clip.times().subspan(t.first_key, t.key_count);
      times.insert(times.end(), keys.begin(), keys.end());
    }
    times.push_back(0);
    times.push_back(source_clip.duration());
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    if (any_cubic) {
      const std::size_t n = times.size();
      for (std::size_t k = 0; k + 1 < n; ++k) times.push_back(0.5f * (times[k] + times[k + 1]));
      std::sort(times.begin(), times.end());
    }
  }

  RetargetContext context(retargeter);
  std::vector<Transform> source_pose(source.size()), target_pose(target.size());
  SamplingCursor cursor(source_clip);
  // The source clip's floor: its lowest foot joint over the samples.
  float floor = std::numeric_limits<float>::quiet_NaN();
  const std::span<const JointIndex> feet = retargeter.source_feet();
  if (options.estimate_floor && !feet.empty()) {
    std::vector<Mat4> model(source.size());
    floor = std::numeric_limits<float>::max();
    for (float t : times) {
      (void)sample(source_clip, source.rest_pose(), t, cursor, source_pose);
      (void)local_to_model(source, source_pose, model);
      for (JointIndex f : feet)
        floor = std::min(floor, dot(model[f].translation(), retargeter.source_up()));
    }
    cursor.rewind();
  }
  const std::span<const JointIndex> driven = retargeter.driven_joints();
  const std::span<const JointIndex> placed = retargeter.translated_joints();
  std::vector<std::vector<float>> rotations(driven.size());
  std::vector<std::vector<float>> translations(placed.size());
  for (float t : times) {
    (void)sample(source_clip, source.rest_pose(), t, cursor, source_pose);
    RetargetJob job;
    job.retargeter = &retargeter;
    job.context = &context;
    job.source_pose = source_pose;
    job.target_pose = target_pose;
    job.source_floor = floor;
    if (!job.run()) {
      return make_error(where, "the source pose at t = " + std::to_string(t) + " is not finite");
    }
    for (std::size_t i = 0; i < driven.size(); ++i) {
      Quat q = target_pose[driven[i]].rotation;
      std::vector<float>& v = rotations[i];
      if (v.size() >= 4 &&
          dot(q, Quat{v[v.size() - 4], v[v.size() - 3], v[v.size() - 2], v[v.size() - 1]}) < 0) {
        q = negate(q);  // keep neighbouring keys in one hemisphere
      }
      v.insert(v.end(), {q.x, q.y, q.z, q.w});
    }
    for (std::size_t i = 0; i < placed.size(); ++i) {
      const Vec3 p = target_pose[placed[i]].translation;
      translations[i].insert(translations[i].end(), {p.x, p.y, p.z});
    }
  }

  ClipBuilder builder(source_clip.name());
  builder.set_ticks_per_second(source_clip.ticks_per_second());
  builder.set_duration(source_clip.duration());
  for (const ClipEvent& e : source_clip.events()) builder.add_event(e.time, e.name);
  const Interpolation interpolation = all_step ? Interpolation::kStep : Interpolation::kLinear;
  for (std::size_t i = 0; i < driven.size(); ++i) {
    Status s = builder.add_track(driven[i], target.name(driven[i]), TrackTarget::kRotation,
                                 interpolation, times, rotations[i], where);
    if (!s) return s.error();
  }
  for (std::size_t i = 0; i < placed.size(); ++i) {
    Status s = builder.add_track(placed[i], target.name(placed[i]), TrackTarget::kTranslation,
                                 interpolation, times, translations[i], where);
    if (!s) return s.error();
  }
  return builder.build(target.size(), where);
}

}  // namespace marrow
