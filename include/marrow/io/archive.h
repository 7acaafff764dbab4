/// @file
/// marrow's own archive (.marrow): one binary file holding a whole Asset (skeleton, clips with
/// every key and interpolation and their compiled forms, skins, meshes, import warnings).
/// Little-endian, versioned, CRC-32 checked; every count, offset and index is validated on load,
/// and nothing is allocated beyond what the file's size can back. The layout, byte by byte, is in
/// docs/formats_archive.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "marrow/io/asset.h"

namespace marrow {

/// Version 2 added morph targets and weight tracks, version 3 compiled clips
/// (Asset::compiled_clips), version 4 where each clip's tick rate came from
/// (Asset::rate_sources), materials, images and vertex colours, version 5 a motion-matching
/// database's section (io/motion_database_archive.h), version 6 compiled clips' kPacked track
/// groups (each lane's bits), version 7 rotation groups sampled at slerp's timing
/// (CompiledClipData::TrackGroup::slerp_timing); archives of versions 1 to 6 still load.
inline constexpr std::uint32_t kArchiveVersion = 7;
inline constexpr std::size_t kArchiveHeaderBytes = 32;

/// True when the bytes start with the archive's magic.
bool has_archive_magic(std::span<const std::uint8_t> bytes);

/// How an archive stores an image the asset names by its file: its bytes read in (a
/// self-contained archive), or the path alone (what the isolated importer sends its parent).
enum class ImageFiles { kEmbed, kByPath };

/// The archive as bytes. Fails on data the format cannot hold (a section over 4 GiB, an
/// inconsistent mesh) with a message naming the part. Images are stored with their bytes (read
/// from their files when the asset only names them, unless `files` says kByPath); one whose file
/// cannot be read is kept by its path, which `notes` (when given) says.
Result<std::vector<std::uint8_t>> archive_bytes(const Asset& asset,
                                                std::vector<std::string>* notes = nullptr,
                                                ImageFiles files = ImageFiles::kEmbed);
/// Writes the archive to a temporary file beside `path`, then renames it into place.
Status write_archive(const Asset& asset, const std::string& path,
                     std::vector<std::string>* notes = nullptr);

/// Loads an archive. Errors name the file, the byte offset and the part ("mesh 2 'body'").
Result<Asset> read_archive(const std::string& path);
Result<Asset> read_archive(std::span<const std::uint8_t> bytes, const std::string& name);

}  // namespace marrow
