// Motion-matching courses (io/motion_course_json.h), used as `marrow match --course` uses them:
// parsed under the heap budget against a fixed database, the script character's Idle, Walk and
// Run (short horizons, since its clips last 0.6 to 2 s), then, when the course parses and lasts
// at most kMaxCourseSeconds, played through run_motion_course, whose figures must be finite.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "fuzz_target.h"
#include "heap_budget.h"
#include "marrow/io/motion_course_json.h"
#include "script_character.h"

namespace {

using namespace marrow;

// A course played in the fuzzer lasts at most this long (2 s at 60 Hz: 120 frames).
constexpr float kMaxCourseSeconds = 2;

std::shared_ptr<const MotionDatabase> database() {
  static const std::shared_ptr<const MotionDatabase> built = [] {
    const Asset& character = fuzz::script_character();
    std::vector<MotionClipDesc> clips;
    for (const Clip& c : character.clips)
      if (c.name() != "TPose") clips.push_back({&c});
    MotionSchema schema =
        MotionSchema::locomotion("mixamorig:Hips", "mixamorig:LeftFoot", "mixamorig:RightFoot");
    for (MotionFeatureDesc& f : schema.features)
      if (f.horizon > 0) f.horizon *= 0.3f;
    Result<std::shared_ptr<const MotionDatabase>> db =
        MotionDatabase::build(character.skeleton, clips, schema);
    if (!db) {
      std::fprintf(stderr, "fuzz: the motion course's database does not build: %s\n",
                   db.error().message.c_str());
      std::abort();
    }
    return std::move(db).value();
  }();
  return built;
}

}  // namespace

MARROW_FUZZ_TARGET(motion_course) {
  const std::string where = "fuzz_course.json";
  const std::shared_ptr<const MotionDatabase> db = database();
  Result<std::vector<MotionCourseStep>> course = Error{};
  {
    const fuzz::HeapWatch watch;
    course = parse_motion_course(std::string_view(reinterpret_cast<const char*>(data), size), *db,
                                 where);
    fuzz::expect_within_budget(watch, size, fuzz::kDefaultLoadBudget, "parse_motion_course");
  }
  if (!course) {
    fuzz::expect_documented_error(course.error(), where);
    return 0;
  }
  float total = 0;
  for (const MotionCourseStep& s : *course) {
    MARROW_FUZZ_CHECK(s.duration > 0 && std::isfinite(s.duration) && std::isfinite(s.yaw) &&
                          is_finite(s.velocity),
                      "a parsed step is finite with a positive duration");
    total += s.duration;
  }
  if (total > kMaxCourseSeconds) return 0;
  Result<MotionCourseReport> report = run_motion_course(db, *course);
  MARROW_FUZZ_CHECK(report.ok(), "a parsed course runs");
  MARROW_FUZZ_CHECK(std::isfinite(report->mean_position_error) &&
                        std::isfinite(report->worst_facing_error) &&
                        std::isfinite(report->mean_foot_slide),
                    "a course's figures are finite");
  for (const Vec3& p : report->actual_path) MARROW_FUZZ_CHECK(is_finite(p), "the path is finite");
  return 0;
}
