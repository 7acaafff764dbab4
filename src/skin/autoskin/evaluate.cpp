// Evaluation against artist weights: the same palette drives both meshes, so every difference
// in the animated vertices comes from the weights.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "marrow/clip/sampling.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/autoskin_evaluation.h"
#include "marrow/skin/skinning.h"

namespace marrow::autoskin {
namespace {

double diagonal_of(std::span<const Vec3> p) {
  const Aabb box = compute_bounds(p);
  return p.empty() ? 0.0 : length(box.max - box.min);
}

}  // namespace

Result<Evaluation> evaluate(const Skeleton& skeleton, std::span<const Clip> clips, const Skin& skin,
                            std::span<const SkinnedMesh> meshes, const Options& options,
                            float frame_rate) {
  if (meshes.empty()) return make_error("evaluate", "no mesh is bound to skin '" + skin.name + "'");
  if (!(frame_rate > 0)) return make_error("evaluate", "frame rate must be positive");
  Result<Rig> rig = rig_from_skin(skeleton, skin);
  if (!rig) return rig.error();

  std::vector<MeshPart> parts;
  for (const SkinnedMesh& m : meshes) {
    if (m.influence_offsets.size() != m.vertex_count() + 1)
      return make_error("evaluate", "mesh '" + m.name + "' has no artist weights to compare with");
    parts.push_back({m.positions, m.indices, m.name});
  }

  Evaluation e;
  e.bones = skin.joints.size();
  const auto start = std::chrono::steady_clock::now();
  Result<Binding> binding = bind_mesh(parts, *rig, options);
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!binding) return binding.error();
  e.notes = binding->notes;

  // (a) Weights, with the artist's rows normalized.
  std::size_t both = 0, artist_count = 0, auto_count = 0;
  double l1 = 0;
  std::vector<float> a(skin.joints.size(), 0.0f), b(skin.joints.size(), 0.0f);
  for (std::size_t m = 0; m < meshes.size(); ++m) {
    const SkinnedMesh& mesh = meshes[m];
    const PartWeights& w = binding->parts[m];
    for (std::size_t v = 0; v < mesh.vertex_count(); ++v) {
      std::fill(a.begin(), a.end(), 0.0f);
      std::fill(b.begin(), b.end(), 0.0f);
      float total = 0;
      for (std::uint32_t i = mesh.influence_offsets[v]; i < mesh.influence_offsets[v + 1]; ++i) {
        if (mesh.influence_joints[i] >= a.size())
          return make_error("evaluate", "mesh '" + mesh.name + "' vertex " + std::to_string(v) +
                                            ": joint " + std::to_string(mesh.influence_joints[i]) +
                                            " is outside the skin");
        a[mesh.influence_joints[i]] += mesh.influence_weights[i];
        total += mesh.influence_weights[i];
      }
      if (total > 0)
        for (float& x : a) x /= total;
      for (std::uint32_t i = w.offsets[v]; i < w.offsets[v + 1]; ++i)
        b[w.joints[i]] += w.weights[i];
      for (std::size_t j = 0; j < a.size(); ++j) {
        l1 += std::abs(a[j] - b[j]);
        const bool in_a = a[j] > 1e-4f, in_b = b[j] > 1e-4f;
        artist_count += in_a;
        auto_count += in_b;
        both += in_a && in_b;
      }
      ++e.vertices;
    }
  }
  e.mean_l1 = l1 / static_cast<double>(std::max<std::size_t>(e.vertices, 1));
  e.precision = auto_count ? double(both) / double(auto_count) : 0.0;
  e.recall = artist_count ? double(both) / double(artist_count) : 0.0;

  // (b) Deformation.
  std::vector<SkinningMesh> artist, automatic;
  std::vector<SkinnedMesh> rebound(meshes.begin(), meshes.end());
  for (std::size_t m = 0; m < meshes.size(); ++m) {
    apply(binding->parts[m], meshes[m].skin, rebound[m]);
    Result<SkinningMesh> sa = SkinningMesh::build(meshes[m], skin.joints.size());
    if (!sa) return sa.error();
    Result<SkinningMesh> sb = SkinningMesh::build(rebound[m], skin.joints.size());
    if (!sb) return sb.error();
    artist.push_back(std::move(sa).value());
    automatic.push_back(std::move(sb).value());
  }
  std::vector<Transform> local(skeleton.size());
  std::vector<Mat4> model(skeleton.size()), palette(skin.joints.size());
  std::vector<std::vector<Vec3>> pa(meshes.size()), pb(meshes.size());
  for (std::size_t m = 0; m < meshes.size(); ++m) {
    pa[m].resize(meshes[m].vertex_count());
    pb[m].resize(meshes[m].vertex_count());
  }
  auto skin_frame = [&](std::span<const Transform> pose) {
    if (!local_to_model(skeleton, pose, model) || !compute_skinning_palette(skin, model, palette))
      return false;
    for (std::size_t m = 0; m < meshes.size(); ++m) {
      if (!marrow::skin(artist[m], palette, SkinningMethod::kLinear, {pa[m], {}, {}}) ||
          !marrow::skin(automatic[m], palette, SkinningMethod::kLinear, {pb[m], {}, {}}))
        return false;
    }
    return true;
  };
  // The yardstick: the artist mesh in the rest pose.
  if (!skin_frame(skeleton.rest_pose())) return make_error("evaluate", "skinning failed");
  {
    std::vector<Vec3> all;
    for (const auto& p : pa) all.insert(all.end(), p.begin(), p.end());
    e.diagonal = diagonal_of(all);
    if (!(e.diagonal > 0)) {
      all.clear();
      for (const SkinnedMesh& m : meshes)
        all.insert(all.end(), m.positions.begin(), m.positions.end());
      e.diagonal = std::max(diagonal_of(all), 1e-30);
    }
  }
  double sum = 0;
  std::size_t samples = 0;
  for (const Clip& clip : clips) {
    if (clip.tracks().empty()) continue;
    ++e.clips;
    SamplingCursor cursor(clip);
    const auto steps = static_cast<std::size_t>(std::ceil(clip.duration() * frame_rate - 1e-4f));
    for (std::size_t k = 0; k <= steps; ++k) {
      const float t = std::min(static_cast<float>(k) / frame_rate, clip.duration());
      if (!sample(clip, skeleton.rest_pose(), t, cursor, local) || !skin_frame(local))
        return make_error("evaluate", "clip '" + clip.name() + "' could not be sampled");
      ++e.frames;
      for (std::size_t m = 0; m < meshes.size(); ++m)
        for (std::size_t v = 0; v < pa[m].size(); ++v) {
          const double d = length(pa[m][v] - pb[m][v]);
          sum += d;
          e.max_distance = std::max(e.max_distance, d);
          ++samples;
        }
    }
  }
  if (samples) {
    e.mean_distance = sum / static_cast<double>(samples) / e.diagonal;
    e.max_distance /= e.diagonal;
  }
  return e;
}

}  // namespace marrow::autoskin
