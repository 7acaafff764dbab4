#include "marrow/io/asset.h"

#include "base/enum_names.h"

#include <algorithm>
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

Result<std::size_t> Asset::require_clip(std::string_view name_or_index) const {
  if (const std::optional<std::size_t> found = find_clip(name_or_index)) return *found;
  std::string names;
  for (const Clip& c : clips) names += (names.empty() ? "" : ", ") + c.name();
  return make_error(source, "no clip '" + std::string(name_or_index) +
                                "' (clips: " + (names.empty() ? "none" : names) + ")");
}

Result<std::vector<std::size_t>> Asset::require_clips(std::span<const std::string> names) const {
  std::vector<std::size_t> indices;
  for (const std::string& name : names) {
    Result<std::size_t> index = require_clip(name);
    if (!index) return index.error();
    if (std::find(indices.begin(), indices.end(), *index) == indices.end())
      indices.push_back(*index);
  }
  if (names.empty()) {
    for (std::size_t c = 0; c < clips.size(); ++c) indices.push_back(c);
  }
  return indices;
}

void Asset::keep_clips(std::span<const std::size_t> indices) {
  std::vector<Clip> kept;
  std::vector<RateSource> kept_rates;
  std::vector<std::optional<CompiledClip>> kept_compiled;
  for (std::size_t c : indices) {
    kept.push_back(clips.at(c));
    kept_rates.push_back(rate_source(c));
    kept_compiled.push_back(c < compiled_clips.size() ? compiled_clips[c] : std::nullopt);
  }
  clips = std::move(kept);
  rate_sources = std::move(kept_rates);
  compiled_clips = std::move(kept_compiled);
}

RateSource Asset::rate_source(std::size_t clip) const {
  return clip < rate_sources.size() ? rate_sources[clip] : RateSource::kFile;
}

const CompiledClip* Asset::compiled_clip(std::size_t clip) const {
  if (clip >= clips.size() || clip >= compiled_clips.size() || !compiled_clips[clip]) {
    return nullptr;
  }
  const CompiledClip& compiled = *compiled_clips[clip];
  const Clip& exact = clips[clip];
  const bool fits = compiled.name() == exact.name() && compiled.duration() == exact.duration() &&
                    compiled.joint_count() == skeleton.size() &&
                    exact.joint_count() == skeleton.size();
  return fits ? &compiled : nullptr;
}

std::string_view rate_source_name(RateSource source) {
  static constexpr std::array<std::string_view, 3> kNames{"file", "default", "option"};
  static_assert(detail::names_cover(kNames, RateSource::kOption));
  return detail::enum_name(source, kNames, "file");
}

}  // namespace marrow
