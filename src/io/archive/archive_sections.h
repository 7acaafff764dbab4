// The archive with one more kind of section than an Asset holds: writers of such archives (a
// motion database's) add their section after the asset's, and their readers get its content
// once the asset is read. Private to src/io/archive.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "archive/archive_stream.h"
#include "marrow/io/asset.h"

namespace marrow::archive_detail {

constexpr std::uint32_t fourcc(const char (&s)[5]) {
  return std::uint32_t(std::uint8_t(s[0])) | std::uint32_t(std::uint8_t(s[1])) << 8 |
         std::uint32_t(std::uint8_t(s[2])) << 16 | std::uint32_t(std::uint8_t(s[3])) << 24;
}

// Version 5: a motion-matching database (io/motion_database_archive.h).
inline constexpr std::uint32_t kMotionTag = fourcc("MOTN");

struct ExtraSection {
  std::uint32_t tag = 0;
  // Writes the section's content (throws WriteError on what it cannot hold).
  std::function<void(Out&)> write{};
  // Reads it, `in` windowed on the content (throws ReadError through In::fail); `at` is the
  // section's offset. Called after every other section is read, at most once (a second section
  // of the tag is refused). Not called when the archive has none.
  std::function<void(In& in, std::size_t at, const Asset& asset)> read{};
};

// archive_bytes() and read_archive() with `extra` written after the asset's sections, or read
// wherever it stands after SKEL. read_archive() alone notes such a section and skips it.
Result<std::vector<std::uint8_t>> archive_bytes_with(const Asset& asset, const ExtraSection& extra);
Result<Asset> read_archive_with(std::span<const std::uint8_t> bytes, const std::string& name,
                                const ExtraSection& extra, bool* found);

}  // namespace marrow::archive_detail
