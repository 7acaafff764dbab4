// marrow's own JSON formats (controller scripts, state machines, retarget maps) are parsed one
// way: nesting held to kMaxNestingDepth before the parser builds anything (a file of 100,000 '['
// is refused at once), a member given twice refused (the parser would keep the last silently),
// and every error naming the file, the line and the column by the one line rule (text_lines.h).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "marrow/base/error.h"

namespace marrow::io {

// "line:column" (1-based) of byte `pos`, lines ended by LF, CRLF or a lone CR.
std::string text_place(std::string_view text, std::size_t pos);

// The document, or an error "where:line:column: JSON ..." (or "where: member "x" is given
// twice").
Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& where);

}  // namespace marrow::io
