#include "marrow/retarget/humanoid.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "marrow/pose/local_to_model.h"

namespace marrow {
namespace {

using P = HumanoidPart;

constexpr std::array<std::string_view, kHumanoidPartCount> kPartNames = {
    "hips",           "spine",        "neck",       "head",           "left_shoulder",
    "left_upper_arm", "left_forearm", "left_hand",  "right_shoulder", "right_upper_arm",
    "right_forearm",  "right_hand",   "left_thigh", "left_shin",      "left_foot",
    "left_toe",       "right_thigh",  "right_shin", "right_foot",     "right_toe"};

std::size_t index(P p) {
  return static_cast<std::size_t>(p);
}

// ---- names ----

enum class Side : std::uint8_t { kNone, kLeft, kRight };

struct ParsedName {
  Side side = Side::kNone;
  std::string base;  // lower case, words joined, trailing digits dropped
  bool marker = false;
};

std::vector<std::string> split_words(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  const auto flush = [&] {
    if (!word.empty()) words.push_back(word);
    word.clear();
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (!std::isalnum(c)) {
      flush();
      continue;
    }
    if (!word.empty()) {
      const unsigned char prev = static_cast<unsigned char>(name[i - 1]);
      const bool next_lower =
          i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
      // camelCase, a capital starting a word after capitals ("LHip"), a letter after digits.
      if ((std::islower(prev) && std::isupper(c)) ||
          (std::isupper(prev) && std::isupper(c) && next_lower) ||
          (std::isdigit(prev) && std::isalpha(c))) {
        flush();
      }
    }
    word.push_back(static_cast<char>(std::tolower(c)));
  }
  flush();
  return words;
}

bool is_bip_prefix(const std::string& w) {
  // "bip01", "bip001", or "bip" followed by a digits word.
  if (w.rfind("bip", 0) != 0) return false;
  return std::all_of(w.begin() + 3, w.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

ParsedName parse_name(std::string_view full) {
  ParsedName out;
  const std::size_t colon = full.rfind(':');
  const std::string_view name = colon == std::string_view::npos ? full : full.substr(colon + 1);
  std::vector<std::string> words = split_words(name);
  if (!words.empty() && is_bip_prefix(words.front())) {
    words.erase(words.begin());
    if (!words.empty() && std::all_of(words.front().begin(), words.front().end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        })) {
      words.erase(words.begin());  // "Bip 01"
    }
  }
  if (words.empty()) return out;
  const std::string& last = words.back();
  out.marker = last == "end" || last == "nub" || last == "tip" || last == "top" ||
               (last.size() > 3 && (last.ends_with("end") || last.ends_with("nub")));
  for (auto it = words.begin(); it != words.end(); ++it) {
    const std::string& w = *it;
    if (w == "left" || w == "l" || w == "lt") out.side = Side::kLeft;
    if (w == "right" || w == "r" || w == "rt") out.side = Side::kRight;
    if (out.side != Side::kNone) {
      words.erase(it);
      break;
    }
  }
  if (out.side == Side::kNone) {
    std::string& first = words.front();
    if (first.size() > 4 && first.rfind("left", 0) == 0) {
      out.side = Side::kLeft;
      first = first.substr(4);
    } else if (first.size() > 5 && first.rfind("right", 0) == 0) {
      out.side = Side::kRight;
      first = first.substr(5);
    }
  }
  for (const std::string& w : words) out.base += w;
  while (!out.base.empty() && std::isdigit(static_cast<unsigned char>(out.base.back()))) {
    out.base.pop_back();
  }
  return out;
}

bool in(std::string_view s, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// The part a parsed name stands for, if any.
std::optional<P> part_of(const ParsedName& n) {
  if (n.marker || n.base.empty()) return std::nullopt;
  const std::string& b = n.base;
  if (n.side == Side::kNone) {
    if (in(b, {"hips", "hip", "pelvis"})) return P::kHips;
    if (in(b, {"spine", "lowerback", "chest", "upperchest", "ab", "abdomen", "torso"})) {
      return P::kSpine;
    }
    if (b == "neck") return P::kNeck;
    if (b == "head") return P::kHead;
    return std::nullopt;
  }
  const bool left = n.side == Side::kLeft;
  if (in(b, {"shoulder", "clavicle", "collar", "collarbone"})) {
    return left ? P::kLeftShoulder : P::kRightShoulder;
  }
  if (in(b, {"arm", "upperarm", "uparm"})) return left ? P::kLeftUpperArm : P::kRightUpperArm;
  if (in(b, {"forearm", "lowerarm", "elbow"})) return left ? P::kLeftForearm : P::kRightForearm;
  if (in(b, {"hand", "wrist"})) return left ? P::kLeftHand : P::kRightHand;
  if (in(b, {"upleg", "upperleg", "thigh", "hip"})) return left ? P::kLeftThigh : P::kRightThigh;
  if (in(b, {"leg", "lowerleg", "calf", "shin", "knee"}))
    return left ? P::kLeftShin : P::kRightShin;
  if (in(b, {"foot", "ankle"})) return left ? P::kLeftFoot : P::kRightFoot;
  if (in(b, {"toebase", "toe", "toes", "ball", "footthumb"}))
    return left ? P::kLeftToe : P::kRightToe;
  return std::nullopt;
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

  bool above(JointIndex ancestor, JointIndex j) const {  // strictly above
    return j != ancestor && s.is_descendant(j, ancestor);
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
};

Context make_context(const Skeleton& s, std::span<const Transform> pose) {
  Context c{s, {}, {}, {}, {}, {}, {}};
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
  for (std::size_t j = 0; j < s.size(); ++j) c.marker[j] = parse_name(s.name(j)).marker;
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

void set(HumanoidRig& rig, P p, std::vector<JointIndex> joints, PartSource source) {
  if (rig.has(p) || joints.empty()) return;
  rig.parts[index(p)] = std::move(joints);
  rig.found_by[index(p)] = source;
}

struct Limb {
  P top, upper, lower, end;  // shoulder/thigh..., the upper and lower bones, hand/foot
};

// Fills a limb from its named end part upwards: end, then lower (named above it, or end's
// parent), upper (likewise), and the optional top, only ever taken by name (above upper).
void resolve_limb_by_names(const Context& c, HumanoidRig& rig,
                           const std::array<std::vector<JointIndex>, kHumanoidPartCount>& cand,
                           P upper, P lower, P end, P top) {
  JointIndex e = rig.joint(end);
  if (e == kNoParent) {
    for (JointIndex j : cand[index(end)]) {
      // The first candidate whose lower and upper parts exist.
      const JointIndex lo = closest_above(c, j, cand[index(lower)]);
      const JointIndex l = lo != kNoParent ? lo : c.s.parent(j);
      if (l == kNoParent || c.s.parent(l) == kNoParent) continue;
      e = j;
      break;
    }
    if (e == kNoParent) return;
    set(rig, end, {e}, PartSource::kName);
  }
  JointIndex lo = rig.joint(lower);
  if (lo == kNoParent) {
    const JointIndex named = closest_above(c, e, cand[index(lower)]);
    lo = named != kNoParent ? named : c.s.parent(e);
    if (lo == kNoParent) return;
    set(rig, lower, {lo}, named != kNoParent ? PartSource::kName : PartSource::kShape);
  }
  JointIndex up = rig.joint(upper);
  if (up == kNoParent) {
    const JointIndex named = closest_above(c, lo, cand[index(upper)]);
    up = named != kNoParent ? named : c.s.parent(lo);
    if (up == kNoParent) return;
    set(rig, upper, {up}, named != kNoParent ? PartSource::kName : PartSource::kShape);
  }
  if (!rig.has(top)) {
    const JointIndex named = closest_above(c, up, cand[index(top)]);
    if (named != kNoParent) set(rig, top, {named}, PartSource::kName);
  }
}

void resolve_by_names(const Context& c, HumanoidRig& rig) {
  std::array<std::vector<JointIndex>, kHumanoidPartCount> cand;
  for (std::size_t j = 0; j < c.s.size(); ++j) {
    if (const std::optional<P> p = part_of(parse_name(c.s.name(j)))) {
      cand[index(*p)].push_back(static_cast<JointIndex>(j));
    }
  }
  // Legs: foot, shin, thigh (here "top" is unused: pass the toe, filled below instead).
  for (const Limb& leg : {Limb{P::kLeftToe, P::kLeftThigh, P::kLeftShin, P::kLeftFoot},
                          Limb{P::kRightToe, P::kRightThigh, P::kRightShin, P::kRightFoot}}) {
    std::array<std::vector<JointIndex>, kHumanoidPartCount> no_top = cand;
    no_top[index(leg.top)].clear();
    resolve_limb_by_names(c, rig, no_top, leg.upper, leg.lower, leg.end, leg.top);
    const JointIndex foot = rig.joint(leg.end);
    if (foot != kNoParent && !rig.has(leg.top)) {
      for (JointIndex t : cand[index(leg.top)]) {
        if (c.above(foot, t)) {
          set(rig, leg.top, {t}, PartSource::kName);
          break;
        }
      }
    }
  }
  // Hips: the deepest candidate above both thighs.
  const JointIndex lt = rig.joint(P::kLeftThigh), rt = rig.joint(P::kRightThigh);
  if (!rig.has(P::kHips) && lt != kNoParent && rt != kNoParent) {
    JointIndex best = kNoParent;
    for (JointIndex h : cand[index(P::kHips)]) {
      if (c.above(h, lt) && c.above(h, rt) && (best == kNoParent || c.above(best, h))) best = h;
    }
    if (best != kNoParent) {
      set(rig, P::kHips, {best}, PartSource::kName);
    } else {
      // No named hips above both thighs: their lowest common ancestor.
      JointIndex a = c.s.parent(lt);
      while (a != kNoParent && !c.s.is_descendant(rt, a)) a = c.s.parent(a);
      set(rig, P::kHips, {a}, PartSource::kShape);
    }
  }
  const JointIndex hips = rig.joint(P::kHips);
  if (hips == kNoParent) return;
  // Arms, below the hips.
  for (const Limb& arm :
       {Limb{P::kLeftShoulder, P::kLeftUpperArm, P::kLeftForearm, P::kLeftHand},
        Limb{P::kRightShoulder, P::kRightUpperArm, P::kRightForearm, P::kRightHand}}) {
    std::array<std::vector<JointIndex>, kHumanoidPartCount> below = cand;
    std::erase_if(below[index(arm.end)], [&](JointIndex j) { return !c.above(hips, j); });
    resolve_limb_by_names(c, rig, below, arm.upper, arm.lower, arm.end, arm.top);
  }
  // Head, neck and spine along the path from the hips to the head.
  if (!rig.has(P::kHead)) {
    for (JointIndex h : cand[index(P::kHead)]) {
      if (c.above(hips, h)) {
        set(rig, P::kHead, {h}, PartSource::kName);
        break;
      }
    }
  }
  const JointIndex head = rig.joint(P::kHead);
  if (head != kNoParent && c.above(hips, head)) {
    const std::vector<JointIndex> path = c.between(hips, head);
    std::size_t neck_start = path.size();
    for (std::size_t i = 0; i < path.size(); ++i) {
      const std::vector<JointIndex>& necks = cand[index(P::kNeck)];
      if (std::find(necks.begin(), necks.end(), path[i]) != necks.end()) {
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
    if (b.a == kNoParent || b.other == kNoParent) continue;
    const JointIndex arms = find_arms_node(c, b.other);
    if (arms == kNoParent) continue;
    int d = 0;
    for (JointIndex a = c.s.parent(j); a != kNoParent; a = c.s.parent(a)) ++d;
    if (d < best_depth) {
      best_depth = d;
      hips = static_cast<JointIndex>(j);
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

Result<HumanoidRig> match_humanoid(const Skeleton& skeleton, const HumanoidMatchOptions& options,
                                   std::string_view where) {
  if (skeleton.empty()) return make_error(where, "no hips: the skeleton has no joints");
  const Context c = make_context(skeleton, options.pose);
  HumanoidRig rig;

  // Explicit parts first: everything else is matched around them.
  for (const HumanoidPartNames& e : options.explicit_parts) {
    const std::string part(to_string(e.part));
    if (e.joints.empty() || (!is_chain(e.part) && e.joints.size() != 1)) {
      return make_error(where, "part '" + part + "' needs " +
                                   (is_chain(e.part) ? "one or more joints" : "exactly one joint"));
    }
    std::vector<JointIndex> joints;
    for (const std::string& name : e.joints) {
      const std::optional<JointIndex> j = skeleton.find(name);
      if (!j)
        return make_error(where, "part '" + part + "' names joint '" + name +
                                     "', which the skeleton does not have");
      if (!joints.empty() && skeleton.parent(*j) != joints.back()) {
        return make_error(where, "chain '" + part + "': '" + name + "' is not the child of '" +
                                     skeleton.name(joints.back()) + "'");
      }
      joints.push_back(*j);
    }
    if (rig.has(e.part)) return make_error(where, "part '" + part + "' is given twice");
    rig.parts[index(e.part)] = std::move(joints);
    rig.found_by[index(e.part)] = PartSource::kExplicit;
  }

  if (options.use_names) resolve_by_names(c, rig);
  const auto legs_complete = [&rig] {
    for (P p : {P::kHips, P::kLeftThigh, P::kLeftShin, P::kLeftFoot, P::kRightThigh, P::kRightShin,
                P::kRightFoot}) {
      if (!rig.has(p)) return false;
    }
    return true;
  };
  if (!legs_complete()) {
    // Names did not give the legs: start again from the explicit parts, by shape.
    HumanoidRig shaped;
    for (std::size_t p = 0; p < kHumanoidPartCount; ++p) {
      if (rig.found_by[p] == PartSource::kExplicit) {
        shaped.parts[p] = rig.parts[p];
        shaped.found_by[p] = PartSource::kExplicit;
      }
    }
    resolve_by_shape(c, shaped);
    if (options.use_names) resolve_by_names(c, shaped);  // names may still add head, arms...
    rig = std::move(shaped);
  }

  if (!rig.has(P::kHips)) {
    return make_error(where,
                      "no hips: no joint is named like hips above both thighs and no joint "
                      "has two leg-like subtrees beside a spine with two arm-like ones");
  }
  for (P p :
       {P::kLeftThigh, P::kLeftShin, P::kLeftFoot, P::kRightThigh, P::kRightShin, P::kRightFoot}) {
    if (!rig.has(p)) {
      return make_error(where, "no " + std::string(to_string(p)) + ": the legs below the hips '" +
                                   skeleton.name(rig.joint(P::kHips)) + "' are incomplete");
    }
  }
  // No joint may serve two parts.
  std::vector<JointIndex> all = rig.mapped_joints();
  const auto twice = std::adjacent_find(all.begin(), all.end());
  if (twice != all.end()) {
    std::string parts;
    for (std::size_t p = 0; p < kHumanoidPartCount; ++p) {
      const std::vector<JointIndex>& j = rig.parts[p];
      if (std::find(j.begin(), j.end(), *twice) != j.end()) {
        parts += (parts.empty() ? "" : " and ") + std::string(kPartNames[p]);
      }
    }
    return make_error(where, "joint '" + skeleton.name(*twice) + "' is both " + parts);
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
