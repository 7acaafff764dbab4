#include "common/json_text.h"

#include <algorithm>
#include <set>
#include <span>
#include <vector>

#include "common/budget.h"
#include "common/json_depth.h"
#include "common/text_lines.h"

namespace marrow::io {

std::string text_place(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::size_t start = pos;
  while (start > 0 && !is_line_break(text[start - 1])) --start;
  return std::to_string(line_of_byte(text, pos)) + ":" + std::to_string(pos - start + 1);
}

Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& where) {
  using Json = nlohmann::json;
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(text.data()),
                                            text.size());
  if (const std::optional<std::size_t> deep = json_nested_too_deep(bytes, kMaxNestingDepth)) {
    return make_error(where + ":" + text_place(text, *deep),
                      "JSON nests arrays and objects deeper than " +
                          std::to_string(kMaxNestingDepth) + " levels, the most marrow reads");
  }
  std::vector<std::set<std::string>> keys;  // per open object, the members seen so far
  std::string repeated;
  const Json::parser_callback_t track = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) keys.emplace_back();
    if (event == Json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == Json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second && repeated.empty()) {
      repeated = parsed.get<std::string>();
    }
    return true;
  };
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end(), track);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    const auto bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    // nlohmann quotes the last token read, which can be most of the file.
    if (what.size() > 200) what = what.substr(0, 200) + "...";
    return make_error(where + ":" + text_place(text, e.byte ? e.byte - 1 : 0), "JSON " + what);
  } catch (const Json::exception& e) {  // a number out of range ("1e400") has no place
    return make_error(where, std::string("JSON ") + e.what());
  }
  if (!repeated.empty()) return make_error(where, "member \"" + repeated + "\" is given twice");
  return doc;
}

}  // namespace marrow::io
