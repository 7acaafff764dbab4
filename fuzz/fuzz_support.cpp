// The parts of fuzz_target.h and file_set.h that are not inline.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "file_set.h"
#include "fuzz_target.h"

namespace marrow::fuzz {

std::map<std::string, TargetFunction>& registered_targets() {
  static std::map<std::string, TargetFunction> targets;
  return targets;
}

Registration::Registration(const char* name, TargetFunction function) {
  registered_targets()[name] = function;
}

void check_failed(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "fuzz check failed at %s:%d: %s\n", file, line, what.c_str());
  std::fflush(stderr);
  std::abort();
}

void expect_documented_error(const Error& error, const std::string& name) {
  MARROW_FUZZ_CHECK(
      error.message.rfind(name, 0) == 0 && error.message.size() > name.size(),
      "an error that does not start with the file's name '" + name + "': " + error.message);
}

FileSet split_file_set(std::span<const std::uint8_t> input) {
  const std::string_view text(reinterpret_cast<const char*>(input.data()), input.size());
  FileSet set;
  std::size_t at = text.find(kFileSeparator);
  set.main = input.first(at == std::string_view::npos ? input.size() : at);
  while (at != std::string_view::npos) {
    const std::size_t name_start = at + kFileSeparator.size();
    const std::size_t name_end = text.find('\n', name_start);
    if (name_end == std::string_view::npos) break;
    std::string name;
    for (char c : text.substr(name_start, std::min<std::size_t>(name_end - name_start, 64))) {
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
      name += plain ? c : '_';
    }
    if (name.empty() || name == "." || name == "..") name = "unnamed";
    at = text.find(kFileSeparator, name_end + 1);
    const std::size_t end = at == std::string_view::npos ? text.size() : at;
    set.others.push_back({name, input.subspan(name_end + 1, end - (name_end + 1))});
  }
  return set;
}

std::vector<std::uint8_t> join_file_set(std::span<const std::uint8_t> main,
                                        const std::vector<InputFile>& others) {
  std::vector<std::uint8_t> out(main.begin(), main.end());
  for (const InputFile& f : others) {
    out.insert(out.end(), kFileSeparator.begin(), kFileSeparator.end());
    out.insert(out.end(), f.name.begin(), f.name.end());
    out.push_back('\n');
    out.insert(out.end(), f.bytes.begin(), f.bytes.end());
  }
  return out;
}

namespace {

struct PrivateFolder {
  std::filesystem::path path;
  PrivateFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "marrow-fuzz-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      std::perror("marrow fuzz: mkdtemp");
      std::abort();
    }
    path = pattern;
  }
  ~PrivateFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void clear() const {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec))
      std::filesystem::remove_all(entry.path(), ec);
  }
};

void write_one(const std::filesystem::path& file, std::span<const std::uint8_t> bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "marrow fuzz: cannot write %s\n", file.c_str());
    std::abort();
  }
}

}  // namespace

std::string write_file_set(const FileSet& set, const std::string& main_name) {
  static const PrivateFolder folder;
  static bool holds_files = false;  // most inputs have no further file: skip the listing
  if (holds_files) folder.clear();
  holds_files = !set.others.empty() || !main_name.empty();
  for (const InputFile& f : set.others) write_one(folder.path / f.name, f.bytes);
  if (!main_name.empty()) write_one(folder.path / main_name, set.main);
  return folder.path.string();
}

}  // namespace marrow::fuzz
