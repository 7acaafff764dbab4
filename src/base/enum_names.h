// Enumerator names from one table per enum, in declaration order, instead of a switch per enum:
// each table's static_assert ties its length to the enum's last enumerator, so a new enumerator
// without a name fails to compile, as an unhandled switch case warns. Private to src/.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace marrow::detail {

// names[value], or `fallback` for a value past the table (a corrupt or cast-in value).
template <class Enum, std::size_t N>
constexpr std::string_view enum_name(Enum value, const std::array<std::string_view, N>& names,
                                     std::string_view fallback = "?") {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? names[index] : fallback;
}

// True when `names` has one entry per enumerator up to `last`.
template <class Enum, std::size_t N>
constexpr bool names_cover(const std::array<std::string_view, N>&, Enum last) {
  return static_cast<std::size_t>(last) + 1 == N;
}

}  // namespace marrow::detail
