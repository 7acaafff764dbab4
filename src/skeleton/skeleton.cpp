#include "marrow/skeleton/skeleton.h"

#include <string>

namespace marrow {

Result<Skeleton> Skeleton::build(std::span<const JointDesc> joints, std::string_view where,
                                 std::vector<JointIndex>* joint_of_desc) {
  const std::size_t n = joints.size();
  if (n > kMaxJoints) {
    return make_error(where, std::to_string(n) + " joints, more than the " +
                                 std::to_string(kMaxJoints) + " a skeleton can index");
  }
  std::vector<std::vector<std::size_t>> children(n);
  std::vector<std::size_t> roots;
  bool already_ordered = true;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t p = joints[i].parent;
    if (p < -1 || p >= static_cast<std::int64_t>(n)) {
      return make_error(where, "joint " + std::to_string(i) + " ('" + joints[i].name +
                                   "') has parent " + std::to_string(p) + ", out of range [0, " +
                                   std::to_string(n) + ")");
    }
    if (p == static_cast<std::int64_t>(i)) {
      return make_error(
          where, "joint " + std::to_string(i) + " ('" + joints[i].name + "') is its own parent");
    }
    if (!is_finite(joints[i].rest)) {
      return make_error(where, "joint " + std::to_string(i) + " ('" + joints[i].name +
                                   "') has a non-finite rest transform");
    }
    if (p < 0) {
      roots.push_back(i);
    } else {
      children[static_cast<std::size_t>(p)].push_back(i);
      if (p > static_cast<std::int64_t>(i)) already_ordered = false;
    }
  }

  // Depth-first preorder from the roots keeps each subtree together; an input that is already
  // parent-before-child keeps its own order so indices stay familiar.
  std::vector<std::size_t> order;
  order.reserve(n);
  if (already_ordered) {
    for (std::size_t i = 0; i < n; ++i) order.push_back(i);
  } else {
    std::vector<std::size_t> stack;
    for (std::size_t root : roots) {
      stack.push_back(root);
      while (!stack.empty()) {
        const std::size_t j = stack.back();
        stack.pop_back();
        order.push_back(j);
        for (auto c = children[j].rbegin(); c != children[j].rend(); ++c) stack.push_back(*c);
      }
    }
    if (order.size() != n) {
      // Whatever was not reached from a root hangs in a cycle.
      std::vector<bool> reached(n, false);
      for (std::size_t j : order) reached[j] = true;
      for (std::size_t i = 0; i < n; ++i) {
        if (!reached[i]) {
          return make_error(where, "joint " + std::to_string(i) + " ('" + joints[i].name +
                                       "') is part of a parent cycle");
        }
      }
    }
  }

  std::vector<JointIndex> new_index(n);
  for (std::size_t k = 0; k < n; ++k) new_index[order[k]] = static_cast<JointIndex>(k);

  Skeleton s;
  s.parents_.resize(n);
  s.names_.resize(n);
  s.rest_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const JointDesc& d = joints[order[k]];
    s.parents_[k] = d.parent < 0 ? kNoParent : new_index[static_cast<std::size_t>(d.parent)];
    s.names_[k] = d.name;
    s.rest_[k] = d.rest;
    s.rest_[k].rotation = normalize(d.rest.rotation);
    if (!d.name.empty()) s.by_name_.emplace(d.name, static_cast<JointIndex>(k));
  }
  s.soa_rest_.resize(soa_group_count(n));
  to_soa(s.rest_, s.soa_rest_);
  // Depth order by counting sort: stable, so each depth keeps the index order.
  std::vector<std::size_t> depth(n), per_depth(n + 1, 0);
  for (std::size_t k = 0; k < n; ++k) {
    depth[k] = s.parents_[k] == kNoParent ? 0 : depth[s.parents_[k]] + 1;
    ++per_depth[depth[k] + 1];
  }
  for (std::size_t d = 1; d <= n; ++d) per_depth[d] += per_depth[d - 1];
  s.depth_order_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    s.depth_order_[per_depth[depth[k]]++] = static_cast<JointIndex>(k);
  }
  if (joint_of_desc) *joint_of_desc = std::move(new_index);
  return s;
}

std::optional<JointIndex> Skeleton::find(std::string_view name) const {
  if (name.empty()) return std::nullopt;
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

std::vector<JointIndex> Skeleton::children(JointIndex joint) const {
  std::vector<JointIndex> out;
  for (std::size_t j = joint + 1u; j < parents_.size(); ++j) {
    if (parents_[j] == joint) out.push_back(static_cast<JointIndex>(j));
  }
  return out;
}

bool Skeleton::is_descendant(JointIndex joint, JointIndex ancestor) const {
  for (JointIndex j = joint; j != kNoParent; j = parents_[j]) {
    if (j == ancestor) return true;
  }
  return false;
}

}  // namespace marrow
