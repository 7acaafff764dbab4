/// @file
/// A motion-matching database (control/motion_database.h) saved in a .marrow archive, so a game
/// loads it instead of building it: the database's skeleton and clips as the archive's SKEL and
/// CLIP sections, and its schema, frames, normalization and features in a MOTN section (archive
/// version 5; docs/formats_archive.md has the bytes). Loading checks every count, index and float
/// as the archive does, then MotionDatabase::restore() checks the contents against the skeleton
/// and clips and rebuilds the search index: the loaded database searches exactly as the saved.
///
/// @code
///   Status saved = write_motion_database(*database, "locomotion.marrow");
///   Result<std::shared_ptr<const MotionDatabase>> loaded =
///       read_motion_database("locomotion.marrow");
/// @endcode
///
/// read_archive() of such a file gives the skeleton and clips, with a note that the database
/// itself is not part of an Asset.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "marrow/base/error.h"
#include "marrow/control/motion_database.h"

namespace marrow {

/// The archive's bytes. Errors: a database made by MotionDatabase::from_features (no clips).
Result<std::vector<std::uint8_t>> motion_database_bytes(const MotionDatabase& database);
/// Writes them to a temporary file beside `path`, then renames it into place.
Status write_motion_database(const MotionDatabase& database, const std::string& path);

/// Loads a saved database. Errors name the file, the byte and the part ("frame 12: names clip 7"),
/// and an archive without a database says so.
Result<std::shared_ptr<const MotionDatabase>> read_motion_database(const std::string& path);
Result<std::shared_ptr<const MotionDatabase>> read_motion_database(
    std::span<const std::uint8_t> bytes, const std::string& name);

}  // namespace marrow
