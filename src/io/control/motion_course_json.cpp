#include "marrow/io/motion_course_json.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numbers>

#include "common/json_text.h"

namespace marrow {
namespace {

// A number at `place`, inside [min, max], or an error naming the place.
Result<float> course_number(const nlohmann::json& j, const std::string& where,
                            const std::string& place, float min, float max) {
  if (!j.is_number()) return make_error(where, place + ": must be a number");
  const double v = j.get<double>();
  if (!std::isfinite(v) || v < min || v > max) {
    char range[64];
    std::snprintf(range, sizeof range, "from %g to %g", min, max);
    return make_error(where, place + ": must be a number " + range);
  }
  return static_cast<float>(v);
}

}  // namespace

Result<std::vector<MotionCourseStep>> parse_motion_course(std::string_view json,
                                                          const MotionDatabase& database,
                                                          const std::string& where) {
  Result<nlohmann::json> doc = io::parse_json_text(json, where);
  if (!doc) return doc.error();
  if (!doc->is_object() || !doc->contains("steps"))
    return make_error(where, "the top level: must be an object with \"steps\"");
  for (const auto& [key, value] : doc->items()) {
    (void)value;
    if (key != "steps") return make_error(where, key + ": unknown member (known: steps)");
  }
  const nlohmann::json& steps = (*doc)["steps"];
  if (!steps.is_array() || steps.empty())
    return make_error(where, "steps: must be a non-empty array");
  constexpr float kDegrees = std::numbers::pi_v<float> / 180;
  std::vector<MotionCourseStep> course;
  float total = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string place = "steps[" + std::to_string(i) + "]";
    const nlohmann::json& s = steps[i];
    if (!s.is_object()) return make_error(where, place + ": must be an object");
    for (const auto& [key, value] : s.items()) {
      (void)value;
      if (key != "duration" && key != "speed" && key != "direction" && key != "facing") {
        return make_error(
            where,
            place + "." + key + ": unknown member (known: duration, speed, direction, facing)");
      }
    }
    for (const char* required : {"duration", "speed", "direction"}) {
      if (!s.contains(required))
        return make_error(where, place + ": lacks \"" + std::string(required) + "\"");
    }
    Result<float> duration = course_number(s["duration"], where, place + ".duration", 1e-3f, 3600);
    if (!duration) return duration.error();
    Result<float> speed = course_number(s["speed"], where, place + ".speed", 0, 1e9f);
    if (!speed) return speed.error();
    Result<float> direction =
        course_number(s["direction"], where, place + ".direction", -3600, 3600);
    if (!direction) return direction.error();
    Result<float> facing = s.contains("facing")
                               ? course_number(s["facing"], where, place + ".facing", -3600, 3600)
                               : Result<float>(*direction);
    if (!facing) return facing.error();
    const float heading = *direction * kDegrees;
    const Vec3 velocity = (database.ground_side() * std::sin(heading) +
                           database.ground_forward() * std::cos(heading)) *
                          *speed;
    course.push_back({*duration, velocity, *facing * kDegrees});
    total += *duration;
    if (total > 3600) return make_error(where, place + ": the course lasts more than an hour");
  }
  return course;
}

}  // namespace marrow
