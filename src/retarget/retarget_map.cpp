#include "marrow/retarget/retarget_map.h"

#include <algorithm>

namespace marrow {
namespace {

using P = HumanoidPart;

// The single-joint parts a humanoid map pairs one to one (the chains are handled apart).
constexpr P kPairedParts[] = {P::kHips,         P::kHead,      P::kLeftShoulder,  P::kLeftUpperArm,
                              P::kLeftForearm,  P::kLeftHand,  P::kRightShoulder, P::kRightUpperArm,
                              P::kRightForearm, P::kRightHand, P::kLeftThigh,     P::kLeftShin,
                              P::kLeftFoot,     P::kLeftToe,   P::kRightThigh,    P::kRightShin,
                              P::kRightFoot,    P::kRightToe};

// The mapped joint after a chain's tip: the neck's first joint, else the head.
JointIndex after_spine(const HumanoidRig& rig) {
  return rig.has(P::kNeck) ? rig.joint(P::kNeck) : rig.joint(P::kHead);
}
JointIndex last_or(const std::vector<JointIndex>& chain, JointIndex fallback) {
  return chain.empty() ? fallback : chain.back();
}

// A name without its namespace ("mixamorig:LeftHandIndex1" -> "LeftHandIndex1").
std::string_view bare(std::string_view name) {
  const std::size_t colon = name.rfind(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

// Joints the profile leaves unmapped on both sides but that carry the same name (fingers of two
// Mixamo rigs, twist bones), paired when they hang below joints the map already pairs with each
// other, so the pair follows the hierarchy. Targets in skeleton order, parents first.
void add_same_name_pairs(const Skeleton& source, const Skeleton& target, RetargetMap& map) {
  std::vector<JointIndex> pair_of(target.size(), kNoParent);  // target -> source
  for (const RetargetPair& p : map.pairs) pair_of[p.target] = p.source;
  std::vector<char> used(source.size());
  for (const RetargetPair& p : map.pairs) used[p.source] = 1;
  for (const RetargetChain& c : map.chains) {
    for (JointIndex t : c.target) pair_of[t] = c.source.empty() ? c.source_base : c.source.back();
    for (JointIndex s : c.source) used[s] = 1;
  }
  for (std::size_t j = 0; j < target.size(); ++j) {
    if (pair_of[j] != kNoParent || target.name(j).empty()) continue;
    // The nearest paired ancestor, and its source.
    JointIndex anchor = target.parent(j);
    while (anchor != kNoParent && pair_of[anchor] == kNoParent) anchor = target.parent(anchor);
    if (anchor == kNoParent) continue;
    const std::string_view name = bare(target.name(j));
    const auto inverts = [&](JointIndex s) {  // against every pair so far
      for (const RetargetPair& p : map.pairs) {
        const bool s_below = source.is_descendant(s, p.source) && s != p.source;
        const bool s_above = source.is_descendant(p.source, s) && s != p.source;
        const bool t_below = target.is_descendant(static_cast<JointIndex>(j), p.target);
        const bool t_above = target.is_descendant(p.target, static_cast<JointIndex>(j));
        if ((s_below && t_above) || (s_above && t_below)) return true;
      }
      return false;
    };
    for (std::size_t s = 0; s < source.size(); ++s) {
      if (used[s] || bare(source.name(s)) != name || s == pair_of[anchor] ||
          !source.is_descendant(static_cast<JointIndex>(s), pair_of[anchor]) ||
          inverts(static_cast<JointIndex>(s))) {
        continue;
      }
      map.pairs.push_back({static_cast<JointIndex>(s), static_cast<JointIndex>(j)});
      map.matched_by_name.push_back(static_cast<JointIndex>(j));
      pair_of[j] = static_cast<JointIndex>(s);
      used[s] = 1;
      break;
    }
  }
}

// Both sides matched to the humanoid profile (when the spec asks for it) into map's rigs.
Status match_rigs(const Skeleton& source, const Skeleton& target, const RetargetMapSpec& spec,
                  std::span<const Transform> source_pose, std::span<const Transform> target_pose,
                  const std::string& at, RetargetMap& map) {
  if (!spec.automatic && spec.source_parts.empty() && spec.target_parts.empty()) return {};
  HumanoidMatchOptions so, to;
  so.explicit_parts = spec.source_parts;
  so.pose = source_pose;
  so.map_section = "source";
  to.explicit_parts = spec.target_parts;
  to.pose = target_pose;
  to.map_section = "target";
  Result<HumanoidRig> s = match_humanoid(source, so, at + ": source");
  if (!s) return s.error();
  Result<HumanoidRig> t = match_humanoid(target, to, at + ": target");
  if (!t) return t.error();
  map.humanoid = true;
  map.source_rig = std::move(s).value();
  map.target_rig = std::move(t).value();
  return {};
}

// The spec's explicit joint pairs, by name; two sources for one target is an error.
Result<std::vector<RetargetPair>> explicit_pairs_of(const Skeleton& source, const Skeleton& target,
                                                    const RetargetMapSpec& spec,
                                                    const std::string& at) {
  std::vector<RetargetPair> pairs;
  for (const JointPairName& p : spec.joints) {
    const std::string at_pair = at + ": joints[\"" + p.source + "\"]";
    Result<JointIndex> s = find_joint(source, p.source, at_pair + ": source");
    if (!s) return s.error();
    Result<JointIndex> t = find_joint(target, p.target, at_pair + ": target");
    if (!t) return t.error();
    for (const RetargetPair& q : pairs) {
      if (q.target == *t) {
        return make_error(at, "joints: '" + source.name(q.source) + "' and '" + p.source +
                                  "' both drive target joint '" + p.target +
                                  "' (a many-to-one map)");
      }
    }
    pairs.push_back({*s, *t});
  }
  return pairs;
}

// The profile's pairs and its spine and neck chains, leaving out the targets `explicit_pairs`
// drive.
void add_profile_pairs(const std::vector<RetargetPair>& explicit_pairs, RetargetMap& map) {
  const auto explicitly_driven = [&](JointIndex t) {
    return std::any_of(explicit_pairs.begin(), explicit_pairs.end(),
                       [t](const RetargetPair& q) { return q.target == t; });
  };
  const HumanoidRig& sr = map.source_rig;
  const HumanoidRig& tr = map.target_rig;
  map.source_hips = sr.joint(P::kHips);
  map.target_hips = tr.joint(P::kHips);
  for (P part : kPairedParts) {
    if (sr.has(part) && tr.has(part) && !explicitly_driven(tr.joint(part))) {
      map.pairs.push_back({sr.joint(part), tr.joint(part)});
    }
  }
  const auto without_explicit = [&](std::vector<JointIndex> chain) {
    std::erase_if(chain, explicitly_driven);
    return chain;
  };
  RetargetChain spine{"spine",
                      sr.joint(P::kHips),
                      tr.joint(P::kHips),
                      after_spine(sr),
                      after_spine(tr),
                      sr[P::kSpine],
                      without_explicit(tr[P::kSpine])};
  RetargetChain neck{"neck",
                     last_or(sr[P::kSpine], sr.joint(P::kHips)),
                     last_or(tr[P::kSpine], tr.joint(P::kHips)),
                     sr.joint(P::kHead),
                     tr.joint(P::kHead),
                     sr[P::kNeck],
                     without_explicit(tr[P::kNeck])};
  for (RetargetChain* c : {&spine, &neck}) {
    if (!c->target.empty()) map.chains.push_back(std::move(*c));
  }
}

// A (source, target) link of the map; a chain's joints are linked all to all, as one group:
// their order is the chain's business.
struct Link {
  JointIndex source, target;
  std::size_t group;
};

std::vector<Link> links_of(const RetargetMap& map) {
  std::vector<Link> links;
  for (std::size_t i = 0; i < map.pairs.size(); ++i) {
    links.push_back({map.pairs[i].source, map.pairs[i].target, i});
  }
  for (std::size_t c = 0; c < map.chains.size(); ++c) {
    const RetargetChain& chain = map.chains[c];
    const std::size_t group = map.pairs.size() + c;
    for (JointIndex t : chain.target) {
      for (JointIndex s : chain.source) links.push_back({s, t, group});
      if (chain.source.empty() && chain.source_base != kNoParent) {
        links.push_back({chain.source_base, t, group});
      }
    }
  }
  return links;
}

// No target driven twice, and no pair inverting the hierarchy (a cycle through the map).
Status check_links(const Skeleton& source, const Skeleton& target, const RetargetMap& map,
                   const std::vector<Link>& links, const std::string& at) {
  // Many-to-one among the profile's pairs cannot happen (a rig never gives a joint two parts);
  // check the whole map anyway, since explicit parts can bend it.
  for (std::size_t i = 0; i < map.pairs.size(); ++i) {
    for (std::size_t k = i + 1; k < map.pairs.size(); ++k) {
      if (map.pairs[i].target == map.pairs[k].target) {
        return make_error(at, "target joint '" + target.name(map.pairs[i].target) +
                                  "' is driven by both '" + source.name(map.pairs[i].source) +
                                  "' and '" + source.name(map.pairs[k].source) +
                                  "' (a many-to-one map)");
      }
    }
  }
  for (const Link& a : links) {
    for (const Link& b : links) {
      if (a.group == b.group || a.source == b.source || a.target == b.target) continue;
      const bool source_above = source.is_descendant(b.source, a.source);
      const bool target_below = target.is_descendant(a.target, b.target);
      if (source_above && target_below) {
        return make_error(at, "the map inverts the hierarchy (a cycle through the map): '" +
                                  source.name(a.source) + "' is above '" + source.name(b.source) +
                                  "' in the source, but '" + target.name(a.target) +
                                  "' is below '" + target.name(b.target) + "' in the target");
      }
    }
  }
  return {};
}

}  // namespace

Result<RetargetMap> make_retarget_map(const Skeleton& source, const Skeleton& target,
                                      const RetargetMapSpec& spec,
                                      std::span<const Transform> source_pose,
                                      std::span<const Transform> target_pose,
                                      std::string_view where) {
  const std::string at(where);
  RetargetMap map;
  if (Status s = match_rigs(source, target, spec, source_pose, target_pose, at, map); !s) {
    return s.error();
  }
  // Explicit pairs first: their target joints are taken out of the profile.
  Result<std::vector<RetargetPair>> explicit_pairs = explicit_pairs_of(source, target, spec, at);
  if (!explicit_pairs) return explicit_pairs.error();
  if (map.humanoid) add_profile_pairs(*explicit_pairs, map);
  map.pairs.insert(map.pairs.end(), explicit_pairs->begin(), explicit_pairs->end());
  if (map.humanoid && spec.automatic) add_same_name_pairs(source, target, map);
  if (map.pairs.empty() && map.chains.empty()) {
    return make_error(at, "maps no joint: give joint pairs or let the humanoid profile match");
  }
  const std::vector<Link> links = links_of(map);
  if (Status s = check_links(source, target, map, links, at); !s) return s.error();
  std::vector<char> target_used(target.size()), source_used(source.size());
  for (const Link& l : links) {
    target_used[l.target] = 1;
    source_used[l.source] = 1;
  }
  for (std::size_t j = 0; j < target.size(); ++j) {
    if (!target_used[j]) map.unmapped_target.push_back(static_cast<JointIndex>(j));
  }
  for (std::size_t j = 0; j < source.size(); ++j) {
    if (!source_used[j]) map.unmapped_source.push_back(static_cast<JointIndex>(j));
  }
  return map;
}

}  // namespace marrow
