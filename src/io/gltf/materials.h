// glTF materials as marrow keeps them (io/material.h): the metallic-roughness factors and
// textures (base colour, metallic-roughness, normal, occlusion, emissive) with their samplers,
// texture coordinate sets and KHR_texture_transform, emissive strength, unlit, alpha mode and
// cutoff, double-sidedness; and the images the textures use, embedded (bufferView or data URI)
// or beside the file. A material is about
// looks, not structure: a malformed one is a warning and the default look, never a failure.
#pragma once

#include "accessors.h"
#include "marrow/io/asset.h"

namespace marrow::gltf {

// Fills asset.materials and asset.images (one per glTF material and image, same order).
void read_materials(const Document& doc, Asset& asset);

// The material index of a mesh primitive, or -1 (with a warning when it is out of range).
int primitive_material(const Json& primitive, const std::string& where, Asset& asset);

}  // namespace marrow::gltf
