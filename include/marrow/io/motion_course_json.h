/// @file
/// A motion-matching course as JSON (docs/motion_matching.md, "Courses"): the stick's timeline
/// `marrow match --course` and Python's `marrow.run_motion_course` play.
///
/// @code
///   {"steps": [{"duration": 4, "speed": 130, "direction": 0},
///              {"duration": 4, "speed": 130, "direction": 90},
///              {"duration": 2, "speed": 100, "direction": 0, "facing": 90}]}
/// @endcode
///
/// Each step holds the input for `duration` seconds (> 0): a ground velocity of `speed` (model
/// units per second, >= 0) toward `direction` and a facing `facing` (degrees about up: 0 is the
/// database's ground forward axis, 90 its side axis; `facing` defaults to `direction`, so a step
/// with another facing strafes). A course lasts at most an hour, all steps together. Errors name
/// the file and the JSON place
/// (`course.json: steps[1].speed: must be a number >= 0`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/control/motion_course.h"

namespace marrow {

Result<std::vector<MotionCourseStep>> parse_motion_course(std::string_view json,
                                                          const MotionDatabase& database,
                                                          const std::string& where);

}  // namespace marrow
