// Collada materials as marrow keeps them (io/material.h): a <material>'s effect, its
// profile_COMMON technique (constant, lambert, phong, blinn) mapped into the metallic-roughness
// model, and the <image> files its textures sample. Private to src/io/collada.
#pragma once

#include <map>
#include <set>
#include <string>

#include "collada/collada_document.h"
#include "marrow/io/asset.h"

namespace marrow::collada {

class MaterialTable {
 public:
  // The index in asset.materials of the <material> a bind_material's instance_material targets
  // ("#id"), read on first use; -1 (with a warning) when it names nothing readable.
  int index_of(const Document& doc, pugi::xml_node instance_material, Asset& asset);

  // One note for what the techniques held that the model has no place for.
  void add_notes(const Document& doc, Asset& asset) const;

 private:
  std::map<std::string, int> by_id_;     // <material> id -> index in asset.materials
  std::map<std::string, int> image_of_;  // <image> id -> index in asset.images
  std::set<std::string> not_kept_;       // "specular", "transparency", ...

  Material read_effect(const Document& doc, pugi::xml_node effect, Asset& asset);
  TextureRef read_texture(const Document& doc, pugi::xml_node profile, pugi::xml_node texture,
                          Asset& asset);
  int image_index(const Document& doc, pugi::xml_node image, Asset& asset);
};

}  // namespace marrow::collada
