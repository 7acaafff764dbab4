// Loading Soldier.glb's content from the glTF file against loading it from a .marrow archive.
// Both read from bytes already in memory, so the disk is out of the comparison; a third pair
// goes through load_asset from the file system (page cache), as `marrow` does.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>

#include "marrow/io/archive.h"
#include "marrow/io/asset.h"
#include "marrow/io/gltf.h"
#include "shared_asset.h"

namespace {

std::string soldier_path() {
  return marrow::test::shared_asset_path("gltf/Soldier.glb");
}

std::vector<std::uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Inputs {
  std::vector<std::uint8_t> glb, archive;
  std::string archive_path;
};

const Inputs* inputs() {
  static std::unique_ptr<Inputs> in = []() -> std::unique_ptr<Inputs> {
    if (!std::filesystem::exists(soldier_path())) return nullptr;
    auto r = std::make_unique<Inputs>();
    r->glb = file_bytes(soldier_path());
    auto asset = marrow::load_asset(soldier_path());
    if (!asset) return nullptr;
    auto bytes = marrow::archive_bytes(*asset);
    if (!bytes) return nullptr;
    r->archive = std::move(bytes).value();
    r->archive_path =
        (std::filesystem::temp_directory_path() / "marrow_bench_soldier.marrow").string();
    if (!marrow::write_archive(*asset, r->archive_path)) return nullptr;
    return r;
  }();
  return in.get();
}

void report(benchmark::State& state, std::size_t bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["file_bytes"] = static_cast<double>(bytes);
}

void BM_LoadSoldier_FromGlbBytes(benchmark::State& state) {
  const Inputs* in = inputs();
  if (!in) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  for (auto _ : state) {
    auto asset = marrow::read_gltf(in->glb, "Soldier.glb", ".");
    benchmark::DoNotOptimize(asset);
  }
  report(state, in->glb.size());
}
BENCHMARK(BM_LoadSoldier_FromGlbBytes)->Unit(benchmark::kMicrosecond);

void BM_LoadSoldier_FromArchiveBytes(benchmark::State& state) {
  const Inputs* in = inputs();
  if (!in) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  for (auto _ : state) {
    auto asset = marrow::read_archive(in->archive, "Soldier.marrow");
    benchmark::DoNotOptimize(asset);
  }
  report(state, in->archive.size());
}
BENCHMARK(BM_LoadSoldier_FromArchiveBytes)->Unit(benchmark::kMicrosecond);

void BM_LoadSoldier_GlbFile(benchmark::State& state) {
  const Inputs* in = inputs();
  if (!in) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  for (auto _ : state) {
    auto asset = marrow::load_asset(soldier_path());
    benchmark::DoNotOptimize(asset);
  }
  report(state, in->glb.size());
}
BENCHMARK(BM_LoadSoldier_GlbFile)->Unit(benchmark::kMicrosecond);

void BM_LoadSoldier_ArchiveFile(benchmark::State& state) {
  const Inputs* in = inputs();
  if (!in) return state.SkipWithError("Soldier.glb is absent from ../shared/assets/gltf");
  for (auto _ : state) {
    auto asset = marrow::load_asset(in->archive_path);
    benchmark::DoNotOptimize(asset);
  }
  report(state, in->archive.size());
}
BENCHMARK(BM_LoadSoldier_ArchiveFile)->Unit(benchmark::kMicrosecond);

}  // namespace
