#include "marrow/io/retarget_map_json.h"

#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "common/reader_support.h"

namespace marrow {
namespace {

using Json = nlohmann::json;

// Line and column (1-based) of a byte offset.
std::string place_of(std::string_view text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

std::string in_quotes(const std::string& s) {
  return "\"" + s + "\"";
}

Result<std::vector<HumanoidPartNames>> read_parts(const Json& section, const std::string& where,
                                                  const std::string& path) {
  if (!section.is_object()) return make_error(where, path + ": must be an object of parts");
  std::vector<HumanoidPartNames> parts;
  for (const auto& [key, value] : section.items()) {
    const std::string at = path + "." + key;
    const std::optional<HumanoidPart> part = humanoid_part_from_string(key);
    if (!part) {
      return make_error(where, at + ": unknown part (hips, spine, neck, head, left_/right_ "
                                    "shoulder, upper_arm, forearm, hand, thigh, shin, foot, toe)");
    }
    HumanoidPartNames names{*part, {}};
    if (value.is_string()) {
      names.joints.push_back(value.get<std::string>());
    } else if (value.is_array() && is_chain(*part)) {
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string()) {
          return make_error(where, at + "[" + std::to_string(i) + "]: must be a joint name");
        }
        names.joints.push_back(value[i].get<std::string>());
      }
    } else {
      return make_error(where, at + (is_chain(*part) ? ": must be a joint name or an array of them"
                                                     : ": must be a joint name"));
    }
    if (names.joints.empty()) return make_error(where, at + ": names no joint");
    for (const std::string& n : names.joints) {
      if (n.empty()) return make_error(where, at + ": a joint name is empty");
    }
    parts.push_back(std::move(names));
  }
  return parts;
}

}  // namespace

Result<RetargetMapSpec> parse_retarget_map(std::string_view json, std::string_view where_view) {
  const std::string where(where_view);
  // Members given twice are kept by the parser as the last one: catch them while parsing.
  std::vector<std::set<std::string>> keys;
  std::string repeated;
  const Json::parser_callback_t track = [&](int depth, Json::parse_event_t event, Json& parsed) {
    (void)depth;
    switch (event) {
      case Json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
            repeated.empty()) {
          repeated = parsed.get<std::string>();
        }
        break;
      default:
        break;
    }
    return true;
  };
  Json doc;
  try {
    doc = Json::parse(json.begin(), json.end(), track);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    const auto bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    if (what.size() > 200) what = what.substr(0, 200) + "...";
    return make_error(where + ":" + place_of(json, e.byte ? e.byte - 1 : 0), "JSON " + what);
  } catch (const Json::exception& e) {
    return make_error(where, std::string("JSON ") + e.what());
  }
  if (!repeated.empty())
    return make_error(where, "member " + in_quotes(repeated) + " is given twice");
  if (!doc.is_object()) return make_error(where, "the top level must be a JSON object");

  RetargetMapSpec spec;
  for (const auto& [key, value] : doc.items()) {
    if (key == "automatic") {
      if (!value.is_boolean()) return make_error(where, "automatic: must be true or false");
      spec.automatic = value.get<bool>();
    } else if (key == "source" || key == "target") {
      Result<std::vector<HumanoidPartNames>> parts = read_parts(value, where, key);
      if (!parts) return parts.error();
      (key == "source" ? spec.source_parts : spec.target_parts) = std::move(parts).value();
    } else if (key == "joints") {
      if (!value.is_object()) {
        return make_error(where, "joints: must be an object of source name: target name");
      }
      for (const auto& [source, target] : value.items()) {
        const std::string at = "joints[" + in_quotes(source) + "]";
        if (!target.is_string() || target.get<std::string>().empty() || source.empty()) {
          return make_error(where, at + ": must pair two non-empty joint names");
        }
        spec.joints.push_back({source, target.get<std::string>()});
      }
    } else {
      return make_error(where, key + ": unknown member (automatic, source, target, joints)");
    }
  }
  return spec;
}

Result<RetargetMapSpec> read_retarget_map(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  return parse_retarget_map(text, path);
}

}  // namespace marrow
