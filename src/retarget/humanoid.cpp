#include "marrow/retarget/humanoid.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "humanoid_names.h"
#include "marrow/pose/local_to_model.h"

namespace marrow {
namespace {

using P = HumanoidPart;
using humanoid_detail::parse_name;
using humanoid_detail::ParsedName;
using humanoid_detail::part_of;

constexpr std::array<std::string_view, kHumanoidPartCount> kPartNames = {
    "hips",           "spine",        "neck",       "head",           "left_shoulder",
    "left_upper_arm", "left_forearm", "left_hand",  "right_shoulder", "right_upper_arm",
    "right_forearm",  "right_hand",   "left_thigh", "left_shin",      "left_foot",
    "left_toe",       "right_thigh",  "right_shin", "right_foot",     "right_toe"};

std::size_t index(P p) {
  return static_cast<std::size_t>(p);
}
std::string spoken(P p) {  // "left_foot" -> "left foot"
  std::string s(kPartNames[index(p)]);
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

// ---- the hierarchy ----

struct Context {
  const Skeleton& s;
  std::vector<Vec3> position;  // model space, from the pose
  std::vector<std::vector<JointIndex>> children;
  std::vector<int> depth;    // joints on the longest path down from the joint, itself included
  std::vector<int> size;     // joints in the subtree
  std::vector<float> reach;  // sum of the subtree's bone lengths
  std::vector<char> marker;  // the name is an end marker
  std::vector<std::optional<P>> named;  // the part each joint's name reads as
  std::vector<std::string> keyword;     // the part word of its name
  std::array<std::vector<JointIndex>, kHumanoidPartCount> candidates;  // per part, in order

  bool above(JointIndex ancestor, JointIndex j) const {  // strictly above
    return j != ancestor && ancestor != kNoParent && j != kNoParent && s.is_descendant(j, ancestor);
  }
  float bone(JointIndex j) const {  // length from the parent
    const JointIndex p = s.parent(j);
    return p == kNoParent ? 0.0f : length(position[j] - position[p]);
  }
  // The longest path down from j (following the deepest child, the first on ties).
  std::vector<JointIndex> longest_path(JointIndex j) const {
    std::vector<JointIndex> path{j};
    while (!children[path.back()].empty()) {
      const std::vector<JointIndex>& c = children[path.back()];
      JointIndex best = c.front();
      for (JointIndex k : c) {
        if (depth[k] > depth[best]) best = k;
      }
      path.push_back(best);
    }
    return path;
  }
  // Joints strictly between `top` and `bottom` on bottom's parent chain, top first.
  std::vector<JointIndex> between(JointIndex top, JointIndex bottom) const {
    std::vector<JointIndex> path;
    for (JointIndex j = s.parent(bottom); j != kNoParent && j != top; j = s.parent(j)) {
      path.push_back(j);
    }
    std::reverse(path.begin(), path.end());
    return path;
  }
  // The deepest joint above-or-at both (kNoParent when they share no root).
  JointIndex common_ancestor(JointIndex a, JointIndex b) const {
    if (a == kNoParent) return b;
    if (b == kNoParent) return a;
    for (JointIndex x = a; x != kNoParent; x = s.parent(x)) {
      if (x == b || s.is_descendant(b, x)) return x;
    }
    return kNoParent;
  }
};

Context make_context(const Skeleton& s, std::span<const Transform> pose) {
  Context c{s, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  std::vector<Mat4> model(s.size());
  (void)local_to_model(s, pose.size() >= s.size() ? pose : s.rest_pose(), model);
  c.position.resize(s.size());
  for (std::size_t j = 0; j < s.size(); ++j) c.position[j] = model[j].translation();
  c.children.resize(s.size());
  for (std::size_t j = 0; j < s.size(); ++j) {
    if (s.parent(j) != kNoParent) c.children[s.parent(j)].push_back(static_cast<JointIndex>(j));
  }
  c.depth.assign(s.size(), 1);
  c.size.assign(s.size(), 1);
  c.reach.assign(s.size(), 0);
  for (std::size_t j = s.size(); j-- > 0;) {  // children come after parents: go backwards
    const JointIndex p = s.parent(j);
    if (p == kNoParent) continue;
    c.depth[p] = std::max(c.depth[p], c.depth[j] + 1);
    c.size[p] += c.size[j];
    c.reach[p] += c.reach[j] + c.bone(static_cast<JointIndex>(j));
  }
  c.marker.resize(s.size());
  c.named.resize(s.size());
  c.keyword.resize(s.size());
  for (std::size_t j = 0; j < s.size(); ++j) {
    const ParsedName parsed = parse_name(s.name(j));
    c.marker[j] = parsed.marker;
    c.named[j] = part_of(parsed);
    c.keyword[j] = parsed.keyword;
    if (c.named[j]) c.candidates[index(*c.named[j])].push_back(static_cast<JointIndex>(j));
  }
  return c;
}

// The closest joint above `j` (strictly) among `candidates`, or kNoParent.
JointIndex closest_above(const Context& c, JointIndex j,
                         const std::vector<JointIndex>& candidates) {
  for (JointIndex a = c.s.parent(j); a != kNoParent; a = c.s.parent(a)) {
    if (std::find(candidates.begin(), candidates.end(), a) != candidates.end()) return a;
  }
  return kNoParent;
}

// The top of a run of joints named with one part word ending at j: Rigify's "thigh.L" above
// "thigh.L.001", a bone split in two, is the thigh.
JointIndex run_top(const Context& c, JointIndex j) {
  for (JointIndex p = c.s.parent(j);
       p != kNoParent && c.named[p] == c.named[j] && c.keyword[p] == c.keyword[j];
       p = c.s.parent(p)) {
    j = p;
  }
  return j;
}

void set(HumanoidRig& rig, P p, std::vector<JointIndex> joints, PartSource source) {
  if (rig.has(p) || joints.empty()) return;
  rig.parts[index(p)] = std::move(joints);
  rig.found_by[index(p)] = source;
}

struct Limb {
  std::optional<P> top;  // the shoulder of an arm
  P upper, lower, end;
  std::optional<P> after;  // the toe of a leg
};

// One limb's upper, lower and end joints as a name match found them.
struct LimbChain {
  JointIndex upper = kNoParent, lower = kNoParent, end = kNoParent;
  PartSource upper_by = PartSource::kName, lower_by = PartSource::kName;
  int named = -1;  // how many of the three came by name (or explicitly): the better chain
};

// The part `p` of the limb above `below`: given explicitly, else the closest joint named like it
// (the top of its run), else below's parent when nothing names that parent as another part.
std::pair<JointIndex, PartSource> part_above(const Context& c, const HumanoidRig& rig, P p,
                                             JointIndex below, std::optional<P> top) {
  if (rig.has(p)) return {rig.joint(p), rig.found_by[index(p)]};
  const JointIndex named = closest_above(c, below, c.candidates[index(p)]);
  if (named != kNoParent) return {run_top(c, named), PartSource::kName};
  const JointIndex parent = c.s.parent(below);
  // A parent named as the limb's top may be its upper part: BVH exports name the upper arm
  // "LeftShoulder" below a "LeftCollar".
  if (parent == kNoParent || (c.named[parent] && *c.named[parent] != p && c.named[parent] != top) ||
      c.marker[parent]) {
    return {kNoParent, PartSource::kMissing};
  }
  return {parent, PartSource::kShape};
}

LimbChain chain_above(const Context& c, const HumanoidRig& rig, const Limb& limb, JointIndex e) {
  LimbChain chain;
  chain.end = e;
  std::tie(chain.lower, chain.lower_by) = part_above(c, rig, limb.lower, e, std::nullopt);
  if (chain.lower == kNoParent) return chain;
  std::tie(chain.upper, chain.upper_by) = part_above(c, rig, limb.upper, chain.lower, limb.top);
  if (chain.upper == kNoParent) return chain;
  chain.named = 1 + (chain.lower_by != PartSource::kShape) + (chain.upper_by != PartSource::kShape);
  return chain;
}

// The distance from a limb's lower joint to where its bone ends: its child along the limb, or
// the lower joint itself when it has none (a leaf shin whose foot hangs elsewhere).
float distance_to_tip(const Context& c, JointIndex lower, JointIndex j) {
  const std::vector<JointIndex> path = c.longest_path(lower);
  const Vec3 tip = c.position[path.size() > 1 ? path[1] : path[0]];
  return length(c.position[j] - tip);
}

// An end joint parented away from its limb (a foot under the root, for IK): the joint named
// like it nearest to where a named lower joint's bone ends, within one and a half upper bones.
LimbChain detached_chain(const Context& c, const HumanoidRig& rig, const Limb& limb) {
  LimbChain best;
  float best_distance = 0;
  std::vector<JointIndex> lowers = c.candidates[index(limb.lower)];
  if (rig.has(limb.lower)) lowers = {rig.joint(limb.lower)};
  for (JointIndex lo : lowers) {
    LimbChain chain;
    chain.lower = rig.has(limb.lower) ? lo : run_top(c, lo);
    std::tie(chain.upper, chain.upper_by) = part_above(c, rig, limb.upper, chain.lower, limb.top);
    if (chain.upper == kNoParent) continue;
    const float reach = 1.5f * length(c.position[chain.lower] - c.position[chain.upper]);
    for (JointIndex e : c.candidates[index(limb.end)]) {
      if (c.above(chain.lower, e)) continue;  // below: the ordinary match would have found it
      const float d = distance_to_tip(c, chain.lower, e);
      if (d <= reach && (best.end == kNoParent || d < best_distance)) {
        best = chain;
        best.end = e;
        best.named = 3;
        best_distance = d;
      }
    }
  }
  return best;
}

// Fills a limb: the chain with the most named parts among its named ends, or a detached end;
// then the shoulder above an arm and the toe below a foot. `why` says what failed.
void resolve_limb(const Context& c, HumanoidRig& rig, const Limb& limb, std::string& why) {
  LimbChain best;
  std::vector<JointIndex> ends = c.candidates[index(limb.end)];
  if (rig.has(limb.end)) ends = {rig.joint(limb.end)};
  for (JointIndex e : ends) {
    const LimbChain chain = chain_above(c, rig, limb, e);
    if (chain.named > best.named) best = chain;
  }
  if (best.named < 0) best = detached_chain(c, rig, limb);
  const std::string end_name = spoken(limb.end), lower_name = spoken(limb.lower);
  if (best.named < 0) {
    // No end: keep the upper and lower parts names give (a hand may be missing; for a leg the
    // error then shows what was found).
    std::vector<JointIndex> lowers = c.candidates[index(limb.lower)];
    if (rig.has(limb.lower)) lowers = {rig.joint(limb.lower)};
    for (JointIndex lo : lowers) {
      const JointIndex lower = rig.has(limb.lower) ? lo : run_top(c, lo);
      const auto [upper, upper_by] = part_above(c, rig, limb.upper, lower, limb.top);
      if (upper == kNoParent) continue;
      set(rig, limb.lower, {lower}, PartSource::kName);
      set(rig, limb.upper, {upper}, upper_by);
      if (limb.top) {
        const JointIndex t = closest_above(c, upper, c.candidates[index(*limb.top)]);
        if (t != kNoParent) set(rig, *limb.top, {t}, PartSource::kName);
      }
      break;
    }
    why = ends.empty() ? "no joint is named like a " + end_name
                       : "'" + c.s.name(ends.front()) + "' is named like a " + end_name +
                             " but has no " + lower_name + " and " + spoken(limb.upper) +
                             " above it, and no joint named like a " + lower_name + " ends near it";
    return;
  }
  set(rig, limb.end, {best.end}, PartSource::kName);
  set(rig, limb.lower, {best.lower}, best.lower_by);
  set(rig, limb.upper, {best.upper}, best.upper_by);
  if (limb.top) {
    const JointIndex t = closest_above(c, best.upper, c.candidates[index(*limb.top)]);
    if (t != kNoParent) set(rig, *limb.top, {t}, PartSource::kName);
  }
  if (limb.after) {  // the named toe nearest below the foot
    JointIndex toe = kNoParent;
    int toe_hops = 0;
    for (JointIndex t : c.candidates[index(*limb.after)]) {
      if (!c.above(best.end, t)) continue;
      int hops = 0;
      for (JointIndex a = t; a != best.end; a = c.s.parent(a)) ++hops;
      if (toe == kNoParent || hops < toe_hops) {
        toe = t;
        toe_hops = hops;
      }
    }
    if (toe != kNoParent) set(rig, *limb.after, {toe}, PartSource::kName);
  }
}

constexpr Limb kLegs[2] = {
    {std::nullopt, P::kLeftThigh, P::kLeftShin, P::kLeftFoot, P::kLeftToe},
    {std::nullopt, P::kRightThigh, P::kRightShin, P::kRightFoot, P::kRightToe}};
constexpr Limb kArms[2] = {
    {P::kLeftShoulder, P::kLeftUpperArm, P::kLeftForearm, P::kLeftHand, std::nullopt},
    {P::kRightShoulder, P::kRightUpperArm, P::kRightForearm, P::kRightHand, std::nullopt}};

void clear_limb(HumanoidRig& rig, const Limb& limb) {
  for (std::optional<P> p : {limb.top, std::optional(limb.upper), std::optional(limb.lower),
                             std::optional(limb.end), limb.after}) {
    if (p && rig.found_by[index(*p)] != PartSource::kExplicit) {
      rig.parts[index(*p)].clear();
      rig.found_by[index(*p)] = PartSource::kMissing;
    }
  }
}
bool limbs_share_a_joint(const HumanoidRig& rig, const Limb& a, const Limb& b) {
  for (P x : {a.upper, a.lower, a.end}) {
    for (P y : {b.upper, b.lower, b.end}) {
      if (rig.has(x) && rig.joint(x) == rig.joint(y)) return true;
    }
  }
  return false;
}
// The top joint of an arm as found (shoulder, else upper arm).
JointIndex arm_root(const HumanoidRig& rig, const Limb& arm) {
  return rig.has(*arm.top) ? rig.joint(*arm.top) : rig.joint(arm.upper);
}

// The hips: the deepest joint named like hips above both thighs and the upper body (the named
// head, else where the arms meet); else the common ancestor of those.
void resolve_hips(const Context& c, HumanoidRig& rig) {
  if (rig.has(P::kHips)) return;
  const JointIndex lt = rig.joint(P::kLeftThigh), rt = rig.joint(P::kRightThigh);
  if (lt == kNoParent || rt == kNoParent) return;
  JointIndex upper_body = kNoParent;
  for (JointIndex h : c.candidates[index(P::kHead)]) {
    if (!c.above(lt, h) && !c.above(rt, h)) {
      upper_body = h;
      break;
    }
  }
  if (upper_body == kNoParent && rig.has(P::kLeftUpperArm) && rig.has(P::kRightUpperArm)) {
    upper_body = c.common_ancestor(arm_root(rig, kArms[0]), arm_root(rig, kArms[1]));
  }
  const auto above_all = [&](JointIndex h) {
    return c.above(h, lt) && c.above(h, rt) && (upper_body == kNoParent || c.above(h, upper_body));
  };
  JointIndex best = kNoParent;
  for (JointIndex h : c.candidates[index(P::kHips)]) {
    if (above_all(h) && (best == kNoParent || c.above(best, h))) best = h;
  }
  if (best != kNoParent) {
    set(rig, P::kHips, {best}, PartSource::kName);
    return;
  }
  JointIndex a = c.common_ancestor(lt, rt);
  if (upper_body != kNoParent) a = c.common_ancestor(a, upper_body);
  if (a != kNoParent && a != lt && a != rt) set(rig, P::kHips, {a}, PartSource::kShape);
}

// The head when no name gives it: the end of the longest path up from where the arms meet
// (else from the hips) that holds no limb, less a trailing end marker.
JointIndex head_by_shape(const Context& c, const HumanoidRig& rig) {
  JointIndex start = rig.joint(P::kHips);
  if (rig.has(P::kLeftUpperArm) && rig.has(P::kRightUpperArm)) {
    start = c.common_ancestor(arm_root(rig, kArms[0]), arm_root(rig, kArms[1]));
  }
  const std::vector<JointIndex> limbs = {rig.joint(P::kLeftThigh), rig.joint(P::kRightThigh),
                                         arm_root(rig, kArms[0]), arm_root(rig, kArms[1])};
  const auto holds_limb = [&](JointIndex j) {
    return std::any_of(limbs.begin(), limbs.end(),
                       [&](JointIndex l) { return l != kNoParent && (l == j || c.above(j, l)); });
  };
  JointIndex j = start;
  for (;;) {
    JointIndex next = kNoParent;
    for (JointIndex k : c.children[j]) {
      if (!holds_limb(k) && (next == kNoParent || c.depth[k] > c.depth[next])) next = k;
    }
    if (next == kNoParent) break;
    j = next;
  }
  if (c.marker[j] && c.s.parent(j) != kNoParent) j = c.s.parent(j);
  return j == start || j == rig.joint(P::kHips) ? kNoParent : j;
}

void resolve_by_names(const Context& c, HumanoidRig& rig, std::string& why) {
  std::string limb_why[4];
  for (int side = 0; side < 2; ++side) {
    resolve_limb(c, rig, kLegs[side], limb_why[side]);
    resolve_limb(c, rig, kArms[side], limb_why[2 + side]);
  }
  // A joint both sides claim (or a leg and an arm) is no match: names misled.
  if (limbs_share_a_joint(rig, kLegs[0], kLegs[1])) {
    why = "the left and the right leg named share '" + c.s.name(rig.joint(P::kLeftThigh)) + "'";
    clear_limb(rig, kLegs[0]);
    clear_limb(rig, kLegs[1]);
  }
  for (const Limb& arm : kArms) {
    if (limbs_share_a_joint(rig, arm, kLegs[0]) || limbs_share_a_joint(rig, arm, kLegs[1]) ||
        limbs_share_a_joint(rig, kArms[0], kArms[1])) {
      clear_limb(rig, arm);
    }
  }
  for (int side = 0; side < 2 && why.empty(); ++side) {
    if (!rig.has(kLegs[side].end)) why = limb_why[side];
  }
  resolve_hips(c, rig);
  const JointIndex hips = rig.joint(P::kHips);
  if (hips == kNoParent) {
    if (why.empty()) why = "no joint lies above both thighs";
    return;
  }
  for (const Limb& arm : kArms) {  // arms hang from the body above the hips
    if (rig.has(arm.upper) && !c.above(hips, rig.joint(arm.upper))) clear_limb(rig, arm);
  }
  // Head, neck and spine along the path from the hips to the head.
  if (!rig.has(P::kHead)) {
    for (JointIndex h : c.candidates[index(P::kHead)]) {
      if (c.above(hips, h)) {
        set(rig, P::kHead, {h}, PartSource::kName);
        break;
      }
    }
  }
  if (!rig.has(P::kHead)) {
    const JointIndex head = head_by_shape(c, rig);
    if (head != kNoParent) set(rig, P::kHead, {head}, PartSource::kShape);
  }
  const JointIndex head = rig.joint(P::kHead);
  if (head != kNoParent && c.above(hips, head)) {
    const std::vector<JointIndex> path = c.between(hips, head);
    std::size_t neck_start = path.size();
    for (std::size_t i = 0; i < path.size(); ++i) {
      if (c.named[path[i]] == P::kNeck) {
        neck_start = i;
        break;
      }
    }
    set(rig, P::kSpine, {path.begin(), path.begin() + static_cast<std::ptrdiff_t>(neck_start)},
        PartSource::kName);
    set(rig, P::kNeck, {path.begin() + static_cast<std::ptrdiff_t>(neck_start), path.end()},
        PartSource::kName);
  }
}

// ---- shape ----

bool mirror(const Context& c, JointIndex a, JointIndex b) {
  const float la = c.reach[a], lb = c.reach[b];
  return c.size[a] == c.size[b] && c.depth[a] == c.depth[b] && la > 0 && lb > 0 &&
         std::fabs(la - lb) <= 0.15f * std::max(la, lb);
}

// A mirror pair among j's children with subtrees of depth >= 3, and the largest other child.
struct Branching {
  JointIndex a = kNoParent, b = kNoParent, other = kNoParent;
};
Branching branching(const Context& c, JointIndex j) {
  const std::vector<JointIndex>& ch = c.children[j];
  for (std::size_t x = 0; x < ch.size(); ++x) {
    for (std::size_t y = x + 1; y < ch.size(); ++y) {
      if (c.depth[ch[x]] < 3 || !mirror(c, ch[x], ch[y])) continue;
      Branching r{ch[x], ch[y], kNoParent};
      for (JointIndex k : ch) {
        if (k != r.a && k != r.b && (r.other == kNoParent || c.size[k] > c.size[r.other])) {
          r.other = k;
        }
      }
      return r;
    }
  }
  return {};
}

// The shallowest joint at or below j (breadth first) with a branching that has another child.
JointIndex find_arms_node(const Context& c, JointIndex j) {
  std::vector<JointIndex> queue{j};
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const Branching b = branching(c, queue[i]);
    if (b.a != kNoParent && b.other != kNoParent) return queue[i];
    for (JointIndex k : c.children[queue[i]]) queue.push_back(k);
  }
  return kNoParent;
}

// upper, lower, end (and top before upper, toe after end) along a limb's longest path. The end
// is the first joint where the path branches (a hand with fingers), when `branching_end`;
// otherwise the two longest consecutive bones are taken as upper and lower.
struct LimbJoints {
  JointIndex top = kNoParent, upper = kNoParent, lower = kNoParent, end = kNoParent,
             after = kNoParent;  // the toe: the joint after the end, when it has a child
  JointIndex tip = kNoParent;    // the joint after the end, whatever it is (for the facing)
};
LimbJoints limb_along(const Context& c, JointIndex start, bool branching_end) {
  const std::vector<JointIndex> path = c.longest_path(start);
  LimbJoints r;
  if (path.size() < 3) return r;
  std::size_t best = path.size();
  if (branching_end) {
    for (std::size_t i = 2; i < path.size(); ++i) {
      if (c.children[path[i]].size() >= 2) {
        best = i - 2;
        break;
      }
    }
  }
  if (best == path.size()) {
    float best_length = -1;
    for (std::size_t i = 0; i + 2 < path.size(); ++i) {
      const float l = c.bone(path[i + 1]) + c.bone(path[i + 2]);
      if (l > best_length) {
        best_length = l;
        best = i;
      }
    }
  }
  r.upper = path[best];
  r.lower = path[best + 1];
  r.end = path[best + 2];
  if (best > 0) r.top = path[best - 1];
  if (best + 3 < path.size()) {
    r.tip = path[best + 3];
    if (!c.children[r.tip].empty()) r.after = r.tip;
  }
  return r;
}

void resolve_by_shape(const Context& c, HumanoidRig& rig) {
  // The hips: the shallowest joint with a leg pair and a spine holding an arm pair.
  JointIndex hips = kNoParent, arms_node = kNoParent;
  Branching legs;
  int best_depth = 1 << 30;
  for (std::size_t j = 0; j < c.s.size(); ++j) {
    const Branching b = branching(c, static_cast<JointIndex>(j));
    if (b.a == kNoParent) continue;
    JointIndex h = static_cast<JointIndex>(j);
    JointIndex arms = b.other != kNoParent ? find_arms_node(c, b.other) : kNoParent;
    // Legs under a joint of their own (Character Creator's pelvis below its hip): the hips is
    // the joint a level or two up that also holds the spine.
    JointIndex from = h;
    for (int level = 0; level < 2 && arms == kNoParent; ++level) {
      const JointIndex p = c.s.parent(from);
      if (p == kNoParent) break;
      for (JointIndex k : c.children[p]) {
        if (k == from || arms != kNoParent) continue;
        arms = find_arms_node(c, k);
        if (arms != kNoParent) h = p;
      }
      from = p;
    }
    if (arms == kNoParent) continue;
    int d = 0;
    for (JointIndex a = c.s.parent(h); a != kNoParent; a = c.s.parent(a)) ++d;
    if (d < best_depth) {
      best_depth = d;
      hips = h;
      legs = b;
      arms_node = arms;
    }
  }
  if (hips == kNoParent) return;
  if (rig.has(P::kHips) && rig.joint(P::kHips) != hips) return;  // explicit hips elsewhere
  set(rig, P::kHips, {hips}, PartSource::kShape);

  const LimbJoints leg_a = limb_along(c, legs.a, false), leg_b = limb_along(c, legs.b, false);
  const Branching arms = branching(c, arms_node);
  const LimbJoints arm_a = limb_along(c, arms.a, true), arm_b = limb_along(c, arms.b, true);
  // Head: along the arms node's other branch; a leaf at its end is a marker.
  std::vector<JointIndex> head_path = c.longest_path(arms.other);
  const JointIndex head = head_path.size() >= 2 ? head_path[head_path.size() - 2] : head_path[0];
  std::vector<JointIndex> neck(
      head_path.begin(), head_path.begin() + static_cast<std::ptrdiff_t>(
                                                 head_path.size() >= 2 ? head_path.size() - 2 : 0));

  // Left and right: up from the hips to the head, forward along the feet (else +z).
  const Vec3 up = c.position[head] - c.position[hips];
  Vec3 forward{0, 0, 0};
  for (const LimbJoints& l : {leg_a, leg_b}) {
    if (l.tip != kNoParent) forward += c.position[l.tip] - c.position[l.end];
  }
  const float up_len = length(up);
  const Vec3 up_dir = up_len > 0 ? up * (1.0f / up_len) : Vec3{0, 1, 0};
  forward -= up_dir * dot(forward, up_dir);
  if (!(length(forward) > 1e-6f * std::max(up_len, 1e-6f)))
    forward = Vec3{0, 0, 1} - up_dir * up_dir.z;
  const Vec3 left = cross(up_dir, forward);
  const auto lateral = [&](JointIndex j) { return dot(c.position[j] - c.position[hips], left); };
  const bool a_is_left_leg = lateral(legs.a) >= lateral(legs.b);
  const bool a_is_left_arm = lateral(arms.a) >= lateral(arms.b);

  const auto put_leg = [&](const LimbJoints& l, bool is_left) {
    if (l.end == kNoParent) return;
    set(rig, is_left ? P::kLeftThigh : P::kRightThigh, {l.upper}, PartSource::kShape);
    set(rig, is_left ? P::kLeftShin : P::kRightShin, {l.lower}, PartSource::kShape);
    set(rig, is_left ? P::kLeftFoot : P::kRightFoot, {l.end}, PartSource::kShape);
    if (l.after != kNoParent)
      set(rig, is_left ? P::kLeftToe : P::kRightToe, {l.after}, PartSource::kShape);
  };
  const auto put_arm = [&](const LimbJoints& l, bool is_left) {
    if (l.end == kNoParent) return;
    if (l.top != kNoParent) {
      set(rig, is_left ? P::kLeftShoulder : P::kRightShoulder, {l.top}, PartSource::kShape);
    }
    set(rig, is_left ? P::kLeftUpperArm : P::kRightUpperArm, {l.upper}, PartSource::kShape);
    set(rig, is_left ? P::kLeftForearm : P::kRightForearm, {l.lower}, PartSource::kShape);
    set(rig, is_left ? P::kLeftHand : P::kRightHand, {l.end}, PartSource::kShape);
  };
  put_leg(leg_a, a_is_left_leg);
  put_leg(leg_b, !a_is_left_leg);
  put_arm(arm_a, a_is_left_arm);
  put_arm(arm_b, !a_is_left_arm);
  set(rig, P::kHead, {head}, PartSource::kShape);
  std::vector<JointIndex> spine = c.between(hips, arms_node);
  spine.push_back(arms_node);
  set(rig, P::kSpine, spine, PartSource::kShape);
  set(rig, P::kNeck, neck, PartSource::kShape);
}

}  // namespace

std::string_view to_string(HumanoidPart part) {
  return kPartNames[index(part)];
}

std::optional<HumanoidPart> humanoid_part_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kPartNames.size(); ++i) {
    if (kPartNames[i] == name) return static_cast<HumanoidPart>(i);
  }
  return std::nullopt;
}

std::vector<JointIndex> HumanoidRig::mapped_joints() const {
  std::vector<JointIndex> all;
  for (const std::vector<JointIndex>& p : parts) all.insert(all.end(), p.begin(), p.end());
  std::sort(all.begin(), all.end());
  return all;
}

namespace {

// What keeps `rig` from being a humanoid match, or "" when nothing does: a missing hips, thigh,
// shin or foot, or a joint given to two parts.
std::string incomplete(const Skeleton& s, const HumanoidRig& rig, const std::string& why) {
  const std::string because = why.empty() ? "" : " (" + why + ")";
  if (!rig.has(P::kHips)) return "no hips" + because;
  for (P p :
       {P::kLeftThigh, P::kLeftShin, P::kLeftFoot, P::kRightThigh, P::kRightShin, P::kRightFoot}) {
    if (!rig.has(p)) {
      return "no " + std::string(to_string(p)) + " below the hips '" + s.name(rig.joint(P::kHips)) +
             "'" + because;
    }
  }
  std::vector<JointIndex> all = rig.mapped_joints();
  const auto twice = std::adjacent_find(all.begin(), all.end());
  if (twice == all.end()) return "";
  std::string parts;
  for (std::size_t p = 0; p < kHumanoidPartCount; ++p) {
    const std::vector<JointIndex>& j = rig.parts[p];
    if (std::find(j.begin(), j.end(), *twice) != j.end()) {
      parts += (parts.empty() ? "" : " and ") + std::string(kPartNames[p]);
    }
  }
  return "joint '" + s.name(*twice) + "' is both " + parts;
}

// A humanoid stands on two legs with its spine upright: refuse a rig whose spine lies more than
// 45 degrees from the up its legs give (hips above feet), or whose hands reach the ground too.
std::string stance_problem(const Context& c, const HumanoidRig& rig) {
  const auto pos = [&](P p) { return c.position[rig.joint(p)]; };
  const float leg = 0.5f * (length(pos(P::kLeftShin) - pos(P::kLeftThigh)) +
                            length(pos(P::kLeftFoot) - pos(P::kLeftShin)) +
                            length(pos(P::kRightShin) - pos(P::kRightThigh)) +
                            length(pos(P::kRightFoot) - pos(P::kRightShin)));
  const Vec3 feet = (pos(P::kLeftFoot) + pos(P::kRightFoot)) * 0.5f;
  const Vec3 up_vector = pos(P::kHips) - feet;
  if (!(leg > 1e-6f) || !(length(up_vector) > 0.1f * leg)) return "";  // no stance to judge
  const Vec3 up = up_vector * (1.0f / length(up_vector));
  const auto height = [&](Vec3 p) { return dot(p - feet, up) / leg; };
  std::vector<std::string> problems;
  JointIndex top = rig.joint(P::kHead);
  if (top == kNoParent && rig.has(P::kNeck)) top = rig[P::kNeck].back();
  if (top == kNoParent && rig.has(P::kSpine)) top = rig[P::kSpine].back();
  if (top != kNoParent) {
    const Vec3 v = c.position[top] - pos(P::kHips);
    const float rise = dot(v, up), across = length(v - up * rise);
    if (!(rise > across)) {
      const float degrees = std::atan2(across, rise) * 57.2958f;
      problems.push_back("its spine is not upright ('" + c.s.name(top) + "' is " +
                         std::to_string(static_cast<int>(degrees + 0.5f)) +
                         " degrees from above the hips)");
    }
  }
  const JointIndex lh =
      rig.has(P::kLeftHand) ? rig.joint(P::kLeftHand) : rig.joint(P::kLeftForearm);
  const JointIndex rh =
      rig.has(P::kRightHand) ? rig.joint(P::kRightHand) : rig.joint(P::kRightForearm);
  if (lh != kNoParent && rh != kNoParent) {
    const float hl = height(c.position[lh]), hr = height(c.position[rh]);
    if (hl < 0.25f && hr < 0.25f) {
      char text[160];
      std::snprintf(text, sizeof text,
                    "all four limbs reach the ground (its hands are %.2f and %.2f leg lengths "
                    "above its feet)",
                    hl, hr);
      problems.push_back(text);
    }
  }
  if (problems.empty()) return "";
  std::string out = "not a humanoid in this reference pose: " + problems.front();
  if (problems.size() > 1) out += " and " + problems[1];
  return out;
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", u);
      out += esc;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

}  // namespace

std::string joint_reference(const Skeleton& skeleton, JointIndex joint) {
  // The shortest unique tail of the joint's path ("Torso", "Hips/Torso"), else "#index".
  std::string path = skeleton.name(joint);
  for (JointIndex a = joint;;) {
    std::size_t matches = 0;
    for (std::size_t j = 0; j < skeleton.size() && matches < 2; ++j) {
      std::string tail = skeleton.name(j);
      JointIndex b = static_cast<JointIndex>(j);
      for (JointIndex k = joint; k != a; k = skeleton.parent(k)) {
        b = skeleton.parent(b);
        if (b == kNoParent) break;
        tail = skeleton.name(b) + "/" + tail;
      }
      if (b != kNoParent && tail == path) ++matches;
    }
    if (matches == 1 && path.find('#') != 0) return path;
    a = skeleton.parent(a);
    if (a == kNoParent) break;
    path = skeleton.name(a) + "/" + path;
  }
  return "#" + std::to_string(joint);
}

Result<JointIndex> find_joint(const Skeleton& skeleton, std::string_view reference,
                              std::string_view where) {
  const std::string ref(reference);
  std::vector<JointIndex> by_name;
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    if (skeleton.name(j) == ref) by_name.push_back(static_cast<JointIndex>(j));
  }
  if (by_name.size() == 1) return by_name.front();
  if (by_name.empty() && ref.size() > 1 && ref[0] == '#' &&
      std::all_of(ref.begin() + 1, ref.end(),
                  [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); })) {
    const unsigned long long i = ref.size() > 12 ? ~0ull : std::stoull(ref.substr(1));
    if (i < skeleton.size()) return static_cast<JointIndex>(i);
    return make_error(where, "joint '" + ref + "': the skeleton has " +
                                 std::to_string(skeleton.size()) + " joints (#0 to #" +
                                 std::to_string(skeleton.size() - 1) + ")");
  }
  if (by_name.empty() && ref.find('/') != std::string::npos) {
    // A path, root first; a leading '/' anchors it at a root, otherwise it is a tail.
    const bool anchored = ref.front() == '/';
    std::vector<std::string> names;
    for (std::size_t start = anchored ? 1 : 0; start <= ref.size();) {
      const std::size_t slash = std::min(ref.find('/', start), ref.size());
      names.push_back(ref.substr(start, slash - start));
      start = slash + 1;
    }
    for (std::size_t j = 0; j < skeleton.size(); ++j) {
      JointIndex k = static_cast<JointIndex>(j);
      bool fits = true;
      for (std::size_t n = names.size(); n-- > 0 && fits;) {
        fits = k != kNoParent && skeleton.name(k) == names[n];
        if (fits) k = skeleton.parent(k);
      }
      if (fits && (!anchored || k == kNoParent)) by_name.push_back(static_cast<JointIndex>(j));
    }
    if (by_name.size() == 1) return by_name.front();
  }
  if (by_name.empty()) return make_error(where, "the skeleton has no joint '" + ref + "'");
  std::string list;
  for (std::size_t i = 0; i < by_name.size() && i < 4; ++i) {
    list += (i ? ", " : "") + std::string("#") + std::to_string(by_name[i]) + " '" +
            joint_reference(skeleton, by_name[i]) + "'";
  }
  return make_error(where, "'" + ref + "' names " + std::to_string(by_name.size()) + " joints (" +
                               list + (by_name.size() > 4 ? ", ..." : "") +
                               "): address one by its path or '#index'");
}

std::string humanoid_map_template(const Skeleton& skeleton, const HumanoidRig& rig,
                                  std::string_view section) {
  std::string out = "{\n  " + json_string(section) + ": {\n";
  for (std::size_t p = 0; p < kHumanoidPartCount; ++p) {
    const std::vector<JointIndex>& joints = rig.parts[p];
    out += "    " + json_string(kPartNames[p]) + ": ";
    if (joints.empty()) {
      out += "\"?\"";
    } else if (is_chain(static_cast<P>(p))) {
      out += "[";
      for (std::size_t i = 0; i < joints.size(); ++i) {
        out += (i ? ", " : "") + json_string(joint_reference(skeleton, joints[i]));
      }
      out += "]";
    } else {
      out += json_string(joint_reference(skeleton, joints.front()));
    }
    out += p + 1 < kHumanoidPartCount ? ",\n" : "\n";
  }
  return out + "  }\n}";
}

Result<HumanoidRig> match_humanoid(const Skeleton& skeleton, const HumanoidMatchOptions& options,
                                   std::string_view where) {
  if (skeleton.empty()) return make_error(where, "no hips: the skeleton has no joints");
  const Context c = make_context(skeleton, options.pose);
  HumanoidRig given;

  // Explicit parts first: everything else is matched around them.
  for (const HumanoidPartNames& e : options.explicit_parts) {
    const std::string part(to_string(e.part));
    const std::string at = std::string(where) + ": part '" + part + "'";
    if (e.joints.empty() || (!is_chain(e.part) && e.joints.size() != 1)) {
      return make_error(at, std::string("needs ") +
                                (is_chain(e.part) ? "one or more joints" : "exactly one joint"));
    }
    std::vector<JointIndex> joints;
    for (const std::string& name : e.joints) {
      Result<JointIndex> j = find_joint(skeleton, name, at);
      if (!j) return j.error();
      if (!joints.empty() && skeleton.parent(*j) != joints.back()) {
        return make_error(
            at, "'" + name + "' is not the child of '" + skeleton.name(joints.back()) + "'");
      }
      joints.push_back(*j);
    }
    if (given.has(e.part)) return make_error(at, "is given twice");
    given.parts[index(e.part)] = std::move(joints);
    given.found_by[index(e.part)] = PartSource::kExplicit;
  }

  HumanoidRig rig = given;
  std::string name_why;
  if (options.use_names) resolve_by_names(c, rig, name_why);
  std::string problem = incomplete(skeleton, rig, name_why);
  if (!problem.empty()) {
    // Names did not give a whole humanoid: start again from the explicit parts, by shape, and
    // let names add what shape leaves open (head, toes).
    HumanoidRig shaped = given;
    resolve_by_shape(c, shaped);
    std::string ignored;
    if (options.use_names && shaped.has(P::kHips)) resolve_by_names(c, shaped, ignored);
    const std::string shape_problem =
        shaped.has(P::kHips)
            ? incomplete(skeleton, shaped, "")
            : "no joint has two leg-like subtrees beside a spine with two arm-like ones";
    if (!shape_problem.empty()) {
      const bool named_any =
          options.use_names && std::any_of(rig.found_by.begin(), rig.found_by.end(),
                                           [](PartSource s) { return s != PartSource::kMissing; });
      const std::string section = options.map_section.empty() ? "target" : options.map_section;
      return make_error(
          where, (options.use_names ? problem + "; by the hierarchy's shape: " : "") +
                     shape_problem +
                     ".\nA map to complete (name a joint for each \"?\" or delete the line of an "
                     "optional part, then pass it with --map):\n" +
                     humanoid_map_template(skeleton, named_any ? rig : shaped, section));
    }
    rig = std::move(shaped);
  }
  if (options.check_stance) {
    const std::string stance = stance_problem(c, rig);
    if (!stance.empty()) {
      return make_error(where, stance +
                                   ". If it is one, give a reference pose in which it stands "
                                   "(--source-pose or --target-pose); if not, retarget it with "
                                   "joint pairs (a map with \"automatic\": false and \"joints\")");
    }
  }
  return rig;
}

std::vector<JointIndex> unmapped_joints(const Skeleton& skeleton, const HumanoidRig& rig) {
  const std::vector<JointIndex> mapped = rig.mapped_joints();
  std::vector<JointIndex> out;
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    if (!std::binary_search(mapped.begin(), mapped.end(), static_cast<JointIndex>(j))) {
      out.push_back(static_cast<JointIndex>(j));
    }
  }
  return out;
}

}  // namespace marrow
