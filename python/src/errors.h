// What every binding file shares: marrow.Error and the conversions of option strings.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "marrow/base/error.h"
#include "marrow/clip/sampling.h"

namespace marrow::python {

namespace py = pybind11;

// marrow.Error, created by the module's init: every failure marrow reports.
inline PyObject*& error_type() {
  static PyObject* type = nullptr;
  return type;
}

[[noreturn]] inline void raise(const std::string& message) {
  PyErr_SetString(error_type(), message.c_str());
  throw py::error_already_set();
}

// Runs a job, raising marrow.Error with the job's own words ("name: Job: input: rule") when its
// validate() refuses, so the caller learns which input is wrong.
template <typename Job>
void run_or_raise(const Job& job, const std::string& name) {
  if (const Status valid = job.validate(); !valid) raise(name + ": " + valid.error().message);
  (void)job.run();
}

template <typename T>
T value_or_raise(Result<T> result) {
  if (!result) raise(result.error().message);
  return std::move(result).value();
}

inline void check_or_raise(const Status& status) {
  if (!status) raise(status.error().message);
}

inline WrapMode parse_wrap(const std::string& wrap) {
  if (wrap == "clamp") return WrapMode::kClamp;
  if (wrap == "loop") return WrapMode::kLoop;
  if (wrap == "pingpong") return WrapMode::kPingPong;
  throw py::value_error("wrap: expected 'clamp', 'loop' or 'pingpong', got '" + wrap + "'");
}

// The controller's bindings (control.cpp): ClipSet and Animator.
void bind_control(py::module_& m);
// Motion matching's bindings (motion.cpp): MotionDatabase and run_motion_course.
void bind_motion(py::module_& m);

}  // namespace marrow::python
