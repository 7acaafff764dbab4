// Rigs (the skeleton in the mesh's space) and the bone segments both methods measure against.
#include <algorithm>
#include <cmath>
#include <string>

#include "internal.h"
#include "marrow/pose/local_to_model.h"

namespace marrow::autoskin {
namespace {

std::vector<Mat4> rest_model(const Skeleton& skeleton) {
  std::vector<Mat4> model(skeleton.size());
  (void)local_to_model(skeleton, skeleton.rest_pose(), model);
  return model;
}

Status check_joints(const Skeleton& skeleton, std::span<const JointIndex> joints,
                    std::string_view where) {
  std::vector<bool> seen(skeleton.size(), false);
  for (std::size_t i = 0; i < joints.size(); ++i) {
    if (joints[i] >= skeleton.size())
      return make_error(where, "joint " + std::to_string(i) + " = " + std::to_string(joints[i]) +
                                   " is out of the skeleton's range (" +
                                   std::to_string(skeleton.size()) + " joints)");
    if (seen[joints[i]])
      return make_error(where, "joint '" + skeleton.name(joints[i]) + "' is listed twice");
    seen[joints[i]] = true;
  }
  if (joints.size() > 65535) return make_error(where, "more than 65535 bone joints");
  return {};
}

}  // namespace

Result<Rig> rig_from_rest_pose(const Skeleton& skeleton, std::span<const JointIndex> joints) {
  if (skeleton.empty()) return make_error("autoskin", "the skeleton has no joints");
  Rig rig;
  rig.skeleton = &skeleton;
  rig.bind_model = rest_model(skeleton);
  if (joints.empty()) {
    for (std::size_t j = 0; j < skeleton.size(); ++j)
      rig.joints.push_back(static_cast<JointIndex>(j));
  } else {
    rig.joints.assign(joints.begin(), joints.end());
  }
  if (Status s = check_joints(skeleton, rig.joints, "autoskin rig"); !s) return s.error();
  return rig;
}

Result<Rig> rig_from_skin(const Skeleton& skeleton, const Skin& skin) {
  const std::string where = "skin '" + skin.name + "'";
  if (skin.joints.empty()) return make_error(where, "has no joints");
  if (skin.inverse_bind_matrices.size() != skin.joints.size())
    return make_error(where, "has " + std::to_string(skin.inverse_bind_matrices.size()) +
                                 " inverse bind matrices for " +
                                 std::to_string(skin.joints.size()) + " joints");
  if (Status s = check_joints(skeleton, skin.joints, where); !s) return s.error();
  Rig rig;
  rig.skeleton = &skeleton;
  rig.joints = skin.joints;
  const std::vector<Mat4> rest = rest_model(skeleton);
  rig.bind_model = rest;
  std::vector<bool> placed(skeleton.size(), false);
  for (std::size_t i = 0; i < skin.joints.size(); ++i) {
    Mat4 bind;
    if (!invert_affine(skin.inverse_bind_matrices[i], bind))
      return make_error(where, "inverse bind matrix " + std::to_string(i) + " (joint '" +
                                   skeleton.name(skin.joints[i]) + "') is singular");
    rig.bind_model[skin.joints[i]] = bind;
    placed[skin.joints[i]] = true;
  }
  // Joints outside the skin (end sites, helpers) keep their rest offset from the parent, so the
  // bone segments that end on them are in the skin's space too. Parents come first.
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    if (placed[j]) continue;
    const JointIndex p = skeleton.parent(j);
    if (p == kNoParent) continue;
    Mat4 parent_rest_inverse;
    if (!invert_affine(rest[p], parent_rest_inverse)) continue;
    rig.bind_model[j] = mul_affine(rig.bind_model[p], mul_affine(parent_rest_inverse, rest[j]));
  }
  return rig;
}

namespace {

// The longest side of the box around `points`; 0 for none.
template <typename Points>
float longest_side(const Points& points) {
  bool any = false;
  Vec3 lo{}, hi{};
  points([&](Vec3 p) {
    lo = any ? Vec3{std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)} : p;
    hi = any ? Vec3{std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)} : p;
    any = true;
  });
  const Vec3 size = hi - lo;
  return std::max({size.x, size.y, size.z});
}

}  // namespace

float Extents::ratio() const {
  if (!(mesh > 0) || !(skeleton > 0)) return 0;
  return std::max(mesh, skeleton) / std::min(mesh, skeleton);
}

Extents measure_extents(std::span<const MeshPart> parts, const Rig& rig) {
  Extents e;
  e.mesh = longest_side([&](auto&& add) {
    for (const MeshPart& part : parts)
      for (Vec3 p : part.positions)
        if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z)) add(p);
  });
  e.skeleton = longest_side([&](auto&& add) {
    for (JointIndex j : rig.joints)
      if (j < rig.bind_model.size()) add(rig.bind_model[j].translation());
  });
  return e;
}

std::vector<Bone> build_bones(const Rig& rig) {
  const Skeleton& s = *rig.skeleton;
  std::vector<int> rig_index(s.size(), -1);
  for (std::size_t i = 0; i < rig.joints.size(); ++i)
    rig_index[rig.joints[i]] = static_cast<int>(i);
  std::vector<std::vector<JointIndex>> children(s.size());
  for (std::size_t j = 0; j < s.size(); ++j)
    if (s.parent(j) != kNoParent) children[s.parent(j)].push_back(static_cast<JointIndex>(j));
  // A child counts as a bone's tail when it is a bone joint itself, leads to bone joints, or is
  // an end site (a leaf such as HeadTop_End); other children (mesh nodes, helpers) do not.
  std::vector<bool> leads_to_bone(s.size(), false);
  for (std::size_t j = s.size(); j-- > 0;) {
    if (rig_index[j] >= 0) leads_to_bone[j] = true;
    if (leads_to_bone[j] && s.parent(j) != kNoParent) leads_to_bone[s.parent(j)] = true;
  }
  std::vector<Bone> bones;
  for (std::size_t i = 0; i < rig.joints.size(); ++i) {
    const JointIndex j = rig.joints[i];
    const Vec3 head = rig.bind_model[j].translation();
    bool any = false;
    for (JointIndex c : children[j]) {
      if (!leads_to_bone[c] && !children[c].empty()) continue;
      bones.push_back({static_cast<std::uint16_t>(i), head, rig.bind_model[c].translation(), j, c});
      any = true;
    }
    if (any) continue;
    // A leaf: continue the parent's direction for half its length, or a point.
    Vec3 tail = head;
    const JointIndex p = s.parent(j);
    if (p != kNoParent) tail = head + (head - rig.bind_model[p].translation()) * 0.5f;
    bones.push_back({static_cast<std::uint16_t>(i), head, tail, j, kNoParent});
  }
  return bones;
}

namespace detail {

SegmentDistance segment_distance(Vec3 p, Vec3 a, Vec3 b) {
  const Vec3 ab = b - a;
  const float len2 = dot(ab, ab);
  float t = 0.5f;
  Vec3 closest = a;
  if (len2 > 0) {
    t = dot(p - a, ab) / len2;
    closest = a + ab * std::clamp(t, 0.0f, 1.0f);
  }
  const Vec3 d = p - closest;
  return {dot(d, d), t, closest};
}

}  // namespace detail
}  // namespace marrow::autoskin

namespace marrow::autoskin::detail {

void fit_leaf_bones(std::vector<Bone>& bones, const WeldedMesh& mesh) {
  for (Bone& b : bones) {
    if (b.tail_joint != kNoParent) continue;
    const Vec3 stub = b.tail - b.head;
    const float half = length(stub);
    if (!(half > 0)) continue;
    const Vec3 dir = stub * (1 / half);
    // Nearest surface along the direction (Moller-Trumbore); the joint is inside the mesh, so
    // that is where the limb ends.
    float nearest = INFINITY;
    for (const auto& tri : mesh.triangles) {
      const Vec3 p0 = mesh.positions[tri[0]];
      const Vec3 e1 = mesh.positions[tri[1]] - p0, e2 = mesh.positions[tri[2]] - p0;
      const Vec3 pv = cross(dir, e2);
      const float det = dot(e1, pv);
      if (std::abs(det) < 1e-20f) continue;
      const float inv = 1 / det;
      const Vec3 tv = b.head - p0;
      const float u = dot(tv, pv) * inv;
      if (u < 0 || u > 1) continue;
      const Vec3 qv = cross(tv, e1);
      const float v = dot(dir, qv) * inv;
      if (v < 0 || u + v > 1) continue;
      const float t = dot(e2, qv) * inv;
      if (t > 0 && t < nearest) nearest = t;
    }
    // At most the parent's length (the stub is half of it); the stub stays when nothing is hit.
    if (std::isfinite(nearest)) b.tail = b.head + dir * std::min(nearest, 2 * half);
  }
}

}  // namespace marrow::autoskin::detail
