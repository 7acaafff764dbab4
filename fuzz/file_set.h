// Inputs made of several files, for readers that open files beside the one they are given (a
// .gltf's external buffers, an OBJ's material library). The fuzz input is the main file, then
// for each further file a separator line naming it:
//
//   <main file bytes>\n--marrow-fuzz-file: NAME\n<bytes of NAME>...
//
// The separator is in the targets' dictionaries, so the fuzzer adds, drops and renames files as
// it mutates. Further files are written into a private folder (one per process, removed at
// exit) where the reader finds them by name; names are reduced to [A-Za-z0-9._-] so nothing is
// written outside it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace marrow::fuzz {

inline constexpr std::string_view kFileSeparator = "\n--marrow-fuzz-file: ";

struct InputFile {
  std::string name;
  std::span<const std::uint8_t> bytes;
};

// The main file's bytes and the further files, in input order (a later file of the same name
// replaces an earlier one when written).
struct FileSet {
  std::span<const std::uint8_t> main;
  std::vector<InputFile> others;
};

FileSet split_file_set(std::span<const std::uint8_t> input);

// The inverse of split_file_set, for making seeds.
std::vector<std::uint8_t> join_file_set(std::span<const std::uint8_t> main,
                                        const std::vector<InputFile>& others);

// The process's private folder, emptied of the previous input's files; writes `files` there
// (and the main file as `main_name` when it is not empty). Returns the folder's path.
std::string write_file_set(const FileSet& set, const std::string& main_name = {});

}  // namespace marrow::fuzz
