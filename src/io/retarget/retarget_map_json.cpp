#include "marrow/io/retarget_map_json.h"

#include <new>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/json_text.h"
#include "common/reader_support.h"

namespace marrow {
namespace {

using Json = nlohmann::json;

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

Result<RetargetMapSpec> read_map(std::string_view json, const std::string& where) {
  Result<Json> parsed = io::parse_json_text(json, where);
  if (!parsed) return parsed.error();
  const Json& doc = *parsed;
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

}  // namespace

Result<RetargetMapSpec> parse_retarget_map(std::string_view json, std::string_view where_view) {
  const std::string where(where_view);
  try {
    return read_map(json, where);
  } catch (const std::bad_alloc&) {  // a hostile file's names and arrays
    return make_error(where, "out of memory");
  }
}

Result<RetargetMapSpec> read_retarget_map(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  return parse_retarget_map(text, path);
}

}  // namespace marrow
