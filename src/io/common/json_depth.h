// A scan that finds JSON nested deeper than a limit before any parser builds it, so a file of
// 100,000 '[' is refused at once, with the byte where the limit is passed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace marrow::io {

// The offset of the first '[' or '{' (outside strings) that opens level max_depth + 1, if any.
// Malformed JSON is left for the parser to report.
std::optional<std::size_t> json_nested_too_deep(std::span<const std::uint8_t> json,
                                                std::size_t max_depth);

}  // namespace marrow::io
