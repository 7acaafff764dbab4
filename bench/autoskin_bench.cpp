// Automatic weights: proximity on ~3,000 vertices, heat on a 10,000-vertex, 50-bone mesh, and
// both on real characters (Soldier.glb, cesium_man.gltf) when ../shared is present.
#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "../tests/skin/autoskin/test_meshes.h"
#include "marrow/io/asset.h"
#include "marrow/skin/autoskin.h"
#include "shared_asset.h"

namespace {

using marrow::Vec3;
using namespace marrow::autoskin;

// A starfish: five arms of ten bones each (50 bone joints plus five end sites) around a hub,
// each arm a closed tube of `rings` x `segments` vertices.
struct Starfish {
  marrow::Skeleton skeleton;
  marrow::test::TestMesh mesh;
  std::vector<marrow::JointIndex> bones;
};

Starfish make_starfish(int rings, int segments) {
  Starfish s;
  std::vector<marrow::test::JointAt> joints;
  std::vector<Vec3> dirs;
  for (int arm = 0; arm < 5; ++arm) {
    const float a = 6.2831853f * static_cast<float>(arm) / 5.0f;
    const Vec3 dir{std::cos(a), 0, std::sin(a)};
    int parent = -1;
    for (int k = 0; k <= 10; ++k) {
      const Vec3 p = dir * (0.1f + 0.2f * static_cast<float>(k));
      joints.push_back({"arm" + std::to_string(arm) + "_" + std::to_string(k), parent, p});
      parent = static_cast<int>(joints.size()) - 1;
      if (k < 10) s.bones.push_back(static_cast<marrow::JointIndex>(parent));
    }
  }
  s.skeleton = marrow::test::make_skeleton(joints);
  // Tubes are built along +y, then turned to lie along each arm.
  for (int arm = 0; arm < 5; ++arm) {
    marrow::test::TestMesh tube;
    marrow::test::add_tube(tube, 0, 0, 0.05f, 2.15f, 0.12f, 0.08f, rings, segments);
    const float a = 6.2831853f * static_cast<float>(arm) / 5.0f;
    const auto base = static_cast<std::uint32_t>(s.mesh.positions.size());
    for (Vec3 p : tube.positions)  // y -> along the arm, x -> across, z -> up
      s.mesh.positions.push_back(
          {p.y * std::cos(a) - p.x * std::sin(a), p.z, p.y * std::sin(a) + p.x * std::cos(a)});
    for (std::uint32_t i : tube.indices) s.mesh.indices.push_back(base + i);
  }
  return s;
}

void run(benchmark::State& state, const Starfish& s, Method method) {
  auto rig = rig_from_rest_pose(s.skeleton, s.bones);
  Options options;
  options.method = method;
  const std::vector<MeshPart> parts{{s.mesh.positions, s.mesh.indices, "starfish"}};
  if (auto first = bind_mesh(parts, *rig, options); !first) {
    state.SkipWithError(first.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    auto b = bind_mesh(parts, *rig, options);
    benchmark::DoNotOptimize(b);
  }
  state.counters["vertices"] = static_cast<double>(s.mesh.positions.size());
  state.counters["bones"] = static_cast<double>(s.bones.size());
  state.counters["vertices/s"] = benchmark::Counter(static_cast<double>(s.mesh.positions.size()),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}

// 5 x (30 x 20 + 2) = 3,010 vertices.
void BM_AutoskinProximity_3k_50Bones(benchmark::State& state) {
  static const Starfish s = make_starfish(30, 20);
  run(state, s, Method::kProximity);
}
BENCHMARK(BM_AutoskinProximity_3k_50Bones)->Unit(benchmark::kMillisecond);

// 5 x (100 x 20 + 2) = 10,010 vertices.
void BM_AutoskinHeat_10k_50Bones(benchmark::State& state) {
  static const Starfish s = make_starfish(100, 20);
  run(state, s, Method::kHeat);
}
BENCHMARK(BM_AutoskinHeat_10k_50Bones)->Unit(benchmark::kMillisecond);

// Real characters: all meshes of the file's first skin, bound to that skin's joints.
void run_asset(benchmark::State& state, const char* file, Method method) {
  static std::map<std::string, std::unique_ptr<marrow::Asset>> cache;
  auto& slot = cache[file];
  if (!slot) {
    auto loaded = marrow::load_asset(marrow::test::shared_asset_path(file));
    if (!loaded) {
      state.SkipWithError((std::string(file) + " is absent from ../shared/assets").c_str());
      return;
    }
    slot = std::make_unique<marrow::Asset>(std::move(loaded).value());
  }
  const marrow::Asset& asset = *slot;
  auto rig = rig_from_skin(asset.skeleton, asset.skins.at(0));
  std::vector<MeshPart> parts;
  std::size_t vertices = 0;
  for (const auto& m : asset.meshes)
    if (m.skin == 0) {
      parts.push_back({m.positions, m.indices, m.name});
      vertices += m.positions.size();
    }
  Options options;
  options.method = method;
  if (auto first = bind_mesh(parts, *rig, options); !first) {
    state.SkipWithError(first.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    auto b = bind_mesh(parts, *rig, options);
    benchmark::DoNotOptimize(b);
  }
  state.counters["vertices"] = static_cast<double>(vertices);
  state.counters["bones"] = static_cast<double>(rig->joints.size());
}
void BM_AutoskinProximity_CesiumMan(benchmark::State& state) {
  run_asset(state, "gltf/cesium_man.gltf", Method::kProximity);
}
BENCHMARK(BM_AutoskinProximity_CesiumMan)->Unit(benchmark::kMillisecond);
void BM_AutoskinHeat_Soldier(benchmark::State& state) {
  run_asset(state, "gltf/Soldier.glb", Method::kHeat);
}
BENCHMARK(BM_AutoskinHeat_Soldier)->Unit(benchmark::kMillisecond);

}  // namespace
