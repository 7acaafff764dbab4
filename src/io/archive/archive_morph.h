// The archive's version-2 parts: a clip's morph-weight tracks (at the end of its CLIP section)
// and a mesh's morph targets (at the end of its MESH section, when mesh flag 16 is set).
// docs/formats_archive.md has the bytes. Private to src/io/archive.
#pragma once

#include <span>
#include <string>

#include "archive/archive_stream.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/skin/skinned_mesh.h"

namespace marrow::archive_detail {

inline constexpr std::uint32_t kHasMorphTargets = 16;  // mesh attribute flag, version 2

// Weight count, then the weight track records.
void write_weight_tracks(Out& out, const Clip& clip);
// Reads what write_weight_tracks wrote into `builder`, checking every record against the
// skeleton's `joint_count` and the clip's `times` and `values` read before; errors name the file,
// the byte and `what` (the clip).
void read_weight_tracks(In& in, const std::string& file, const std::string& what,
                        std::size_t joint_count, std::span<const float> times,
                        std::span<const float> values, ClipBuilder& builder);

// The mesh's targets and default weights. Throws WriteError naming `what` when they are
// inconsistent (validate_morph_targets).
void write_morph_targets(Out& out, const SkinnedMesh& mesh, const std::string& what);
// Reads them into `mesh` (whose vertex count is known), every count checked against the bytes
// left and the targets validated (indices, order, finite deltas) before returning.
void read_morph_targets(In& in, SkinnedMesh& mesh, const std::string& what);

}  // namespace marrow::archive_detail
