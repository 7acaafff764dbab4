#include "marrow/base/error.h"

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
