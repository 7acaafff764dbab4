// The README's library example as a program: plays a clip, lays a second clip over one
// subtree through a masked override layer, and skins the first skinned mesh every frame.
//
//   play_and_skin FILE BASE_CLIP OVERRIDE_CLIP MASK_ROOT
//
// Prints the skinned mesh's bounding box at a few frames. Built with the project; a test runs
// it on Soldier.glb.
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "marrow/skin/skinning.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: play_and_skin FILE BASE_CLIP OVERRIDE_CLIP MASK_ROOT\n");
    return 2;
  }
  marrow::Result<marrow::Asset> asset = marrow::load_asset(argv[1]);
  if (!asset) {
    std::fprintf(stderr, "%s\n", asset.error().message.c_str());
    return 1;
  }
  const std::optional<std::size_t> base_index = asset->find_clip(argv[2]);
  const std::optional<std::size_t> over_index = asset->find_clip(argv[3]);
  if (!base_index || !over_index || asset->skins.empty()) {
    std::fprintf(stderr, "%s: needs clips '%s' and '%s' and a skin\n", argv[1], argv[2], argv[3]);
    return 1;
  }

  // Setup, once per character: buffers, cursors, the mask, the mesh laid out for skinning.
  const marrow::Skeleton& skeleton = asset->skeleton;
  const marrow::Clip& base = asset->clips[*base_index];
  const marrow::Clip& over = asset->clips[*over_index];
  marrow::Result<std::vector<float>> mask = marrow::mask_from_subtree(skeleton, argv[4]);
  if (!mask) {
    std::fprintf(stderr, "%s\n", mask.error().message.c_str());
    return 1;
  }
  std::size_t mesh_index = 0;
  while (mesh_index < asset->meshes.size() && asset->meshes[mesh_index].skin < 0) ++mesh_index;
  if (mesh_index == asset->meshes.size()) {
    std::fprintf(stderr, "%s: no skinned mesh\n", argv[1]);
    return 1;
  }
  const marrow::SkinnedMesh& mesh = asset->meshes[mesh_index];
  const marrow::Skin& skin = asset->skins[static_cast<std::size_t>(mesh.skin)];
  marrow::Result<marrow::SkinningMesh> skinning =
      marrow::SkinningMesh::build(mesh, skin.joints.size());
  if (!skinning) {
    std::fprintf(stderr, "%s\n", skinning.error().message.c_str());
    return 1;
  }
  const std::size_t n = skeleton.size();
  std::vector<marrow::Transform> base_pose(n), over_pose(n), blended(n);
  std::vector<marrow::Mat4> model(n), palette(skin.joints.size());
  std::vector<marrow::Vec3> positions(mesh.vertex_count()), normals(mesh.vertex_count());
  marrow::SamplingCursor base_cursor(base), over_cursor(over);

  // Per frame: nothing below allocates.
  for (int frame = 0; frame <= 60; ++frame) {
    const float seconds = frame / 30.0f;
    const float over_weight = frame < 30 ? frame / 30.0f : 1.0f;  // fade the override in
    marrow::sample(base, skeleton.rest_pose(),
                   marrow::wrap_time(seconds, base.duration(), marrow::WrapMode::kLoop),
                   base_cursor, base_pose);
    marrow::sample(over, skeleton.rest_pose(),
                   marrow::wrap_time(seconds, over.duration(), marrow::WrapMode::kLoop),
                   over_cursor, over_pose);
    const marrow::BlendLayer normal[] = {{base_pose, 1.0f, {}}};
    const marrow::BlendLayer overrides[] = {{over_pose, over_weight, *mask}};
    marrow::BlendJob blend;
    blend.rest_pose = skeleton.rest_pose();
    blend.layers = normal;
    blend.overrides = overrides;
    blend.output = blended;
    if (!blend.run() || !marrow::local_to_model(skeleton, blended, model) ||
        !marrow::compute_skinning_palette(skin, model, palette) ||
        !marrow::skin(*skinning, palette, marrow::SkinningMethod::kDualQuaternion,
                      {positions, normals, {}})) {
      std::fprintf(stderr, "frame %d: a job refused its inputs\n", frame);
      return 1;
    }
    if (frame % 20 == 0) {
      const marrow::Aabb box = marrow::compute_bounds(positions);
      std::printf("frame %2d: bounds (%.3f %.3f %.3f) - (%.3f %.3f %.3f)\n", frame, box.min.x,
                  box.min.y, box.min.z, box.max.x, box.max.y, box.max.z);
    }
  }
  return 0;
}
