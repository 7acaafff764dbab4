#include "marrow/io/asset.h"

#include <charconv>

namespace marrow {

bool Asset::is_skin_joint(JointIndex joint) const {
  for (const Skin& skin : skins) {
    for (JointIndex j : skin.joints) {
      if (j == joint) return true;
    }
  }
  return false;
}

std::optional<JointIndex> Asset::joint_of_source(std::int64_t index) const {
  for (std::size_t j = 0; j < source_index.size(); ++j) {
    if (source_index[j] == index) return static_cast<JointIndex>(j);
  }
  return std::nullopt;
}

std::optional<std::size_t> Asset::find_clip(std::string_view name_or_index) const {
  for (std::size_t i = 0; i < clips.size(); ++i) {
    if (clips[i].name() == name_or_index) return i;
  }
  std::size_t index = 0;
  const char* end = name_or_index.data() + name_or_index.size();
  auto [ptr, ec] = std::from_chars(name_or_index.data(), end, index);
  if (ec == std::errc() && ptr == end && index < clips.size()) return index;
  return std::nullopt;
}

RateSource Asset::rate_source(std::size_t clip) const {
  return clip < rate_sources.size() ? rate_sources[clip] : RateSource::kFile;
}

std::string_view rate_source_name(RateSource source) {
  switch (source) {
    case RateSource::kDefault:
      return "default";
    case RateSource::kOption:
      return "option";
    case RateSource::kFile:
      break;
  }
  return "file";
}

}  // namespace marrow
