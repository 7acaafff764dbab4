#include "io/common/float_chars.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace marrow::io {
namespace portable {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Whether [p, last) starts with `word` in any case.
bool starts_with_word(const char* p, const char* last, const char* word) {
  for (; *word != '\0'; ++p, ++word) {
    if (p == last || lower(*p) != *word) return false;
  }
  return true;
}

// The end of the longest prefix of [first, last) that from_chars' general format accepts, or
// `first` when there is none.
const char* scan_number(const char* first, const char* last) {
  const char* p = first;
  if (p != last && *p == '-') ++p;
  if (starts_with_word(p, last, "infinity")) return p + 8;
  if (starts_with_word(p, last, "inf")) return p + 3;
  if (starts_with_word(p, last, "nan")) {
    const char* q = p + 3;
    if (q == last || *q != '(') return q;
    const char* r = q + 1;
    while (r != last && (is_digit(*r) || (lower(*r) >= 'a' && lower(*r) <= 'z') || *r == '_')) ++r;
    return r != last && *r == ')' ? r + 1 : q;
  }
  const char* digits = p;
  while (p != last && is_digit(*p)) ++p;
  bool any = p != digits;
  if (p != last && *p == '.') {
    const char* fraction = ++p;
    while (p != last && is_digit(*p)) ++p;
    any = any || p != fraction;
  }
  if (!any) return first;
  if (p != last && lower(*p) == 'e') {
    const char* q = p + 1;
    if (q != last && (*q == '+' || *q == '-')) ++q;
    const char* exponent = q;
    while (q != last && is_digit(*q)) ++q;
    if (q != exponent) p = q;
  }
  return p;
}

template <typename T, typename Convert>
std::from_chars_result parse_with(const char* first, const char* last, T& value, Convert convert) {
  const char* end = scan_number(first, last);
  if (end == first) return {first, std::errc::invalid_argument};
  // strtod needs a terminated string; numbers in files are short, so this rarely allocates.
  const std::string text(first, end);
  errno = 0;
  char* stop = nullptr;
  const T parsed = convert(text.c_str(), &stop);
  // strtod also says ERANGE for a subnormal result, which from_chars takes; only an overflow to
  // infinity or an underflow to zero is out of range.
  if (errno == ERANGE && (parsed == 0 || parsed > std::numeric_limits<T>::max() ||
                          parsed < -std::numeric_limits<T>::max())) {
    return {end, std::errc::result_out_of_range};
  }
  value = parsed;
  return {end, std::errc()};
}

template <typename T, typename Convert>
std::to_chars_result print_with(char* first, char* last, T value, int max_digits, Convert convert) {
  char text[64];
  int length = 0;
  for (int digits = 1; digits <= max_digits; ++digits) {
    length = std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    if (length > 0 && convert(text, nullptr) == value) break;
  }
  if (length <= 0 || length > last - first) return {last, std::errc::value_too_large};
  for (int i = 0; i < length; ++i) first[i] = text[i];
  return {first + length, std::errc()};
}

}  // namespace

std::from_chars_result parse_floating(const char* first, const char* last, double& value) {
  return parse_with(first, last, value, [](const char* s, char** e) { return std::strtod(s, e); });
}
std::from_chars_result parse_floating(const char* first, const char* last, float& value) {
  return parse_with(first, last, value, [](const char* s, char** e) { return std::strtof(s, e); });
}
std::to_chars_result print_shortest(char* first, char* last, double value) {
  return print_with(first, last, value, 17,
                    [](const char* s, char** e) { return std::strtod(s, e); });
}
std::to_chars_result print_shortest(char* first, char* last, float value) {
  return print_with(first, last, value, 9,
                    [](const char* s, char** e) { return std::strtof(s, e); });
}

}  // namespace portable

// libc++ announces floating-point <charconv> with __cpp_lib_to_chars; libstdc++ has had it since
// GCC 11.
#if defined(_LIBCPP_VERSION) && !defined(__cpp_lib_to_chars)
namespace standard = portable;
#else
namespace standard {
std::from_chars_result parse_floating(const char* first, const char* last, double& value) {
  return std::from_chars(first, last, value);
}
std::from_chars_result parse_floating(const char* first, const char* last, float& value) {
  return std::from_chars(first, last, value);
}
std::to_chars_result print_shortest(char* first, char* last, double value) {
  return std::to_chars(first, last, value);
}
std::to_chars_result print_shortest(char* first, char* last, float value) {
  return std::to_chars(first, last, value);
}
}  // namespace standard
#endif

std::from_chars_result parse_floating(const char* first, const char* last, double& value) {
  return standard::parse_floating(first, last, value);
}
std::from_chars_result parse_floating(const char* first, const char* last, float& value) {
  return standard::parse_floating(first, last, value);
}
std::to_chars_result print_shortest(char* first, char* last, double value) {
  return standard::print_shortest(first, last, value);
}
std::to_chars_result print_shortest(char* first, char* last, float value) {
  return standard::print_shortest(first, last, value);
}

}  // namespace marrow::io
