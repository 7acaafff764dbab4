// A whole file in one read, for tests that compare outputs byte for byte: stream iterators, which
// go byte by byte, took seconds over a few megabytes in the unoptimized sanitizer build.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace marrow::test {

// The file's bytes as a container of char-sized elements; empty when it cannot be read.
template <typename Container>
Container whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  Container out(static_cast<std::size_t>(in.tellg()), {});
  in.seekg(0);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()));
  return out;
}

}  // namespace marrow::test
