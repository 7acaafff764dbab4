/// @file
/// A scripted course for motion matching, and the figures that say how well a character followed
/// it (docs/motion_matching.md): a timeline of stick inputs (a desired ground velocity and facing,
/// each held for a while) played through a MotionMatcher frame by frame, beside the path the same
/// inputs ask for (the TrajectorySpring on its own, never pulled toward the character). Setup and
/// evaluation code: it allocates and records every frame.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/control/motion_matcher.h"

namespace marrow {

/// One stretch of the course: `velocity` (world units per second, on the ground) and `yaw`
/// (radians about up, 0 facing MotionDatabase::ground_forward) held for `duration` seconds.
struct MotionCourseStep {
  float duration = 1;
  Vec3 velocity{0, 0, 0};
  float yaw = 0;
};

/// The figures of one run, in the database's model units, degrees and seconds. Position and
/// facing errors compare the character with the desired path at the same time; a foot's contact
/// is a stretch of frames where its joint is within `contact_height` of its ground level (the 5th
/// percentile of its heights over the run) and moves slower than half a leg length per second
/// (ik/foot_contacts.h's thresholds), and its slide the ground distance the joint travelled
/// during the contact.
struct MotionCourseReport {
  float duration = 0;
  std::uint64_t searches = 0, switches = 0;
  float switches_per_second = 0;
  float mean_position_error = 0, worst_position_error = 0;
  float mean_facing_error = 0, worst_facing_error = 0;  ///< degrees
  std::uint64_t contacts = 0;
  float mean_foot_slide = 0, worst_foot_slide = 0;
  float contact_height = 0;
  /// Per frame: the desired path and the character's, on the ground.
  std::vector<Vec3> desired_path, actual_path;
};

struct MotionCourseOptions {
  float frame_rate = 60;
  MotionMatcherOptions matcher{};
  /// Measure foot slide on these joints (default: the schema's feet).
  std::string left_foot{}, right_foot{};
  /// A foot is planted within this fraction of its leg's length above its ground level.
  float contact_fraction = 0.05f;
  /// Pose the character with MotionMatcher::evaluate_planted (feet held where they land).
  bool foot_locking = false;
};

/// Issue 33's test course at `walk` and `jog` speeds (model units per second), on the database's
/// ground axes: walk forward 4 s, a quarter turn to the side axis 4 s, back forward 4 s, a U-turn
/// 4 s, stand 3 s, walk 4 s, jog 4 s (27 s), facing where it goes.
std::vector<MotionCourseStep> standard_motion_course(const MotionDatabase& database, float walk,
                                                     float jog);

/// Errors: the matcher's, a step with a negative or non-finite duration or a non-finite input,
/// an unknown foot joint, a frame rate that is not positive.
Result<MotionCourseReport> run_motion_course(std::shared_ptr<const MotionDatabase> database,
                                             std::span<const MotionCourseStep> steps,
                                             const MotionCourseOptions& options = {});

}  // namespace marrow
