/// @file
/// glTF 2.0 export (.glb, or .gltf with its buffer in a side .bin file or embedded as a data URI)
/// of a whole Asset: the skeleton as nodes (TRS), skins with inverse bind matrices, meshes with
/// JOINTS_n/WEIGHTS_n, and every clip as an animation with its interpolation. What the format
/// cannot hold, and what was changed to satisfy the specification, is listed in `notes`. See
/// docs/formats.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "marrow/io/asset.h"

namespace marrow {

struct GltfExportOptions {
  /// For .gltf: put the buffer in the JSON as a base64 data URI instead of a side .bin file.
  bool embed_buffer = false;
};

/// The document as bytes: a GLB container, or the JSON of a .gltf whose buffer is embedded.
Result<std::vector<std::uint8_t>> export_glb(const Asset& asset,
                                             std::vector<std::string>* notes = nullptr);
Result<std::vector<std::uint8_t>> export_gltf_embedded(const Asset& asset,
                                                       std::vector<std::string>* notes = nullptr);

/// Writes `path` by its extension (.glb or .gltf; a .gltf gets `<stem>.bin` beside it unless the
/// buffer is embedded). Files are written to temporaries and renamed into place, so a failure
/// leaves nothing half-written.
Status write_gltf(const Asset& asset, const std::string& path,
                  const GltfExportOptions& options = {}, std::vector<std::string>* notes = nullptr);

}  // namespace marrow
