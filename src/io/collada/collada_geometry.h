// Collada geometry and controllers: <mesh> primitives (triangles, polylist, polygons, trifans,
// tristrips) unrolled into SkinnedMeshes, <skin> controllers into Skins and influences, <morph>
// controllers into sparse morph targets, for every <instance_geometry> and
// <instance_controller> of the scene. Private to src/io/collada.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "collada/collada_scene.h"
#include "marrow/io/asset.h"

namespace marrow::collada {

// Which instanced meshes a morph controller's weights drive: the weights <source> element's id
// (what animation channels target, "weights-id(3)") and the controller's id, each to the scene
// nodes that instance it (through a skin or directly) and the number of targets.
struct MorphInstances {
  struct Entry {
    std::vector<std::size_t> nodes;  // scene nodes
    std::size_t targets = 0;
    pugi::xml_node weights;  // the MORPH_WEIGHT <source>
  };
  std::unordered_map<std::string, Entry> by_weights_id;
  std::unordered_map<std::string, std::string> weights_id_of_controller;
};

// Reads every instance of the scene into `asset` (meshes, skins). `joint_of_node` maps scene
// nodes to skeleton joints. Warnings for what is skipped (lines, missing geometry, unsupported
// geometry kinds).
MorphInstances read_instances(const Document& doc, const Scene& scene,
                              const std::vector<JointIndex>& joint_of_node, Asset& asset);

}  // namespace marrow::collada
