// Morph targets and weight channels in marrow's glTF output (docs/formats.md, export). Private
// to src/io/export; failures throw ExportError naming `source`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "export/gltf_document.h"
#include "marrow/clip/clip.h"
#include "marrow/skin/morph.h"

namespace marrow::gltf_out {

// The primitive's morph targets as sparse accessors, padded with empty targets to the count of
// the mesh's node `slots` (glTF gives every primitive of a mesh the same number); nothing when
// the mesh has no targets and its node no slots. `what` names the mesh in messages.
void write_targets(Document& doc, const SkinnedMesh& mesh, const std::string& what,
                   const MorphSlots* slots, Json& primitive, std::vector<std::string>* notes,
                   const std::string& source);

// The mesh's default weights (when some is not 0) and extras.targetNames (when a target has a
// name), from its node's slots.
void write_mesh_morph_info(const MorphLayout& layout, const MorphSlots& slots, Json& mesh);

// One `weights` channel per weight track and glTF node holding the track's meshes
// (`morph_nodes`: joint -> glTF nodes); a track whose slots are not its node's is dropped with a
// note.
void write_weight_channels(Document& doc, const Clip& clip, const MorphLayout& layout,
                           const std::map<JointIndex, std::vector<int>>& morph_nodes,
                           Json& samplers, Json& channels, std::vector<std::string>* notes);

}  // namespace marrow::gltf_out
