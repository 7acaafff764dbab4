#include "common/reader_support.h"

#include <algorithm>
#include <cmath>

#include <filesystem>
#include <fstream>

namespace marrow::io {

Result<std::vector<std::uint8_t>> read_file_bytes(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error{path + ": cannot open (" + ec.message() + ")"};
  if (size > kMaxInputFileBytes) return Error{path + ": file is larger than 2 GiB"};
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  if (!in || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    return Error{path + ": cannot read"};
  }
  return bytes;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
  return out;
}

Result<std::vector<JointIndex>> build_asset_skeleton(Asset& asset,
                                                     const std::vector<JointDesc>& descs,
                                                     const std::string& where) {
  std::vector<JointIndex> joint_of;
  Result<Skeleton> skeleton = Skeleton::build(descs, where, &joint_of);
  if (!skeleton) return skeleton.error();
  asset.skeleton = std::move(skeleton).value();
  asset.source_index.assign(asset.skeleton.size(), -1);
  for (std::size_t i = 0; i < joint_of.size(); ++i)
    asset.source_index[joint_of[i]] = static_cast<std::int64_t>(i);
  return joint_of;
}

std::optional<JointIndex> joint_nested_too_deep(const Skeleton& skeleton) {
  // Parents come first, so one forward pass knows every parent's depth.
  std::vector<std::size_t> depth(skeleton.size(), 0);
  for (std::size_t j = 0; j < skeleton.size(); ++j) {
    const JointIndex parent = skeleton.parent(j);
    depth[j] = parent == kNoParent ? 0 : depth[parent] + 1;
    if (depth[j] > kMaxNestingDepth) return static_cast<JointIndex>(j);
  }
  return std::nullopt;
}

std::string quote_token(std::string_view token) {
  constexpr std::size_t kMax = 40;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (std::size_t i = 0; i < token.size() && i < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (token.size() > kMax) out += "...";
  return out + "'";
}

float linear_from_display(float v) {
  v = std::clamp(v, 0.0f, 1.0f);
  return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
}

std::string image_path_beside(const std::string& document, std::string reference,
                              const std::string& where, std::vector<std::string>& warnings) {
  namespace fs = std::filesystem;
  reference.erase(0, reference.find_first_not_of(" \t\r\n"));
  reference.erase(reference.find_last_not_of(" \t\r\n") + 1);
  if (reference.rfind("file://", 0) == 0) reference.erase(0, 7);
  std::replace(reference.begin(), reference.end(), '\\', '/');
  const fs::path folder = fs::path(document).parent_path();
  const fs::path path = (folder / reference).lexically_normal();
  const fs::path relative = path.lexically_relative(folder.empty() ? fs::path(".") : folder);
  const bool outside = fs::path(reference).is_absolute() ||
                       reference.find(':') != std::string::npos || relative.empty() ||
                       *relative.begin() == "..";
  if (!outside) return path.string();
  const fs::path beside = (folder / fs::path(reference).filename()).lexically_normal();
  warnings.push_back(where + ": " + quote_token(reference) +
                     " is outside the document's folder; looked for as " +
                     beside.filename().string() + " beside it");
  return beside.string();
}

}  // namespace marrow::io
