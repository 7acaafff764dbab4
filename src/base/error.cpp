#include "marrow/base/error.h"

#include <string>

#include "base/job_problem.h"

namespace marrow {

Error make_error(std::string_view where, std::string_view what) {
  std::string message;
  message.reserve(where.size() + what.size() + 2);
  message.append(where);
  if (!where.empty()) message.append(": ");
  message.append(what);
  return Error{std::move(message)};
}

}  // namespace marrow

namespace marrow::detail {

Status to_status(std::string_view job, const JobProblem& problem) {
  if (!problem) return {};
  std::string input = problem.input;
  if (const std::size_t at = input.find("[]"); at != std::string::npos) {
    input.insert(at + 1, std::to_string(problem.index));
  }
  std::string where(job);
  where.append(": ").append(input);
  return make_error(where, problem.rule);
}

}  // namespace marrow::detail
