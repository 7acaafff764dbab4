// The machine's memory bandwidth, measured in the same run as the other suites so their
// figures can be read against it (docs/performance.md).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

namespace {

void BM_MemcpyBandwidth(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  // Bytes read plus bytes written.
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 *
                          static_cast<std::int64_t>(bytes));
}
// 256 KiB stays in cache; 256 MiB goes to DRAM.
BENCHMARK(BM_MemcpyBandwidth)->Arg(256 << 10)->Arg(256 << 20)->Unit(benchmark::kMicrosecond);

}  // namespace
