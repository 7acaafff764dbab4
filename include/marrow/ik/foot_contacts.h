/// @file
/// Foot contacts of a clip: when each foot is on the ground, found from its joints' model-space
/// height and horizontal speed. Setup-time (allocates); the result is plain data the animation
/// controller turns into sync markers and foot planting reads as contact weights.
///
/// The method, per foot (an ankle joint and optionally its toe/ball joint):
///  1. Sample the clip on a uniform grid (FootContactOptions::sample_rate) and compute every
/// @code
///     joint's model-space position (scene ancestors above the hips, such as a 0.01 scale, are
///     included, so the units are the model's).
/// @endcode
///  2. A joint is *low* at a sample when its height (along `up`) is within
/// @code
///     height_tolerance * leg_length of that joint's lowest height over the clip. The leg length
///     is the rest-pose length of the two bones of the leg (shin and thigh), so thresholds
///     scale with the character: centimetres under a 0.01 scale and metres behave alike.
/// @endcode
///  3. In-place clips (Mixamo's walks) slide the planted foot backwards at the walking speed. The
/// @code
///     ground's velocity is estimated as the median horizontal velocity of the feet over their low
///     samples (about zero for clips with root motion), and a joint is *slow* when its horizontal
///     speed relative to that ground is below speed_tolerance * leg_length per second.
/// @endcode
///  4. A foot is in contact at a sample when its ankle, or its toe, is low and slow (heel strike
/// @code
///     and toe-off both count). Gaps shorter than min_duration are closed, then contacts shorter
///     than min_duration are dropped.
/// @endcode
/// Everything is a pure function of the clip and the options: the same input gives the same
/// intervals, bit for bit.
#pragma once

#include <span>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/clip/clip.h"
#include "marrow/math/vec3.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow {

/// The joints of one foot. `toe` is optional (kNoParent); with it, a foot standing on its ball
/// while the heel is lifted still counts as planted. `knee` and `hip` (the shin and thigh joints
/// the leg length is measured on) default to the foot's parent and grandparent; give them for a
/// foot parented away from its leg (a foot under the armature, for IK).
struct FootJoints {
  JointIndex foot = kNoParent;  ///< the ankle
  JointIndex toe = kNoParent;
  JointIndex knee = kNoParent;
  JointIndex hip = kNoParent;
};

struct FootContactOptions {
  /// The model-space up axis (normalized by the detector; must not be zero).
  Vec3 up{0, 1, 0};
  /// Samples per second of clip time; the grid always includes 0 and the duration.
  float sample_rate = 60;
  /// "Low": within this fraction of the leg length above the joint's lowest point in the clip.
  float height_tolerance = 0.05f;
  /// "Slow": horizontal speed relative to the ground below this many leg lengths per second.
  float speed_tolerance = 0.5f;
  /// Seconds: shorter gaps between contacts are closed, shorter contacts are dropped.
  float min_duration = 0.05f;
  /// The clip is a cycle: velocities are taken across the loop point, and a contact running
  /// through it is reported once, as an interval that wraps (end < start).
  bool looping = true;
  /// Estimate the ground velocity of an in-place clip (step 3 above); false measures speed in
  /// model space as it is.
  bool estimate_ground_velocity = true;
};

/// [start, end] in seconds of clip time. An interval that wraps (end < start) runs from start to
/// the clip's end and continues from 0 to end (only with FootContactOptions::looping).
struct ContactInterval {
  float start = 0;
  float end = 0;
  bool wraps() const { return end < start; }
  bool contains(float time) const {
    return wraps() ? (time >= start || time <= end) : (time >= start && time <= end);
  }
  /// Length in seconds; a wrapping interval needs the clip's duration.
  float length(float duration) const { return wraps() ? duration - start + end : end - start; }
};

struct FootContactTrack {
  FootJoints joints;
  /// Rest-pose length of the shin and thigh in model space: the unit of the thresholds.
  float leg_length = 0;
  /// Sorted by start, disjoint, within [0, duration].
  std::vector<ContactInterval> intervals;

  bool in_contact(float time) const;
  /// Fraction of the clip's duration the foot is in contact (1 for a zero-length clip in contact).
  float contact_fraction(float duration) const;
};

struct FootContacts {
  float duration = 0;
  /// The estimated velocity of the ground in model space (units per second; horizontal).
  Vec3 ground_velocity{0, 0, 0};
  std::vector<FootContactTrack> feet;  ///< one per FootJoints given, in order
};

/// Errors (naming the joint or the option): the clip was built for a skeleton of another size, a
/// foot joint out of range or without two ancestors (a leg), a zero leg length, options that are
/// not finite or not positive, a zero up axis.
Result<FootContacts> detect_foot_contacts(const Skeleton& skeleton, const Clip& clip,
                                          std::span<const FootJoints> feet,
                                          const FootContactOptions& options = {});

/// A contact weight in [0, 1] for foot planting at `time`: 1 inside a contact, 0 outside, ramping
/// linearly over `blend` seconds before a contact starts and after it ends, so a planted foot
/// fades in and out instead of popping. With `looping`, ramps reach across the loop point.
/// `blend` <= 0 gives a step.
float contact_weight(const FootContactTrack& track, float time, float duration, float blend,
                     bool looping = true);

}  // namespace marrow
