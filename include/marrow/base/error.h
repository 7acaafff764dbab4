/// @file
/// Errors without exceptions: the runtime never throws across its API, so fallible calls return
/// a Result<T> (a value or an Error whose message names the file and the place).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace marrow {

struct Error {
  std::string message;
};

/// Builds an error message "where: what". `where` is usually "file:line" or "file: json.path".
Error make_error(std::string_view where, std::string_view what);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

/// For calls that produce nothing but may fail.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error.message)), failed_(true) {}
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  Error error() const { return Error{error_}; }

 private:
  std::string error_;
  bool failed_ = false;
};

}  // namespace marrow
