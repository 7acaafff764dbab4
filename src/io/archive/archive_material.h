// The archive's version-4 surfaces: one IMAG section per image (its bytes kept as the source
// encoded them, read from its file when the asset only names one), one MATL section per material,
// and a mesh's material and vertex colours (at the end of its MESH section).
// docs/formats_archive.md has the bytes. Private to src/io/archive.
#pragma once

#include <string>

#include "archive/archive_stream.h"
#include "marrow/io/material.h"
#include "marrow/skin/skinned_mesh.h"

namespace marrow::archive_detail {

// The image's name, mime type, and its bytes or its file's path: the bytes when embedded, or
// when `read_files` and its file can be read; otherwise the path (the reason, when reading
// failed, goes to `note`).
void write_image(Out& out, const MaterialImage& image, bool read_files, std::string& note);
MaterialImage read_image(In& in, const std::string& what);

void write_material(Out& out, const Material& material);
// Every enum and factor checked; image indices are checked against the images once every
// section is read (check_material_images).
Material read_material(In& in, const std::string& what);
// Throws ReadError naming `what` and `at` when a texture of `material` names no image.
void check_material_images(const In& in, std::size_t at, const std::string& what,
                           const Material& material, std::size_t image_count);

// The mesh's material index (-1 for none) and its vertex colours (none or one per vertex).
void write_mesh_surface(Out& out, const SkinnedMesh& mesh, const std::string& what);
void read_mesh_surface(In& in, SkinnedMesh& mesh, const std::string& what);

}  // namespace marrow::archive_detail
