// Skinning throughput (million vertices per second), scalar reference vs the dispatched SIMD
// kernels, one and two threads, for a mesh that fits in cache (8,192 vertices, ~0.9 MB touched
// per frame) and one that does not (2,097,152 vertices, ~230 MB touched per frame, beyond the
// 105 MiB L3 of the machine in docs/performance.md). Read against BM_MemcpyBandwidth.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <random>

#include "marrow/io/asset.h"
#include "marrow/math/simd.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/skinning.h"
#include "shared_asset.h"
#include "thread_pool.h"

namespace {

using namespace marrow;

constexpr std::size_t kJoints = 64;
constexpr std::size_t kInfluences = 4;

// A character-like mesh: 4 influences per vertex on 64 joints, neighbouring joints.
const SkinningMesh& mesh_of(std::size_t vertices) {
  static std::map<std::size_t, std::unique_ptr<SkinningMesh>> cache;
  auto& slot = cache[vertices];
  if (!slot) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1, 1), w(0.05f, 1);
    std::uniform_int_distribution<int> joint(0, kJoints - kInfluences);
    SkinnedMesh m;
    m.name = "bench";
    m.positions.resize(vertices);
    m.normals.resize(vertices);
    m.tangents.resize(vertices);
    m.influence_offsets.push_back(0);
    for (std::size_t v = 0; v < vertices; ++v) {
      m.positions[v] = {u(rng), u(rng), u(rng)};
      m.normals[v] = {0, 0, 1};
      m.tangents[v] = {1, 0, 0, 1};
      const int first = joint(rng);
      float ws[kInfluences], sum = 0;
      for (float& x : ws) sum += (x = w(rng));
      for (std::size_t i = 0; i < kInfluences; ++i) {
        m.influence_joints.push_back(static_cast<std::uint16_t>(first + i));
        m.influence_weights.push_back(ws[i] / sum);
      }
      m.influence_offsets.push_back(static_cast<std::uint32_t>(m.influence_joints.size()));
    }
    slot = std::make_unique<SkinningMesh>(SkinningMesh::build(m, kJoints).value());
  }
  return *slot;
}

std::vector<Mat4> random_palette() {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<Mat4> p(kJoints);
  for (Mat4& m : p) {
    m = mat4_from_trs({u(rng), u(rng), u(rng)},
                      normalize(Quat{u(rng) * 0.3f, u(rng) * 0.3f, u(rng) * 0.3f, 1}), {1, 1, 1});
  }
  return p;
}

// Bytes a frame must move per vertex: bind position, normal, tangent, slot index and
// influences read; position, normal, tangent written.
constexpr double kBytesPerVertex = 12 + 12 + 16 + 4 + kInfluences * (2 + 4) + 12 + 12 + 16;

enum Kernel { kScalarLbs, kLbs, kScalarDqs, kDqs };

void BM_Skin(benchmark::State& state, Kernel kernel) {
  const auto vertices = static_cast<std::size_t>(state.range(0));
  const auto threads = static_cast<std::size_t>(state.range(1));
  const SkinningMesh& mesh = mesh_of(vertices);
  const std::vector<Mat4> palette = random_palette();
  std::vector<DqsJoint> dq(kJoints);
  std::vector<Vec3> positions(vertices), normals(vertices);
  std::vector<std::array<float, 4>> tangents(vertices);
  const SkinningOutput out{positions, normals, tangents};
  ThreadPool pool(threads);
  // Ranges of 16k vertices: large enough to amortize the hand-off, small enough to balance.
  constexpr std::size_t kGrain = 16384;
  const std::size_t tasks = (vertices + kGrain - 1) / kGrain;
  for (auto _ : state) {
    std::atomic<bool> ok{true};
    switch (kernel) {
      case kScalarLbs:
        pool.parallel_for(tasks, [&](std::size_t t) {
          if (!skin_reference(mesh, palette, SkinningMethod::kLinear, out, t * kGrain,
                              std::min(vertices, (t + 1) * kGrain)))
            ok = false;
        });
        break;
      case kLbs:
        ok = skin_parallel(pool, mesh, std::span<const Mat4>(palette), SkinningMethod::kLinear, out,
                           kGrain);
        break;
      case kScalarDqs:
        compute_dual_quat_palette(palette, dq);
        pool.parallel_for(tasks, [&](std::size_t t) {
          if (!skin_reference(mesh, std::span<const DqsJoint>(dq), out, t * kGrain,
                              std::min(vertices, (t + 1) * kGrain)))
            ok = false;
        });
        break;
      case kDqs:
        compute_dual_quat_palette(palette, dq);  // once per frame, as a caller would
        ok = skin_parallel(pool, mesh, std::span<const DqsJoint>(dq),
                           SkinningMethod::kDualQuaternion, out, kGrain);
        break;
    }
    if (!ok) state.SkipWithError("skin() refused its arguments");
    benchmark::DoNotOptimize(positions.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * vertices));
  state.SetBytesProcessed(static_cast<std::int64_t>(
      static_cast<double>(state.iterations() * vertices) * kBytesPerVertex));
  state.counters["Mverts/s"] = benchmark::Counter(static_cast<double>(vertices) * 1e-6,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

void Sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"vertices", "threads"});
  for (int64_t v : {8192, 2097152})
    for (int64_t t : {1, 2}) b->Args({v, t});
  b->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// The in-cache mesh, one thread, on each SIMD level forced in turn (0 scalar lanes, 1 SSE2,
// 2 AVX2, 3 AVX-512; a level the machine lacks is skipped), skinning positions (outputs 0),
// positions + normals (1) or positions + normals + tangents (2), normals and tangents exact;
// 3 and 4 are 1 and 2 with NormalTransform::kLinearUnnormalized.
void BM_SkinLevel(benchmark::State& state, Kernel kernel) {
  const auto level = static_cast<SimdLevel>(state.range(0));
  if (!set_simd_level(level)) {
    state.SkipWithError("this machine cannot run that SIMD level");
    return;
  }
  state.SetLabel(std::string(to_string(level)));
  constexpr std::size_t kVertices = 8192;
  const SkinningMesh& mesh = mesh_of(kVertices);
  const std::vector<Mat4> palette = random_palette();
  std::vector<DqsJoint> dq(kJoints);
  compute_dual_quat_palette(palette, dq);
  std::vector<Vec3> positions(kVertices), normals(kVertices);
  std::vector<std::array<float, 4>> tangents(kVertices);
  const auto outputs = state.range(1);
  const bool linear = outputs >= 3;
  const SkinningOutput out{positions, outputs >= 1 ? std::span<Vec3>(normals) : std::span<Vec3>(),
                           outputs == 2 || outputs == 4 ? std::span<std::array<float, 4>>(tangents)
                                                        : std::span<std::array<float, 4>>(),
                           linear ? NormalTransform::kLinearUnnormalized : NormalTransform::kExact};
  for (auto _ : state) {
    const bool ok = kernel == kLbs ? skin(mesh, palette, SkinningMethod::kLinear, out)
                                   : skin(mesh, std::span<const DqsJoint>(dq), out, 0, kVertices);
    if (!ok) state.SkipWithError("skin() refused its arguments");
    benchmark::DoNotOptimize(positions.data());
    benchmark::ClobberMemory();
  }
  set_simd_level(detected_simd_level());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kVertices));
  state.counters["Mverts/s"] = benchmark::Counter(static_cast<double>(kVertices) * 1e-6,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(BM_SkinLevel, Lbs, kLbs)
    ->ArgNames({"level", "outputs"})
    ->ArgsProduct({{0, 1, 2, 3}, {0, 1, 2, 3, 4}});
BENCHMARK_CAPTURE(BM_SkinLevel, Dqs, kDqs)
    ->ArgNames({"level", "outputs"})
    ->ArgsProduct({{0, 1, 2, 3}, {0, 1, 2, 3, 4}});

// The in-cache mesh, LBS, positions + normals (exact: normals 0, kLinearUnnormalized: 1), with
// the palette at a byte offset from a 64-byte boundary (skin() aligns a misaligned one first).
void BM_SkinPaletteOffset(benchmark::State& state) {
  constexpr std::size_t kVertices = 8192;
  const SkinningMesh& mesh = mesh_of(kVertices);
  const std::vector<Mat4> source = random_palette();
  struct alignas(64) Line {
    std::array<float, 16> floats;
  };
  std::vector<Line> storage(source.size() + 1);
  float* base = storage.front().floats.data() + state.range(0) / sizeof(float);
  std::memcpy(base, source.data(), source.size() * sizeof(Mat4));
  const std::span<const Mat4> palette(reinterpret_cast<const Mat4*>(base), source.size());
  std::vector<Vec3> positions(kVertices), normals(kVertices);
  const SkinningOutput out{
      positions,
      normals,
      {},
      state.range(1) ? NormalTransform::kLinearUnnormalized : NormalTransform::kExact};
  for (auto _ : state) {
    if (!skin(mesh, palette, SkinningMethod::kLinear, out))
      state.SkipWithError("skin() refused its arguments");
    benchmark::DoNotOptimize(positions.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kVertices));
}
BENCHMARK(BM_SkinPaletteOffset)
    ->ArgNames({"offset", "linear"})
    ->ArgsProduct({{0, 16, 32, 48}, {0, 1}});

BENCHMARK_CAPTURE(BM_Skin, ScalarLbs, kScalarLbs)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Skin, Lbs, kLbs)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Skin, ScalarDqs, kScalarDqs)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Skin, Dqs, kDqs)->Apply(Sizes);

// A real character: Xbot.glb's two skinned meshes (28,374 vertices, 1 to 3 influences, normals),
// skinned in its rest pose, all meshes per iteration, one thread.
void BM_SkinXbot(benchmark::State& state, SkinningMethod method) {
  static const std::unique_ptr<Asset> asset = [] {
    auto loaded = load_asset(marrow::test::shared_asset_path("gltf/Xbot.glb"));
    return loaded ? std::make_unique<Asset>(std::move(loaded).value()) : nullptr;
  }();
  if (!asset) {
    state.SkipWithError("Xbot.glb is absent from ../shared/assets/gltf");
    return;
  }
  struct Part {
    SkinningMesh mesh;
    std::vector<Mat4> palette;
    std::vector<DqsJoint> dq;
    std::vector<Vec3> positions, normals;
  };
  std::vector<Mat4> model(asset->skeleton.size());
  local_to_model(asset->skeleton, asset->skeleton.rest_pose(), model);
  std::vector<Part> parts;
  std::size_t vertices = 0;
  for (const SkinnedMesh& m : asset->meshes) {
    const Skin& sk = asset->skins[m.skin];
    Part p{SkinningMesh::build(m, sk.joints.size()).value(), std::vector<Mat4>(sk.joints.size()),
           std::vector<DqsJoint>(sk.joints.size()), std::vector<Vec3>(m.vertex_count()),
           std::vector<Vec3>(m.vertex_count())};
    vertices += m.vertex_count();
    parts.push_back(std::move(p));
  }
  for (auto _ : state) {
    for (std::size_t i = 0; i < parts.size(); ++i) {
      Part& p = parts[i];
      compute_skinning_palette(asset->skins[asset->meshes[i].skin], model, p.palette);
      if (method == SkinningMethod::kLinear) {
        skin(p.mesh, p.palette, method, {p.positions, p.normals, {}});
      } else {
        compute_dual_quat_palette(p.palette, p.dq);
        skin(p.mesh, std::span<const DqsJoint>(p.dq), {p.positions, p.normals, {}}, 0,
             p.mesh.vertex_count());
      }
      benchmark::DoNotOptimize(p.positions.data());
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * vertices));
  state.counters["Mverts/s"] = benchmark::Counter(static_cast<double>(vertices) * 1e-6,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(BM_SkinXbot, Lbs, SkinningMethod::kLinear)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SkinXbot, Dqs, SkinningMethod::kDualQuaternion)->Unit(benchmark::kMicrosecond);

}  // namespace
