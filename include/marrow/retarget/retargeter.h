/// @file
/// Rest-relative retargeting in model space: a pose or a clip of one skeleton played on another
/// with different joint names, rest poses (T-pose against A-pose, other joint axes), proportions
/// and spine lengths. Setup (Retargeter::create) allocates; the per-frame RetargetJob does not.
///
/// Conventions. Rotations compose right to left (q = a * b: b first), a joint's model rotation is
/// its parent's times its local one, and "model space" is the space LocalToModelJob produces
/// (scene ancestors of the hips, such as a 0.01 armature, included). For each skeleton a
/// *reference pose* is chosen (default: its rest pose; any pose, e.g. a T-pose clip's first
/// frame), with model rotations S0 (source) and T0 (target) per joint.
///
///  1. Axes. From each reference pose the character's up (hips to head) and left (right thigh to
/// @code
///     left thigh) are measured and snapped to the nearest model axes; A is the rotation taking
///     the source's axes to the target's (Soldier.glb faces -z, Xbot.glb +z: A is half a turn
///     about y). An axis more than 30 degrees from every model axis is an error: the reference
///     pose is not upright (give a T-pose as reference).
/// @endcode
///  2. Alignment. Per mapped limb joint (shoulder, upper arm, forearm, thigh, shin) a swing B
/// @code
///     (the smallest rotation) turns its reference bone direction (towards the next part:
///     thigh to shin, forearm to hand...) onto the source's, seen through A; hands take their
///     forearm's; the hips take the one turning the line between the thighs. So a T-pose source
///     and an A-pose target agree: their reference limbs point the same way after alignment.
///     Feet, toes, spine, neck and head keep B = identity: both references stand flat-footed and
///     upright, and those directions differ between rigs by anatomy (where the toe joint or a
///     head-top marker sits), not by pose. Joints outside the profile take their nearest driven
///     ancestor's B.
/// @endcode
///  3. Transfer. With S(t) the source joint's model rotation at time t, the target joint's model
/// @code
///     rotation is
///         T(t) = A * [S(t) * S0^-1] * A^-1 * B * T0
///     (the source's rotation away from its reference, carried over to the target's aligned
///     reference), then its local rotation is T_parent(t)^-1 * T(t) through the target's
///     already-computed parent. Chains of different counts interpolate the bracket (slerp)
///     between the two source joints at the same fraction of the chain's length. Unmapped target
///     joints keep their rest local rotation; translations and scales stay the target's rest
///     values except the hips' translation.
/// @endcode
///  4. Root. The target hips' model position is k * A * (p(t) - f_s up_s) + f_t up_t, with p(t)
/// @code
///     the source hips' model position, up_s and up_t the snapped up axes and f_s, f_t the
///     floors: the height of each side's lowest foot joint (ankle or toe) standing, f_t from the
///     target reference pose, f_s given, or measured on the clip by retarget_clip (its lowest
///     foot joint over the clip), or else from the source reference pose. So floor lands on
///     floor even where a capture's floor is not at 0 (CMU's toes rest at about 1). k is the
///     ratio of hip heights, each measured as the hips' height above the thighs plus thigh and
///     shin lengths plus the ankle's height above the lowest foot joint (so spread legs in a
///     T-pose do not shrink it), or optionally the ratio of leg lengths (thigh plus shin).
/// @endcode
/// Limb bone directions then match the source's exactly (up to float rounding); everything else,
/// twist about a bone included, is carried over relative to the reference poses.
///
/// RetargetMethod::kCopyLocal is the naive baseline: mapped joints copy the source's local
/// rotations (and the hips its local translation), as binding a clip by name does.
#pragma once

#include <limits>
#include <span>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"
#include "marrow/retarget/retarget_map.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

enum class RetargetMethod : std::uint8_t { kRestRelative, kCopyLocal };
enum class RootScale : std::uint8_t { kHipHeight, kLegLength };

struct RetargetOptions {
  RetargetMethod method = RetargetMethod::kRestRelative;
  RootScale root_scale = RootScale::kHipHeight;
  /// > 0: use this factor for the root translation instead of measuring one.
  float root_scale_factor = 0;
  /// The height (along the source's up axis) of the source's lowest foot joint when it stands on
  /// its floor; NaN: as in the source reference pose. A capture whose reference pose floats (BVH
  /// T-poses hang from the hips at the origin) needs it; retarget_clip measures it on the clip.
  float source_floor = std::numeric_limits<float>::quiet_NaN();
  /// Step 2 above; false transfers rotations relative to the raw reference poses.
  bool align_reference_poses = true;
  /// One local transform per joint; empty: the skeleton's rest pose. Copied by create().
  std::span<const Transform> source_reference{};
  std::span<const Transform> target_reference{};
};

class Retargeter {
 public:
  /// Both skeletons must outlive the retargeter (it keeps pointers to them). Errors: the map's
  /// joints out of range for the skeletons, a reference pose of the wrong size or not finite, a
  /// reference pose whose up or left is not near a model axis, a map without hips for the root,
  /// zero hip heights or leg lengths.
  static Result<Retargeter> create(const Skeleton& source, const Skeleton& target,
                                   const RetargetMap& map, const RetargetOptions& options = {});

  const Skeleton& source() const { return *source_; }
  const Skeleton& target() const { return *target_; }
  const RetargetMap& map() const { return map_; }
  RetargetMethod method() const { return method_; }
  /// k: target units per source unit for the root translation.
  float root_scale() const { return root_scale_; }
  /// A: source model axes to target model axes.
  Quat axes() const { return axes_; }
  /// The snapped up axes and the floors (lowest foot joint heights) of step 4.
  Vec3 source_up() const { return source_up_; }
  Vec3 target_up() const { return target_up_; }
  float source_floor() const { return source_floor_; }
  float target_floor() const { return target_floor_; }
  /// The source's foot and toe joints (to measure a clip's floor).
  std::span<const JointIndex> source_feet() const { return source_feet_; }
  /// Target joints whose rotation the job writes, in skeleton order.
  std::span<const JointIndex> driven_joints() const { return driven_; }
  JointIndex target_root() const { return map_.target_hips; }
  /// Target joints whose translation the job writes: the root, then limb joints parented away
  /// from their limbs (a foot under the root, for IK), placed where the limb carries them.
  std::span<const JointIndex> translated_joints() const { return translated_; }

  /// One target joint's recipe (see the header comment): its model rotation is
  /// axes * slerp(S(a) * inv_a, S(b) * inv_b, fraction) * post.
  struct Driver {
    JointIndex target = 0;
    JointIndex source_a = 0, source_b = 0;
    float fraction = 0;
    Quat inverse_a, inverse_b, post;
  };
  std::span<const Driver> drivers() const { return drivers_; }

  /// A target limb joint parented away from its limb (a foot under the root, for IK): after the
  /// rotations it is moved to where the limb part above it (`anchor`) carries it, `offset` in
  /// that part's frame, as in the target reference.
  struct Follower {
    JointIndex joint = 0, anchor = 0;
    Vec3 offset;
  };
  std::span<const Follower> followers() const { return followers_; }

 private:
  friend struct RetargetJob;
  const Skeleton* source_ = nullptr;
  const Skeleton* target_ = nullptr;
  RetargetMap map_;
  RetargetMethod method_ = RetargetMethod::kRestRelative;
  float root_scale_ = 1;
  Quat axes_;
  Vec3 source_up_{0, 1, 0}, target_up_{0, 1, 0};
  float source_floor_ = 0, target_floor_ = 0;
  std::vector<JointIndex> source_feet_;
  std::vector<Driver> drivers_;          ///< by target joint order
  std::vector<std::int32_t> driver_of_;  ///< per target joint: index into drivers_, or -1
  std::vector<JointIndex> source_used_;  ///< source joints whose rotations a frame reads
  std::vector<JointIndex> driven_;
  std::vector<Follower> followers_;
  std::vector<JointIndex> translated_;
};

/// Per-character scratch for RetargetJob (source model matrices and rotations, target rotations),
/// sized once for a retargeter.
class RetargetContext {
 public:
  RetargetContext() = default;
  explicit RetargetContext(const Retargeter& retargeter) { resize(retargeter); }
  void resize(const Retargeter& retargeter);
  /// Whether resize(retargeter) was called (or one for skeletons at least as large).
  bool sized_for(const Retargeter& retargeter) const;

 private:
  friend struct RetargetJob;
  std::vector<Mat4> source_model_;
  std::vector<Quat> source_rotation_;
  std::vector<Quat> target_rotation_;
};

/// One frame: a source local pose in, the target's local pose out. An ozz-style job.
struct RetargetJob {
  const Retargeter* retargeter = nullptr;
  RetargetContext* context = nullptr;  ///< sized for this retargeter
  /// One per source joint, read. Must not overlap target_pose (retargeting a skeleton onto
  /// itself needs two buffers).
  std::span<const Transform> source_pose{};
  std::span<Transform> target_pose{};  ///< one per target joint, every joint written
  /// The source's floor for this frame (RetargetOptions::source_floor); NaN: the retargeter's.
  float source_floor = std::numeric_limits<float>::quiet_NaN();

  /// An error naming the first wrong input, checked in this order ("RetargetJob:
  /// source_pose[3]: is not finite"), or ok:
  /// - `retargeter`, then `context`: null;
  /// - `source_pose`: shorter than the source skeleton's joint count;
  /// - `target_pose`: shorter than the target skeleton's joint count;
  /// - `context`: not sized for this retargeter;
  /// - `source_pose[j]`: a transform with a NaN or infinite value (so a bad frame is a no-op).
  Status validate() const;
  /// Returns false, writing nothing, when validate() fails. Allocates nothing; throws nothing.
  bool run() const;
};

struct RetargetClipOptions {
  /// Samples per second of the source clip; 0: at every key time of the source clip (plus
  /// midpoints between them for cubic-spline sources).
  float sample_rate = 0;
  /// Take the source's floor as the lowest any source foot joint goes in the clip (for each
  /// frame's RetargetJob::source_floor); false: the retargeter's.
  bool estimate_floor = true;
};

/// The source clip played on the target skeleton, as a new Clip of the target (rotation tracks for
/// the driven joints, a translation track for the hips), with the source's name, duration, ticks
/// per second and events. LINEAR keys (STEP when every source track is STEP). Errors: the clip was
/// built for a skeleton of another size, a non-finite sample.
Result<Clip> retarget_clip(const Retargeter& retargeter, const Clip& source_clip,
                           const RetargetClipOptions& options = {});

}  // namespace marrow
