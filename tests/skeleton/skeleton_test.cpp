// Skeleton::build: ordering parent-before-child, forests, names and every kind of bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "marrow/skeleton/skeleton.h"

namespace marrow {
namespace {

// gtest alone (no gmock): a substring check that prints the whole message when it fails.
#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)

JointDesc joint(std::string name, std::int64_t parent, Vec3 t = {0, 0, 0}) {
  JointDesc d;
  d.name = std::move(name);
  d.parent = parent;
  d.rest.translation = t;
  return d;
}

// Every joint's parent comes before it.
void expect_parent_before_child(const Skeleton& s) {
  for (std::size_t j = 0; j < s.size(); ++j) {
    if (s.parent(j) != kNoParent) {
      EXPECT_LT(s.parent(j), j) << "joint " << j;
    }
  }
}

TEST(Skeleton, EmptyBuilds) {
  auto s = Skeleton::build({});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->empty());
  EXPECT_EQ(s->size(), 0u);
}

TEST(Skeleton, OrderedInputKeepsItsOrder) {
  const std::vector<JointDesc> descs = {joint("root", -1, {1, 0, 0}), joint("spine", 0, {0, 1, 0}),
                                        joint("head", 1, {0, 2, 0}), joint("arm", 1, {3, 0, 0})};
  std::vector<JointIndex> map;
  auto s = Skeleton::build(descs, "test", &map);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->size(), 4u);
  EXPECT_EQ(map, (std::vector<JointIndex>{0, 1, 2, 3}));
  EXPECT_EQ(std::vector<JointIndex>(s->parents().begin(), s->parents().end()),
            (std::vector<JointIndex>{kNoParent, 0, 1, 1}));
  EXPECT_EQ(s->name(2), "head");
  EXPECT_EQ(s->rest_pose()[3].translation, (Vec3{3, 0, 0}));
}

TEST(Skeleton, UnorderedInputIsReorderedParentBeforeChild) {
  // Children listed before their parents, root in the middle.
  const std::vector<JointDesc> descs = {
      joint("hand", 2, {0, 0, 3}),    // 0
      joint("root", -1, {1, 0, 0}),   // 1
      joint("arm", 1, {0, 2, 0}),     // 2
      joint("head", 1, {0, 0, 4}),    // 3
      joint("finger", 0, {5, 0, 0}),  // 4
      joint("jaw", 3, {6, 0, 0}),     // 5
  };
  std::vector<JointIndex> map;
  auto s = Skeleton::build(descs, "test", &map);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->size(), descs.size());
  ASSERT_EQ(map.size(), descs.size());
  expect_parent_before_child(*s);

  // The mapping is a permutation that carries names, rest poses and parent links over.
  std::vector<JointIndex> sorted = map;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], i);
  for (std::size_t i = 0; i < descs.size(); ++i) {
    const JointIndex j = map[i];
    EXPECT_EQ(s->name(j), descs[i].name);
    EXPECT_EQ(s->rest_pose()[j].translation, descs[i].rest.translation);
    if (descs[i].parent < 0) {
      EXPECT_EQ(s->parent(j), kNoParent);
    } else {
      EXPECT_EQ(s->parent(j), map[static_cast<std::size_t>(descs[i].parent)]);
    }
    EXPECT_EQ(s->find(descs[i].name), j);
  }
  // The only root ends up first.
  EXPECT_EQ(map[1], 0);
  EXPECT_EQ(s->parent(0), kNoParent);
}

TEST(Skeleton, JointOfDescIsOptional) {
  const std::vector<JointDesc> descs = {joint("b", 1), joint("a", -1)};
  auto s = Skeleton::build(descs);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->name(0), "a");
  EXPECT_EQ(s->name(1), "b");
  EXPECT_EQ(s->parent(1), 0);
}

TEST(Skeleton, ForestWithSeveralRoots) {
  // Two trees, interleaved and unordered.
  const std::vector<JointDesc> descs = {joint("l_child", 2), joint("r_root", -1),
                                        joint("l_root", -1), joint("r_child", 1),
                                        joint("r_grandchild", 3)};
  std::vector<JointIndex> map;
  auto s = Skeleton::build(descs, "forest", &map);
  ASSERT_TRUE(s.ok()) << s.error().message;
  expect_parent_before_child(*s);
  int roots = 0;
  for (std::size_t j = 0; j < s->size(); ++j) roots += s->parent(j) == kNoParent;
  EXPECT_EQ(roots, 2);
  const JointIndex l_root = *s->find("l_root"), r_root = *s->find("r_root");
  const JointIndex l_child = *s->find("l_child"), r_child = *s->find("r_child");
  const JointIndex r_grandchild = *s->find("r_grandchild");
  EXPECT_EQ(s->parent(l_root), kNoParent);
  EXPECT_EQ(s->parent(r_root), kNoParent);
  EXPECT_EQ(s->parent(l_child), l_root);
  EXPECT_EQ(s->parent(r_child), r_root);
  EXPECT_EQ(s->parent(r_grandchild), r_child);
  EXPECT_EQ(s->children(r_root), (std::vector<JointIndex>{r_child}));
  EXPECT_EQ(s->children(l_child), (std::vector<JointIndex>{}));
  EXPECT_TRUE(s->is_descendant(r_grandchild, r_root));
  EXPECT_TRUE(s->is_descendant(r_root, r_root));
  EXPECT_FALSE(s->is_descendant(r_grandchild, l_root));
  EXPECT_FALSE(s->is_descendant(r_root, r_child));
}

TEST(Skeleton, DepthOrderVisitsEachDepthInIndexOrder) {
  // 0 hips; 1 spine, 2 spine1, 3 head (a chain); 4 left leg, 5 left foot; 6 right leg;
  // 7 a second root. Depths: 0:{0,7} 1:{1,4,6} 2:{2,5} 3:{3}.
  const std::vector<JointDesc> descs = {joint("hips", -1), joint("spine", 0), joint("spine1", 1),
                                        joint("head", 2),  joint("l_leg", 0), joint("l_foot", 4),
                                        joint("r_leg", 0), joint("prop", -1)};
  auto s = Skeleton::build(descs, "depth");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->size(), 8u);
  const std::vector<JointIndex> got(s->depth_order().begin(), s->depth_order().end());
  EXPECT_EQ(got, (std::vector<JointIndex>{0, 7, 1, 4, 6, 2, 5, 3}));
  EXPECT_TRUE(Skeleton().depth_order().empty());
}

TEST(Skeleton, ChildrenInOrder) {
  const std::vector<JointDesc> descs = {joint("root", -1), joint("a", 0), joint("a1", 1),
                                        joint("b", 0), joint("c", 0)};
  auto s = Skeleton::build(descs);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->children(0), (std::vector<JointIndex>{1, 3, 4}));
  EXPECT_EQ(s->children(1), (std::vector<JointIndex>{2}));
}

TEST(Skeleton, FindByName) {
  const std::vector<JointDesc> descs = {joint("root", -1), joint("", 0), joint("twin", 0),
                                        joint("twin", 0)};
  auto s = Skeleton::build(descs);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->find("root"), JointIndex{0});
  EXPECT_EQ(s->find("twin"), JointIndex{2});  // the first of two
  EXPECT_EQ(s->find("missing"), std::nullopt);
  EXPECT_EQ(s->find(""), std::nullopt);  // empty names are never found
  EXPECT_EQ(s->find("Root"), std::nullopt);
}

TEST(Skeleton, RestRotationsAreNormalized) {
  std::vector<JointDesc> descs = {joint("root", -1)};
  descs[0].rest.rotation = {0, 0, 2, 2};
  descs[0].rest.scale = {1, 2, 3};
  auto s = Skeleton::build(descs);
  ASSERT_TRUE(s.ok());
  const Quat q = s->rest_pose()[0].rotation;
  EXPECT_NEAR(q.z, std::sqrt(0.5f), 1e-6f);
  EXPECT_NEAR(q.w, std::sqrt(0.5f), 1e-6f);
  EXPECT_EQ(s->rest_pose()[0].scale, (Vec3{1, 2, 3}));
}

TEST(Skeleton, CycleIsAnError) {
  // b and c point at each other; a is a proper root.
  const std::vector<JointDesc> descs = {joint("a", -1), joint("b", 2), joint("c", 1)};
  auto s = Skeleton::build(descs, "rig.gltf");
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "cycle");
  EXPECT_CONTAINS(s.error().message, "rig.gltf");
}

TEST(Skeleton, CycleWithoutAnyRootIsAnError) {
  const std::vector<JointDesc> descs = {joint("a", 2), joint("b", 0), joint("c", 1)};
  auto s = Skeleton::build(descs, "rig.gltf");
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "cycle");
}

TEST(Skeleton, CycleBelowAValidTreeIsAnError) {
  // 0 <- 1 is fine; 2 -> 3 -> 4 -> 2 hangs off nothing.
  const std::vector<JointDesc> descs = {joint("root", -1), joint("child", 0), joint("x", 4),
                                        joint("y", 2), joint("z", 3)};
  auto s = Skeleton::build(descs);
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "cycle");
}

TEST(Skeleton, ParentOutOfRangeIsAnError) {
  auto s = Skeleton::build(std::vector<JointDesc>{joint("a", -1), joint("b", 2)}, "f.bvh");
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "out of range");
  EXPECT_CONTAINS(s.error().message, "f.bvh");
  EXPECT_CONTAINS(s.error().message, "'b'");

  s = Skeleton::build(std::vector<JointDesc>{joint("a", -2)});
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "out of range");

  s = Skeleton::build(std::vector<JointDesc>{joint("a", std::numeric_limits<std::int64_t>::max())});
  ASSERT_FALSE(s.ok());
  s = Skeleton::build(std::vector<JointDesc>{joint("a", std::numeric_limits<std::int64_t>::min())});
  ASSERT_FALSE(s.ok());
}

TEST(Skeleton, SelfParentIsAnError) {
  auto s = Skeleton::build(std::vector<JointDesc>{joint("a", -1), joint("b", 1)});
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "its own parent");
  s = Skeleton::build(std::vector<JointDesc>{joint("a", 0)});
  ASSERT_FALSE(s.ok());
}

TEST(Skeleton, NonFiniteRestIsAnError) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (int channel = 0; channel < 3; ++channel) {
    std::vector<JointDesc> descs = {joint("root", -1), joint("bad", 0)};
    if (channel == 0) descs[1].rest.translation.y = nan;
    if (channel == 1) descs[1].rest.rotation.w = inf;
    if (channel == 2) descs[1].rest.scale.z = -inf;
    auto s = Skeleton::build(descs, "f");
    ASSERT_FALSE(s.ok()) << "channel " << channel;
    EXPECT_CONTAINS(s.error().message, "non-finite");
    EXPECT_CONTAINS(s.error().message, "'bad'");
  }
}

TEST(Skeleton, JointCountLimit) {
  // kNoParent is reserved, so kMaxJoints joints fit and one more does not.
  std::vector<JointDesc> descs(kMaxJoints + 1);
  for (std::size_t i = 0; i < descs.size(); ++i) {
    descs[i].parent = static_cast<std::int64_t>(i) - 1;
  }
  auto s = Skeleton::build(descs, "huge");
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.error().message, "huge");
  EXPECT_CONTAINS(s.error().message, std::to_string(kMaxJoints + 1));

  descs.pop_back();
  s = Skeleton::build(descs, "huge");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->size(), kMaxJoints);
  EXPECT_EQ(s->parent(kMaxJoints - 1), kMaxJoints - 2);
}

TEST(Skeleton, LargeUnorderedChainReordersWithoutRecursion) {
  // A 50000-deep chain listed leaf first: a recursive sort would blow the stack.
  const std::size_t n = 50000;
  std::vector<JointDesc> descs(n);
  for (std::size_t i = 0; i < n; ++i) {
    descs[i].parent = i + 1 < n ? static_cast<std::int64_t>(i + 1) : -1;
  }
  std::vector<JointIndex> map;
  auto s = Skeleton::build(descs, {}, &map);
  ASSERT_TRUE(s.ok()) << s.error().message;
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(map[i], n - 1 - i);
  expect_parent_before_child(*s);
}

}  // namespace
}  // namespace marrow
