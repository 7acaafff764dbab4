// Morph targets per frame: 50 targets on a 10,000-vertex face, each target moving 10 % of the
// vertices (1,000, chosen at random: the worst case for locality), every weight non-zero and
// changing each frame. MorphJob's SIMD kernel against its scalar twin over the same layout and
// against the plain definition (copy every vertex, then add each target's deltas), positions
// only and with normals. Read against BM_MemcpyBandwidth of the same run (docs/performance.md).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>

#include "marrow/skin/morph.h"

namespace {

using namespace marrow;

constexpr std::size_t kVertices = 10000;
constexpr std::size_t kTargets = 50;
constexpr std::size_t kMovedPerTarget = kVertices / 10;

SkinnedMesh face(bool normals) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  SkinnedMesh m;
  m.name = "face";
  m.positions.resize(kVertices);
  for (Vec3& p : m.positions) p = {u(rng), u(rng), u(rng)};
  if (normals) m.normals.assign(kVertices, Vec3{0, 0, 1});
  std::vector<std::uint32_t> all(kVertices);
  for (std::size_t v = 0; v < kVertices; ++v) all[v] = static_cast<std::uint32_t>(v);
  for (std::size_t t = 0; t < kTargets; ++t) {
    std::shuffle(all.begin(), all.end(), rng);
    MorphTarget target;
    target.vertices.assign(all.begin(), all.begin() + kMovedPerTarget);
    std::sort(target.vertices.begin(), target.vertices.end());
    for (std::size_t i = 0; i < kMovedPerTarget; ++i) {
      target.position_deltas.push_back({u(rng) * 0.01f, u(rng) * 0.01f, u(rng) * 0.01f});
      if (normals) target.normal_deltas.push_back({u(rng) * 0.1f, u(rng) * 0.1f, 0});
    }
    m.morph_targets.push_back(std::move(target));
  }
  return m;
}

// Bytes one frame moves through the moved-vertex layout: per entry its target index and
// deltas; per moved vertex its index, base values read and results written.
double bytes_per_frame(const MorphMesh& mesh, bool normals) {
  const double entries = kTargets * kMovedPerTarget;
  const double attribute = normals ? 2 : 1;
  return entries * (4 + 12 * attribute) +
         static_cast<double>(mesh.moved_vertex_count()) * (4 + 24 * attribute);
}

enum Kernel { kSimd, kScalar, kDefinition };

void BM_Morph(benchmark::State& state, Kernel kernel, bool normals) {
  const SkinnedMesh m = face(normals);
  const MorphMesh mesh = MorphMesh::build(m).value();
  MorphedVertices out = MorphedVertices::create(mesh);
  std::vector<Vec3> p(kVertices), n(normals ? kVertices : 0);
  std::vector<float> w(kTargets);
  std::size_t frame = 0;
  for (auto _ : state) {
    // Every weight non-zero and different each frame, as a talking face.
    for (std::size_t t = 0; t < kTargets; ++t) w[t] = 0.01f * static_cast<float>((frame + t) % 97);
    ++frame;
    bool ok = false;
    if (kernel == kSimd)
      ok = MorphJob{&mesh, w, &out}.run();
    else if (kernel == kScalar)
      ok = MorphJob{&mesh, w, &out}.run_reference();
    else
      ok = apply_morphs_reference(m, w, p, n);
    benchmark::DoNotOptimize(ok);
    benchmark::ClobberMemory();
  }
  state.counters["moved_vertices"] = static_cast<double>(mesh.moved_vertex_count());
  state.counters["vertices_per_s"] =
      benchmark::Counter(static_cast<double>(mesh.moved_vertex_count()),
                         benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(static_cast<std::int64_t>(static_cast<double>(state.iterations()) *
                                                    bytes_per_frame(mesh, normals)));
}

BENCHMARK_CAPTURE(BM_Morph, simd_positions, kSimd, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Morph, scalar_positions, kScalar, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Morph, definition_positions, kDefinition, false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Morph, simd_positions_normals, kSimd, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Morph, scalar_positions_normals, kScalar, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Morph, definition_positions_normals, kDefinition, true)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
