/// @file
/// A skeleton: joints stored parent-before-child so local-to-model is one forward pass.
/// A skeleton may be a forest (several roots).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/math/soa_transform.h"
#include "marrow/math/transform.h"

namespace marrow {

using JointIndex = std::uint16_t;
inline constexpr JointIndex kNoParent = std::numeric_limits<JointIndex>::max();
/// kNoParent is reserved, so one less than the index type can count.
inline constexpr std::size_t kMaxJoints = std::numeric_limits<JointIndex>::max();

/// One joint as a source describes it: `parent` indexes the same description array (-1: root).
struct JointDesc {
  std::string name;
  std::int64_t parent = -1;
  Transform rest;
};

class Skeleton {
 public:
  Skeleton() = default;

  /// Validates and orders the joints parent-before-child. `joint_of_desc`, when given, receives
  /// for every description its joint index in the built skeleton. Errors name `where`.
  static Result<Skeleton> build(std::span<const JointDesc> joints, std::string_view where = {},
                                std::vector<JointIndex>* joint_of_desc = nullptr);

  std::size_t size() const { return parents_.size(); }
  bool empty() const { return parents_.empty(); }
  std::span<const JointIndex> parents() const { return parents_; }
  JointIndex parent(std::size_t joint) const { return parents_[joint]; }
  std::span<const std::string> names() const { return names_; }
  const std::string& name(std::size_t joint) const { return names_[joint]; }
  std::span<const Transform> rest_pose() const { return rest_; }
  /// The rest pose in structure-of-arrays groups of 8 joints (soa_transform.h).
  std::span<const SoaTransform> soa_rest_pose() const { return soa_rest_; }
  /// Every joint once, by depth: the roots, then their children, and so on, each depth in index
  /// order (parents still come before children). Joints of one depth do not depend on one another,
  /// so local-to-model visits them in this order and the processor overlaps their products instead
  /// of waiting on each parent in turn, as the index order's long chains (spine, fingers) make it.
  std::span<const JointIndex> depth_order() const { return depth_order_; }

  /// The first joint with this name; empty names are never found.
  std::optional<JointIndex> find(std::string_view name) const;
  /// Joints whose parent is `joint`, in order.
  std::vector<JointIndex> children(JointIndex joint) const;
  /// True when `joint` is `ancestor` or lies under it.
  bool is_descendant(JointIndex joint, JointIndex ancestor) const;

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<JointIndex> parents_;
  std::vector<std::string> names_;
  std::vector<Transform> rest_;
  std::vector<SoaTransform> soa_rest_;
  std::vector<JointIndex> depth_order_;
  std::unordered_map<std::string, JointIndex, NameHash, std::equal_to<>> by_name_;
};

}  // namespace marrow
