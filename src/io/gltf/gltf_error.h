// Inside the glTF reader, failures unwind as a GltfError and become a marrow::Error at the
// reader's boundary; nothing is thrown out of the io API.
#pragma once

#include <stdexcept>
#include <string>

namespace marrow::gltf {

class GltfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string& where, const std::string& what) {
  throw GltfError(where + ": " + what);
}

}  // namespace marrow::gltf
