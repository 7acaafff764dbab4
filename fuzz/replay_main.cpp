// Runs fuzz targets outside libFuzzer: `marrow_fuzz_replay TARGET PATH...` feeds every file
// (folders are walked, in name order) to the target, as libFuzzer would replay a crash input.
// The test suite runs it over each target's committed seeds and regression inputs; a finding
// aborts the program, naming the input on stderr first. `marrow_fuzz_replay --list` prints the
// targets.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

#include "fuzz_target.h"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> inputs_under(const fs::path& path) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const auto& entry : fs::recursive_directory_iterator(path, ec))
      if (entry.is_regular_file() && entry.path().filename().string().front() != '.')
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
  } else if (fs::is_regular_file(path, ec)) {
    files.push_back(path);
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  const auto& targets = marrow::fuzz::registered_targets();
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& [name, function] : targets) std::printf("%s\n", name.c_str());
    return 0;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TARGET FILE_OR_FOLDER... (or --list)\n", argv[0]);
    return 2;
  }
  const auto target = targets.find(argv[1]);
  if (target == targets.end()) {
    std::fprintf(stderr, "%s: no fuzz target '%s' (--list shows them)\n", argv[0], argv[1]);
    return 2;
  }
  std::size_t replayed = 0;
  for (int a = 2; a < argc; ++a) {
    if (!fs::exists(argv[a])) {
      std::fprintf(stderr, "%s: %s does not exist\n", argv[0], argv[a]);
      return 2;
    }
    for (const fs::path& file : inputs_under(argv[a])) {
      std::ifstream in(file, std::ios::binary);
      const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                            std::istreambuf_iterator<char>());
      std::fprintf(stderr, "replaying %s\n", file.c_str());
      // The bytes in their own allocation, exactly as long as the input, as libFuzzer gives them
      // (so ASan sees any read past the end).
      std::unique_ptr<std::uint8_t[]> copy(
          new std::uint8_t[std::max<std::size_t>(bytes.size(), 1)]);
      std::copy(bytes.begin(), bytes.end(), copy.get());
      target->second(copy.get(), bytes.size());
      ++replayed;
    }
  }
  std::printf("%s: %zu inputs replayed, no finding\n", argv[1], replayed);
  return 0;
}
