// The archive's version-3 part (version 6: kPacked track groups): a clip's compiled form
// (clip/compiled_clip.h), at the very end of its CLIP section, as a length-prefixed record
// (docs/formats_archive.md has the bytes). Private to src/io/archive.
#pragma once

#include <optional>
#include <string>

#include "archive/archive_stream.h"
#include "marrow/clip/compiled_clip.h"

namespace marrow::archive_detail {

// The record's length, then the record; a length of 0 when `compiled` is empty. Throws
// WriteError naming `what` when the compiled clip was not made from `clip` for a skeleton of
// `joint_count` joints (name, duration, rate, events and joint count must agree).
void write_compiled_clip(Out& out, const std::optional<CompiledClip>& compiled, const Clip& clip,
                         std::size_t joint_count, const std::string& what);

// Reads what write_compiled_clip wrote, for `clip` (already read: the compiled clip takes its
// name, duration, rate and events) on a skeleton of `joint_count` joints. Every count is checked
// against the bytes left in the record before anything is allocated, every enum and reserved
// byte where it is read, and the whole through CompiledClip::from_data (offsets, frame times,
// formats, quantization ranges, the values they decode to). Errors name the file, the byte and
// `what` (the clip). `version` is the archive's: before 6, track groups have no lane bits and
// no kPacked format.
std::optional<CompiledClip> read_compiled_clip(In& in, std::size_t section_end,
                                               const std::string& file, const std::string& what,
                                               const Clip& clip, std::size_t joint_count,
                                               std::uint32_t version);

}  // namespace marrow::archive_detail
