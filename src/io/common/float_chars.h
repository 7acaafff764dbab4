// Locale-independent conversion between floating-point numbers and text, with std::from_chars and
// std::to_chars semantics: the readers parse numbers through these, and the writers print the
// shortest text that reads back as the same value.
//
// Where the standard library has floating-point <charconv> (libstdc++ 11 and later), these are
// the standard calls. The WebAssembly build's libc++ (Debian's emscripten 3.1.6) has only the
// integer overloads; there the same grammar is scanned here and converted by strtod/strtof (its
// C library has no locales, so the decimal point is always '.'), and shortest output is found by
// trying precisions until the text reads back (docs/web.md).
#pragma once

#include <charconv>

namespace marrow::io {

/// std::from_chars(first, last, value) in the general format: an optional '-', digits with an
/// optional '.', an optional exponent; "inf", "infinity" and "nan" in any case. No leading
/// whitespace or '+'. Out of range: ec is result_out_of_range and `value` is left as it was.
std::from_chars_result parse_floating(const char* first, const char* last, double& value);
std::from_chars_result parse_floating(const char* first, const char* last, float& value);

/// std::to_chars(first, last, value): the shortest text that reads back as `value`.
std::to_chars_result print_shortest(char* first, char* last, double value);
std::to_chars_result print_shortest(char* first, char* last, float value);

/// The fallback itself, compiled everywhere so that native tests hold it to the standard calls.
namespace portable {
std::from_chars_result parse_floating(const char* first, const char* last, double& value);
std::from_chars_result parse_floating(const char* first, const char* last, float& value);
std::to_chars_result print_shortest(char* first, char* last, double value);
std::to_chars_result print_shortest(char* first, char* last, float value);
}  // namespace portable

}  // namespace marrow::io
