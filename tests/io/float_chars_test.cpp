// The readers' number conversion without floating-point <charconv> (the WebAssembly build's libc++
// lacks it): the portable fallback is held here to std::from_chars and std::to_chars, which are
// the reference, on the grammar's edge cases and on random values of every magnitude.
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "io/common/float_chars.h"

namespace marrow {
namespace {

// The significant digits of a number's text ("-1.25e-07" has 3).
int significant_digits(const std::string& text) {
  int digits = 0;
  bool leading = true;
  for (char c : text) {
    if (c == 'e' || c == 'E') break;
    if (c < '0' || c > '9') continue;
    if (leading && c == '0') continue;
    leading = false;
    ++digits;
  }
  return digits;
}

template <typename T>
void expect_parse_like_standard(const std::string& text) {
  T expected = T(-7), got = T(-7);
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const std::from_chars_result reference = std::from_chars(first, last, expected);
  const std::from_chars_result portable = io::portable::parse_floating(first, last, got);
  EXPECT_EQ(portable.ec, reference.ec) << "'" << text << "'";
  EXPECT_EQ(portable.ptr - first, reference.ptr - first) << "'" << text << "'";
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(got)) << "'" << text << "'";
  } else {
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    EXPECT_EQ(std::bit_cast<Bits>(got), std::bit_cast<Bits>(expected)) << "'" << text << "'";
  }
}

TEST(FloatChars, PortableParsingTakesWhatFromCharsTakesAndStopsWhereItStops) {
  const std::vector<std::string> cases = {"0",
                                          "-0",
                                          "1",
                                          "1.5",
                                          ".25",
                                          "5.",
                                          "-.5",
                                          "1e3",
                                          "1E-3",
                                          "1e",
                                          "1e+",
                                          "1e-x",
                                          "2.5e+07x",
                                          "12abc",
                                          "-",
                                          ".",
                                          "+1",
                                          " 1",
                                          "",
                                          "e5",
                                          "inf",
                                          "-INF",
                                          "Infinity",
                                          "infinit",
                                          "nan",
                                          "NaN(12)",
                                          "nan(",
                                          "0x1p3",
                                          "1e400",
                                          "-1e400",
                                          "1e-400",
                                          "1e40",
                                          "3.4028235e38",
                                          "3.4028236e38",
                                          "1.17549435e-38",
                                          "123456789012345678901234567890",
                                          "0.000000000000000000000000000000000000000000001"};
  for (const std::string& text : cases) {
    expect_parse_like_standard<double>(text);
    expect_parse_like_standard<float>(text);
  }
}

template <typename T, typename Bits>
void check_random_values(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  int checked = 0;
  while (checked < 20000) {
    const T value = std::bit_cast<T>(static_cast<Bits>(random()));
    if (!std::isfinite(value)) continue;
    ++checked;
    char reference[64], portable[64];
    // The shortest round-trip digits, in scientific form (plain to_chars may print a large
    // integer's every digit in fixed form).
    const std::to_chars_result r = std::to_chars(reference, reference + sizeof reference, value,
                                                 std::chars_format::scientific);
    const std::to_chars_result p =
        io::portable::print_shortest(portable, portable + sizeof portable, value);
    ASSERT_EQ(p.ec, std::errc());
    const std::string reference_text(reference, r.ptr), portable_text(portable, p.ptr);
    // Shortest: as few significant digits as the standard's, and reads back as the same value.
    EXPECT_EQ(significant_digits(portable_text), significant_digits(reference_text))
        << portable_text << " against " << reference_text;
    T back = 0;
    std::from_chars(portable_text.data(), portable_text.data() + portable_text.size(), back);
    ASSERT_EQ(std::bit_cast<Bits>(back), std::bit_cast<Bits>(value)) << portable_text;
    // And the standard's text parses to the same bits through the fallback.
    expect_parse_like_standard<T>(reference_text);
  }
}

TEST(FloatChars, PortablePrintingIsShortestAndRoundTripsOnRandomFloats) {
  check_random_values<float, std::uint32_t>(1);
}

TEST(FloatChars, PortablePrintingIsShortestAndRoundTripsOnRandomDoubles) {
  check_random_values<double, std::uint64_t>(2);
}

TEST(FloatChars, PortablePrintingReportsATooSmallBuffer) {
  char buffer[4];
  EXPECT_EQ(io::portable::print_shortest(buffer, buffer + sizeof buffer, 0.125f).ec,
            std::errc::value_too_large);
}

}  // namespace
}  // namespace marrow
