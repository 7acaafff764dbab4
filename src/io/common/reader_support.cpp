#include "common/reader_support.h"

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

}  // namespace marrow::io
