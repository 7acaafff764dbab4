// What the job suites check of validate(): that it refuses and names the input it refuses, the
// way every job's header documents ("LocalToModelJob: model: is shorter than ...").
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "marrow/base/error.h"

namespace marrow::test {

/// Passes when `status` is an error whose message starts with `job_and_input` ("Job: input").
inline ::testing::AssertionResult refused_naming(const Status& status,
                                                 std::string_view job_and_input) {
  if (status.ok()) {
    return ::testing::AssertionFailure()
           << "accepted; expected a refusal naming \"" << job_and_input << "\"";
  }
  const std::string message = status.error().message;
  const std::string expected = std::string(job_and_input) + ": ";
  if (message.rfind(expected, 0) != 0) {
    return ::testing::AssertionFailure()
           << "refused with \"" << message << "\"; expected it to start \"" << expected << "\"";
  }
  return ::testing::AssertionSuccess();
}

/// Passes when the job's validate() refuses naming `job_and_input` and run() then fails too.
template <typename Job>
::testing::AssertionResult run_refused(const Job& job, std::string_view job_and_input) {
  ::testing::AssertionResult named = refused_naming(job.validate(), job_and_input);
  if (!named) return named;
  if (job.run()) return ::testing::AssertionFailure() << "validate() refused, but run() ran";
  return ::testing::AssertionSuccess();
}

}  // namespace marrow::test
