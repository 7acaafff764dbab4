// Root-motion arithmetic on rigid transforms (translation and rotation; scale stays 1). Internal.
//
// F(t), the extracted part of the root joint's local transform at clip time t, is its chosen
// translation components and its twist about the up axis. The pose keeps F(0) F(t)^-1 T(t), so
// the character stands where the clip starts; a player moving from clip time a to b moves the
// character by F(0) F(a)^-1 F(b) F(0)^-1, which composes exactly across updates and loop seams.
#pragma once

#include "marrow/clip/clip.h"
#include "marrow/control/clip_set.h"
#include "marrow/math/transform.h"

namespace marrow::control_detail {

inline Transform rigid_compose(const Transform& a, const Transform& b) {
  Transform r;
  r.translation = a.translation + rotate(a.rotation, b.translation);
  r.rotation = normalize(a.rotation * b.rotation);
  return r;
}

inline Transform rigid_inverse(const Transform& a) {
  Transform r;
  r.rotation = conjugate(a.rotation);
  r.translation = -rotate(r.rotation, a.translation);
  return r;
}

// The twist of q about the unit axis `up` (identity when q is a half turn across it).
inline Quat twist(Quat q, Vec3 up) {
  const float p = q.x * up.x + q.y * up.y + q.z * up.z;
  const Quat t{up.x * p, up.y * p, up.z * p, q.w};
  const float n2 = dot(t, t);
  if (!(n2 > 1e-12f)) return Quat::identity();
  return normalize(t.w < 0 ? negate(t) : t);
}

// F of a root joint's local transform.
inline Transform extract(const Transform& local, Vec3 up, const RootMotionOptions& o) {
  Transform f;
  const Vec3 vertical = up * dot(local.translation, up);
  if (o.horizontal) f.translation += local.translation - vertical;
  if (o.vertical) f.translation += vertical;
  if (o.yaw) f.rotation = twist(local.rotation, up);
  return f;
}

// F(0) F^-1 local: the root with its motion since the clip's start taken out.
inline Transform remove_motion(const Transform& local, const Transform& f, const Transform& f0) {
  const Transform rigid = rigid_compose(rigid_compose(f0, rigid_inverse(f)),
                                        Transform{local.translation, local.rotation, {1, 1, 1}});
  return Transform{rigid.translation, rigid.rotation, local.scale};
}

// F(0) F(a)^-1 F(b) F(0)^-1.
inline Transform motion_between(const Transform& fa, const Transform& fb, const Transform& f0) {
  return rigid_compose(rigid_compose(f0, rigid_compose(rigid_inverse(fa), fb)), rigid_inverse(f0));
}

// P d P^-1 for P with uniform scale s: the delta carried from the parent's space to model space.
inline Transform to_model_space(const Transform& d, const Transform& parent) {
  const Quat q = normalize(parent.rotation * d.rotation * conjugate(parent.rotation));
  Transform r;
  r.rotation = q;
  r.translation = parent.translation + rotate(parent.rotation, d.translation) * parent.scale.x -
                  rotate(q, parent.translation);
  return r;
}

// The root joint's local transform at clip time t from the exact tracks (rest values where the
// clip has no track).
Transform root_local_at(const Clip& clip, const RootMotionTrack& track, const Transform& rest,
                        float time);

}  // namespace marrow::control_detail
