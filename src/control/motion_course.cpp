// run_motion_course: the matcher and the bare spring side by side, the feet tracked in the world.
#include "marrow/control/motion_course.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "marrow/math/mat4.h"
#include "marrow/pose/local_to_model.h"

namespace marrow {
namespace {

constexpr const char* kWhere = "motion course";

float degrees_between(float a, float b) {
  constexpr float kPi = std::numbers::pi_v<float>;
  float d = std::fmod(std::abs(a - b), 2 * kPi);
  if (d > kPi) d = 2 * kPi - d;
  return d * 180 / kPi;
}

// Contacts and their slides for one foot's world positions, frame by frame.
void measure_slides(std::span<const Vec3> positions, Vec3 up, float tolerance, float max_step,
                    float min_frames, MotionCourseReport& report, double& slide_sum) {
  // The foot's ground level: the 5th percentile of its heights, not the lowest, which one bad
  // frame would set.
  std::vector<float> heights;
  for (Vec3 p : positions) heights.push_back(dot(p, up));
  if (heights.empty()) return;
  const auto fifth = heights.begin() + static_cast<std::ptrdiff_t>(heights.size() / 20);
  std::nth_element(heights.begin(), fifth, heights.end());
  const float lowest = *fifth;
  std::size_t start = 0;
  bool planted = false;
  float travelled = 0;
  for (std::size_t f = 0; f <= positions.size(); ++f) {
    // Planted: low, and slower than max_step per frame (a swinging foot skims the ground fast).
    bool low = f < positions.size() && dot(positions[f], up) <= lowest + tolerance;
    if (low && f > 0) {
      const Vec3 step = positions[f] - positions[f - 1];
      low = length(step - up * dot(step, up)) <= max_step;
    }
    if (low && !planted) planted = true, start = f, travelled = 0;
    if (low && f > start) {
      const Vec3 step = positions[f] - positions[f - 1];
      travelled += length(step - up * dot(step, up));
    }
    if (!low && planted) {
      planted = false;
      if (static_cast<float>(f - start) < min_frames) continue;
      ++report.contacts;
      slide_sum += travelled;
      report.worst_foot_slide = std::max(report.worst_foot_slide, travelled);
    }
  }
}

}  // namespace

std::vector<MotionCourseStep> standard_motion_course(const MotionDatabase& database, float walk,
                                                     float jog) {
  constexpr float kQuarter = std::numbers::pi_v<float> / 2;
  const Vec3 side = database.ground_side(), forward = database.ground_forward();
  const auto toward = [&](float yaw, float speed) {
    return MotionCourseStep{4, (side * std::sin(yaw) + forward * std::cos(yaw)) * speed, yaw};
  };
  return {toward(0, walk),
          toward(kQuarter, walk),
          toward(0, walk),
          toward(2 * kQuarter, walk),
          {3, {0, 0, 0}, 2 * kQuarter},
          toward(2 * kQuarter, walk),
          toward(2 * kQuarter, jog)};
}

Result<MotionCourseReport> run_motion_course(std::shared_ptr<const MotionDatabase> database,
                                             std::span<const MotionCourseStep> steps,
                                             const MotionCourseOptions& options) {
  if (!database) return make_error(kWhere, "no database");
  if (!(options.frame_rate > 0) || !std::isfinite(options.frame_rate))
    return make_error(kWhere, "the frame rate must be positive");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const MotionCourseStep& s = steps[i];
    if (!(s.duration >= 0) || !std::isfinite(s.duration) || !is_finite(s.velocity) ||
        !std::isfinite(s.yaw))
      return make_error(kWhere,
                        "step " + std::to_string(i) + ": not finite, or a negative duration");
  }
  const Skeleton& skeleton = database->skeleton();
  const std::string& left_name =
      options.left_foot.empty() ? database->schema().left_foot : options.left_foot;
  const std::string& right_name =
      options.right_foot.empty() ? database->schema().right_foot : options.right_foot;
  const std::optional<JointIndex> left = skeleton.find(left_name),
                                  right = skeleton.find(right_name);
  if (!left || !right) return make_error(kWhere, "a foot joint is not in the skeleton");
  Result<MotionMatcher> matcher = MotionMatcher::create(database, options.matcher);
  if (!matcher) return matcher.error();
  const Vec3 up = database->schema().up;
  TrajectorySpring desired(up, options.matcher.velocity_halflife, options.matcher.facing_halflife);
  desired.reset({0, 0, 0}, 0);
  AnimatorWorkspace workspace(database->clip_set());
  std::vector<Transform> local(skeleton.size());
  std::vector<Mat4> model(skeleton.size());
  std::vector<Vec3> left_path, right_path;
  MotionCourseReport report;
  const float dt = 1 / options.frame_rate;
  double position_sum = 0, facing_sum = 0;
  for (const MotionCourseStep& step : steps) {
    const auto frames = static_cast<std::size_t>(std::lround(step.duration * options.frame_rate));
    for (std::size_t f = 0; f < frames; ++f) {
      matcher->set_input(step.velocity, step.yaw);
      matcher->update(dt);
      desired.update(step.velocity, step.yaw, dt);
      if (options.foot_locking) {
        matcher->evaluate_planted(workspace, local, model);
      } else {
        matcher->evaluate(workspace, std::span<Transform>(local));
        local_to_model(skeleton, local, model);
      }
      const Transform world = matcher->world();
      left_path.push_back(world.translation + rotate(world.rotation, model[*left].translation()));
      right_path.push_back(world.translation + rotate(world.rotation, model[*right].translation()));
      const float error = length(matcher->position() - desired.position());
      const float facing = degrees_between(matcher->yaw(), desired.yaw());
      position_sum += error, facing_sum += facing;
      report.worst_position_error = std::max(report.worst_position_error, error);
      report.worst_facing_error = std::max(report.worst_facing_error, facing);
      report.desired_path.push_back(desired.position());
      report.actual_path.push_back(matcher->position());
    }
  }
  const std::size_t frames = report.actual_path.size();
  report.duration = static_cast<float>(frames) * dt;
  report.searches = matcher->searches(), report.switches = matcher->switches();
  if (frames == 0) return report;
  report.switches_per_second = static_cast<float>(report.switches) / report.duration;
  report.mean_position_error = static_cast<float>(position_sum / static_cast<double>(frames));
  report.mean_facing_error = static_cast<float>(facing_sum / static_cast<double>(frames));
  const float leg = database->leg_length();
  report.contact_height = options.contact_fraction * leg;
  double slide_sum = 0;
  const float min_frames = 0.05f * options.frame_rate;
  const float max_step = 0.5f * leg / options.frame_rate;
  measure_slides(left_path, up, report.contact_height, max_step, min_frames, report, slide_sum);
  measure_slides(right_path, up, report.contact_height, max_step, min_frames, report, slide_sum);
  if (report.contacts > 0)
    report.mean_foot_slide = static_cast<float>(slide_sum / static_cast<double>(report.contacts));
  return report;
}

}  // namespace marrow
