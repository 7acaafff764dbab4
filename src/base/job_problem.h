/// @file
/// The first wrong input of a job, found without allocating. run() asks the same question as
/// validate() but needs only yes or no, so each job's check returns this plain value and
/// validate() alone turns it into a Status (which allocates its message).
#pragma once

#include <cstddef>
#include <string_view>

#include "marrow/base/error.h"

namespace marrow::detail {

/// `input` names the field as the job's header spells it, with "[]" where an element's index
/// goes ("layers[].pose"); `rule` says what it breaks. Both are string literals; a null `input`
/// means nothing is wrong.
struct JobProblem {
  const char* input = nullptr;
  const char* rule = nullptr;
  std::size_t index = 0;

  explicit operator bool() const { return input != nullptr; }
};

/// Ok without a problem; otherwise an error "Job: input[index]: rule".
Status to_status(std::string_view job, const JobProblem& problem);

}  // namespace marrow::detail
