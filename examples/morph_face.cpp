// docs/morph_targets.md's example as a program: plays a clip's joint and morph-weight tracks
// with one cursor, mixes each mesh's targets into its bind pose (MorphJob), then skins it (or
// places a rigid mesh by its node), every frame, allocating nothing per frame.
//
//   morph_face FILE [CLIP]
//
// Prints, at a few frames, the weights and the box around the first morphed mesh. Built with the
// project; tests run it.
#include <cstdio>
#include <optional>
#include <vector>

#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/morph.h"
#include "marrow/skin/skinning.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: morph_face FILE [CLIP]\n");
    return 2;
  }
  marrow::Result<marrow::Asset> asset = marrow::load_asset(argv[1]);
  if (!asset) {
    std::fprintf(stderr, "%s\n", asset.error().message.c_str());
    return 1;
  }
  const std::optional<std::size_t> clip_index =
      argc == 3 ? asset->find_clip(argv[2]) : std::optional<std::size_t>(0);
  if (!clip_index || *clip_index >= asset->clips.size()) {
    std::fprintf(stderr, "%s: no such clip\n", argv[1]);
    return 1;
  }
  const marrow::Skeleton& skeleton = asset->skeleton;
  const marrow::Clip& clip = asset->clips[*clip_index];
  std::size_t m = 0;
  while (m < asset->meshes.size() && asset->meshes[m].morph_targets.empty()) ++m;
  if (m == asset->meshes.size()) {
    std::fprintf(stderr, "%s: no mesh has morph targets\n", argv[1]);
    return 1;
  }
  const marrow::SkinnedMesh& mesh = asset->meshes[m];

  // Setup, once per mesh: the weight layout, the mesh laid out for skinning (when skinned) and
  // for morphing (in the skinning order, so skinning reads the morphed vertices).
  const marrow::MorphLayout layout = marrow::MorphLayout::build(asset->meshes);
  std::optional<marrow::SkinningMesh> skinning;
  const marrow::Skin* skin = mesh.skin >= 0 ? &asset->skins[mesh.skin] : nullptr;
  if (skin) {
    marrow::Result<marrow::SkinningMesh> built =
        marrow::SkinningMesh::build(mesh, skin->joints.size());
    if (!built) {
      std::fprintf(stderr, "%s\n", built.error().message.c_str());
      return 1;
    }
    skinning = std::move(built).value();
  }
  marrow::Result<marrow::MorphMesh> morph =
      marrow::MorphMesh::build(mesh, skinning ? &*skinning : nullptr);
  if (!morph) {
    std::fprintf(stderr, "%s\n", morph.error().message.c_str());
    return 1;
  }

  // Per character: buffers and one cursor for joint and weight tracks.
  marrow::SamplingCursor cursor(clip);
  std::vector<marrow::Transform> local(skeleton.size());
  std::vector<marrow::Mat4> model(skeleton.size());
  std::vector<float> weights(layout.weight_count());
  marrow::MorphedVertices morphed = marrow::MorphedVertices::create(*morph);
  std::vector<marrow::Mat4> palette(skin ? skin->joints.size() : 0);
  std::vector<marrow::Vec3> positions(mesh.vertex_count());

  for (int frame = 0; frame <= 4; ++frame) {
    // Per frame: sample joints and weights, morph, then skin (or place by the mesh's node).
    const float t = clip.duration() * static_cast<float>(frame) / 4.0f;
    marrow::sample(clip, skeleton.rest_pose(), t, cursor, local);
    marrow::sample_weights(clip, layout.default_weights(), t, cursor, weights);
    marrow::local_to_model(skeleton, local, model);
    const marrow::MorphJob job{&*morph, layout.weights_of(mesh, weights), &morphed};
    if (!job.run()) {
      std::fprintf(stderr, "%s: the morph job refused its input\n", argv[1]);
      return 1;
    }
    if (skinning) {
      marrow::compute_skinning_palette(*skin, model, palette);
      marrow::skin(*skinning, morphed, palette, marrow::SkinningMethod::kLinear,
                   {positions, {}, {}}, 0, mesh.vertex_count());
    } else {
      const marrow::Mat4 place = model[mesh.node];
      for (std::size_t v = 0; v < positions.size(); ++v)
        positions[v] = marrow::transform_point(place, morphed.positions[v]);
    }
    const marrow::Aabb box = marrow::compute_bounds(positions);
    std::printf("t = %.3f s: weights", t);
    for (float w : layout.weights_of(mesh, weights)) std::printf(" %.4f", w);
    std::printf("; bounds (%.4f %.4f %.4f) - (%.4f %.4f %.4f)\n", box.min.x, box.min.y, box.min.z,
                box.max.x, box.max.y, box.max.z);
  }
  return 0;
}
