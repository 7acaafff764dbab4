// How a fuzz target is written: one function over the input bytes, declared with
// MARROW_FUZZ_TARGET(name). In a libFuzzer build (MARROW_FUZZ_LIBFUZZER, one executable per
// target) it becomes LLVMFuzzerTestOneInput; in the ordinary build every target is registered by
// name in one replay program (replay_main.cpp) that the test suite runs over the committed seeds
// and regression inputs. A target never catches anything: a finding is a crash, a sanitizer
// report, an exception escaping marrow's API, or a failed MARROW_FUZZ_CHECK (which aborts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "marrow/base/error.h"

namespace marrow::fuzz {

using TargetFunction = int (*)(const std::uint8_t* data, std::size_t size);

// Adds a target to the replay program's table (replay builds only).
struct Registration {
  Registration(const char* name, TargetFunction function);
};
// The replay program's table, by target name.
std::map<std::string, TargetFunction>& registered_targets();

// Prints "fuzz check failed: <what>" with the source place, then aborts (a finding).
[[noreturn]] void check_failed(const char* file, int line, const std::string& what);

// The input as bytes.
inline std::span<const std::uint8_t> bytes_of(const std::uint8_t* data, std::size_t size) {
  return {data, size};
}

// An Error as marrow documents it: a message that names the file it was given
// ("name: ..." or "name:line: ..."). Anything else is a finding.
void expect_documented_error(const Error& error, const std::string& name);

}  // namespace marrow::fuzz

#define MARROW_FUZZ_CHECK(condition, what)                                                 \
  do {                                                                                     \
    if (!(condition)) ::marrow::fuzz::check_failed(__FILE__, __LINE__, std::string(what)); \
  } while (0)

#ifdef MARROW_FUZZ_LIBFUZZER
#define MARROW_FUZZ_TARGET(name) \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
#else
#define MARROW_FUZZ_TARGET(name)                                                                 \
  static int marrow_fuzz_##name(const std::uint8_t* data, std::size_t size);                     \
  static const ::marrow::fuzz::Registration marrow_fuzz_registration_##name(#name,               \
                                                                            marrow_fuzz_##name); \
  static int marrow_fuzz_##name(const std::uint8_t* data, std::size_t size)
#endif
