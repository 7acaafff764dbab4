/// @file
/// Feet on the ground: keeps each planted foot on the ground a game supplies (a plane, or one
/// height per foot from its own ray cast), lowering the pelvis so the legs can reach, and
/// optionally holding a planted foot where it landed (FootLock). An ozz-style job: validate()
/// then run(); run() allocates nothing and throws nothing.
///
/// Per frame, in model space, with `up` the vertical:
///  1. Each leg with contact c > 0 gets an ankle target: the animated ankle moved vertically so
/// @code
///     that its clearance above the clip's ground (`animation_ground`) is kept above the game's
///     ground under the foot; a locked foot takes its horizontal position from the lock. The
///     target is blended with the animated ankle by c.
/// @endcode
///  2. The pelvis moves along `up` by the smallest of the legs' vertical target changes (down a
/// @code
///     slope, the lower foot pulls it down; up a step, both feet lift it), and further down if a
///     leg could not otherwise reach its target within `reach` of its length.
/// @endcode
///  3. Each planted leg is solved with TwoBoneIkJob (hip, knee, ankle) towards its target; its
/// @code
///     foot keeps the model-space orientation it was animated with and, with a plane, is turned
///     by c of the rotation taking `up` to the plane's normal.
/// @endcode
/// `local` and `model` are both read and written: `model` must be current on entry and is
/// current again on return (the pelvis' subtree is recomputed by LocalToModelJob with `from`).
#pragma once

#include <cstddef>
#include <limits>
#include <span>

#include "marrow/base/error.h"
#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

inline constexpr std::size_t kMaxFootPlantLegs = 8;

struct FootPlantLeg {
  JointIndex hip = 0, knee = 0, ankle = 0;  ///< thigh, shin and foot joints, in ancestor order
  /// In [0, 1]: 0 leaves the leg as animated (it still follows the pelvis), 1 plants it fully.
  /// contact_weight() (foot_contacts.h) gives a ramped one from a clip's contacts.
  float contact = 0;
  /// The ground's height under this foot along `up`, when the job has no plane.
  float ground_height = 0;
  /// Where the knee points (model space); zero keeps the plane the knee bends in now.
  Vec3 pole_vector{0, 0, 0};
  /// A held foot (FootLock::locked / position): its ankle's horizontal position.
  bool locked = false;
  Vec3 lock_position{0, 0, 0};
};

struct GroundPlane {
  Vec3 point{0, 0, 0};
  Vec3 normal{0, 1, 0};  ///< any length; must not be horizontal
};

struct FootPlantingResult {
  float pelvis_offset = 0;  ///< how far the pelvis moved along `up` (negative: lowered)
  /// Per leg (the first kMaxFootPlantLegs): whether its ankle reached its target.
  bool reached[kMaxFootPlantLegs] = {};
};

struct FootPlantingJob {
  const Skeleton* skeleton = nullptr;
  /// The joint moved up and down (the hips); every leg's hip must lie below it.
  JointIndex pelvis = 0;
  std::span<const FootPlantLeg> legs{};  ///< at most kMaxFootPlantLegs
  Vec3 up{0, 1, 0};                      ///< model space; any length, not zero
  /// The height along `up` of the ground the clip was made on.
  float animation_ground = 0;
  /// When set, the ground under each foot is this plane; otherwise each leg's ground_height.
  const GroundPlane* plane = nullptr;
  /// With a plane: turn planted feet to lie on it.
  bool align_feet = true;
  /// The most a leg may stretch, as a fraction of its length, before the pelvis is lowered.
  float reach = 0.999f;
  /// Passed to TwoBoneIkJob::soft_limit for every leg.
  float soft_limit = 1;
  /// The pelvis never moves further than this (model units) in either direction.
  float max_pelvis_offset = std::numeric_limits<float>::max();

  std::span<Transform> local{};          ///< one per joint; rewritten for the pelvis and the legs
  std::span<Mat4> model{};               ///< one per joint; current on entry and on return
  FootPlantingResult* result = nullptr;  ///< optional

  /// An error naming the first wrong input, checked in this order ("FootPlantingJob:
  /// legs[1].knee: is not a joint below the leg's hip"), or ok:
  /// - `skeleton`: null;
  /// - `model`, then `local`: shorter than the skeleton's joint count;
  /// - `pelvis`: not a joint of the skeleton; `legs`: more than kMaxFootPlantLegs;
  /// - `up`: not finite or zero; `animation_ground`: not finite;
  /// - `reach`, `soft_limit`: not in (0, 1]; `max_pelvis_offset`: negative or NaN;
  /// - `plane`: given, and not finite, or its normal zero or perpendicular to `up`;
  /// - `model`: the pelvis's matrix is not finite;
  /// - then leg by leg: its `hip` not a joint below the pelvis, its `knee` not below its hip, its
  ///   `ankle` not below its knee; its `contact` not in [0, 1]; its `ground_height`,
  ///   `pole_vector` or `lock_position` not finite; `model`: its hip's, knee's or ankle's matrix
  ///   not finite.
  Status validate() const;
  /// Returns false, changing nothing, when validate() fails (a NaN ground height or an infinite
  /// plane is a no-op for the frame).
  bool run() const;
};

/// Holds a planted foot where it landed, one per foot per character (plain data, no
/// allocation). Each frame, before FootPlantingJob:
/// @code
///   lock.update(contact, ankle_position, ground_motion);
///   leg.locked = lock.locked;  leg.lock_position = lock.position;
/// @endcode
/// The lock engages when the contact reaches 1 (remembering the ankle's position then), holds
/// while the contact stays above 0 (the job fades it out with the contact) and releases at 0.
/// `ground_motion` is how far the ground moved under the character this frame in model space:
/// zero when the game moves the character by its root motion, the ground's velocity times the
/// frame time for an in-place clip (FootContacts::ground_velocity).
struct FootLock {
  bool locked = false;
  Vec3 position{0, 0, 0};
  void update(float contact, Vec3 ankle, Vec3 ground_motion = {0, 0, 0});
};

}  // namespace marrow
