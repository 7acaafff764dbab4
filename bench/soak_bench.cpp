// marrow_soak: a crowd under load for a long time, to show that throughput holds and memory
// does not grow (docs/reliability.md, "Load"). Not a timed test: run by hand or `make soak`.
//
//   marrow_soak [--seconds 60] [--characters 10000] [--threads 2] [--file Soldier.glb]
//
// Every frame, each character advances its own clock (its own speed and phase), samples two
// clips with its own cursors, blends them with its own weight, runs local-to-model, builds its
// skinning palette and skins every mesh of the file (linear blend) into its worker's buffers:
// the per-frame path of a game, with the exact runtime (sample, BlendJob, local_to_model, skin).
// The characters are split between the worker threads; frames are separated by a barrier.
//
// Reported: character-frames and skinned vertices per second, per 5-second window and over the
// run; the process's resident memory (RSS) and the C heap in use at the start of the loop
// (after setup), at each window and at the end; and the number of heap allocations made inside
// the loop. Memory is flat when the loop allocates nothing, the heap in use ends where it
// started, and RSS at the end is within 1 MiB of RSS after the first window (the first frames
// touch each worker's scratch buffers for the first time). Exits 1 otherwise.
#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "allocation_meter.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/skinning.h"
#include "shared_asset.h"

namespace {

using namespace marrow;
using Clock = std::chrono::steady_clock;

struct Options {
  double seconds = 60;
  std::size_t characters = 10000;
  unsigned threads = 2;
  std::string file = marrow::test::shared_asset_path("gltf/Soldier.glb");
};

// Resident set size from /proc/self/statm (its second number, in pages), in MiB. Read with
// plain system calls into a fixed buffer: it runs inside the loop, which must not allocate.
double rss_mib() {
  char buffer[128] = {};
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (n <= 0) return -1;
  char* end = nullptr;
  std::strtoull(buffer, &end, 10);  // total size
  const unsigned long long resident = std::strtoull(end, nullptr, 10);
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

// CPU seconds the process has used (all threads): on a shared machine, throughput per CPU
// second is the figure that does not depend on what else runs.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Bytes the C allocator has handed out and not taken back (every operator new goes there).
std::size_t heap_in_use() {
  return mallinfo2().uordblks;
}

// One character's own state: its clock, its speed, its blend weight and its cursors.
struct Character {
  float time = 0;
  float speed = 1;
  float run_weight = 0;
  SamplingCursor walk, run;
};

// A worker's scratch: poses, matrices, palettes and skinned vertices, reused for each of its
// characters (in a game the vertices would go to a GPU buffer).
struct Scratch {
  std::vector<Transform> walk, run, blended;
  std::vector<Mat4> model;
  std::vector<std::vector<Mat4>> palettes;  // per skin
  std::vector<Vec3> positions, normals;
  Scratch(const Asset& asset, std::size_t max_vertices)
      : walk(asset.skeleton.size()),
        run(asset.skeleton.size()),
        blended(asset.skeleton.size()),
        model(asset.skeleton.size()),
        positions(max_vertices),
        normals(max_vertices) {
    for (const Skin& s : asset.skins) palettes.emplace_back(s.joints.size());
  }
};

struct Crowd {
  const Asset& asset;
  const Clip& walk_clip;
  const Clip& run_clip;
  std::vector<SkinningMesh> meshes;
  std::vector<int> mesh_skin;
  std::vector<Character> characters;
  std::size_t vertices_per_character = 0;

  // One frame of characters [begin, end). Returns false if a job refused its input.
  bool frame(std::size_t begin, std::size_t end, float dt, Scratch& s) {
    const std::span<const Transform> rest = asset.skeleton.rest_pose();
    bool ok = true;
    for (std::size_t c = begin; c < end; ++c) {
      Character& ch = characters[c];
      ch.time += dt * ch.speed;
      // Walk and run share a phase (normalized time), as a locomotion blend does.
      const float phase = ch.time / walk_clip.duration();
      const float walk_t =
          wrap_time(phase * walk_clip.duration(), walk_clip.duration(), WrapMode::kLoop);
      const float run_t =
          wrap_time(phase * run_clip.duration(), run_clip.duration(), WrapMode::kLoop);
      ok &= sample(walk_clip, rest, walk_t, ch.walk, s.walk);
      ok &= sample(run_clip, rest, run_t, ch.run, s.run);
      const BlendLayer layers[] = {{s.walk, 1 - ch.run_weight, {}}, {s.run, ch.run_weight, {}}};
      const BlendJob blend{.rest_pose = rest, .layers = layers, .output = s.blended};
      ok &= blend.run();
      ok &= local_to_model(asset.skeleton, s.blended, s.model);
      for (std::size_t k = 0; k < asset.skins.size(); ++k)
        ok &= compute_skinning_palette(asset.skins[k], s.model, s.palettes[k]);
      for (std::size_t m = 0; m < meshes.size(); ++m) {
        const SkinningOutput out{s.positions, s.normals, {}};
        ok &= skin(meshes[m],
                   std::span<const Mat4>(s.palettes[static_cast<std::size_t>(mesh_skin[m])]),
                   SkinningMethod::kLinear, out);
      }
    }
    return ok;
  }
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--seconds")
      o.seconds = std::stod(value);
    else if (key == "--characters")
      o.characters = std::stoul(value);
    else if (key == "--threads")
      o.threads = static_cast<unsigned>(std::stoul(value));
    else if (key == "--file")
      o.file = value;
    else
      return false;
  }
  return (argc % 2) == 1 && o.seconds > 0 && o.characters > 0 && o.threads > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: %s [--seconds S] [--characters N] [--threads T] [--file F]\n",
                 argv[0]);
    return 2;
  }
  Result<Asset> loaded = load_asset(o.file);
  if (!loaded) {
    std::fprintf(stderr, "marrow_soak: %s\n", loaded.error().message.c_str());
    return 1;
  }
  const Asset& asset = *loaded;
  const auto walk = asset.find_clip("Walk"), run = asset.find_clip("Run");
  if (asset.clips.empty() || asset.skins.empty()) {
    std::fprintf(stderr, "marrow_soak: %s needs clips and a skin\n", o.file.c_str());
    return 1;
  }
  Crowd crowd{asset,
              asset.clips[walk.value_or(0)],
              asset.clips[run.value_or(asset.clips.size() - 1)],
              {},
              {},
              {},
              0};
  std::size_t max_vertices = 0;
  for (const SkinnedMesh& m : asset.meshes) {
    if (m.skin < 0) continue;
    Result<SkinningMesh> built =
        SkinningMesh::build(m, asset.skins[static_cast<std::size_t>(m.skin)].joints.size());
    if (!built) {
      std::fprintf(stderr, "marrow_soak: %s\n", built.error().message.c_str());
      return 1;
    }
    max_vertices = std::max(max_vertices, built->vertex_count());
    crowd.vertices_per_character += built->vertex_count();
    crowd.meshes.push_back(std::move(built).value());
    crowd.mesh_skin.push_back(m.skin);
  }
  crowd.characters.resize(o.characters);
  for (std::size_t c = 0; c < o.characters; ++c) {
    Character& ch = crowd.characters[c];
    // Spread over phases, speeds and walk/run mixes, deterministically.
    ch.time = static_cast<float>(c % 97) * 0.0137f;
    ch.speed = 0.8f + 0.4f * static_cast<float>(c % 13) / 12.0f;
    ch.run_weight = static_cast<float>(c % 11) / 10.0f;
    ch.walk.bind(crowd.walk_clip);
    ch.run.bind(crowd.run_clip);
  }
  std::vector<Scratch> scratch;
  for (unsigned t = 0; t < o.threads; ++t) scratch.emplace_back(asset, max_vertices);

  constexpr float kDt = 1.0f / 60.0f;
  constexpr double kWindow = 5.0;
  std::atomic<bool> stop{false}, failed{false};
  std::atomic<std::uint64_t> frames{0};
  std::latch ready(static_cast<std::ptrdiff_t>(o.threads));
  // The end of the loop is measured in the last frame's barrier completion, while every worker
  // waits: a thread's exit frees its start-up state, which is not the loop's doing.
  double rss_end = 0, cpu_end = 0;
  std::size_t heap_end = 0;
  std::uint64_t allocations_end = 0;
  // Every allocation of the process (tests/support's meter), from the start of the loop.
  std::optional<marrow::test::AllocationMeter> meter;
  // The main thread is worker 0; the barrier's completion counts frames and checks the clock.
  const auto start = Clock::now();
  std::barrier frame_done(static_cast<std::ptrdiff_t>(o.threads), [&]() noexcept {
    frames.fetch_add(1, std::memory_order_relaxed);
    if (std::chrono::duration<double>(Clock::now() - start).count() >= o.seconds) {
      allocations_end = meter->count();
      heap_end = heap_in_use();
      rss_end = rss_mib();
      cpu_end = cpu_seconds();
      stop = true;
    }
  });
  auto work = [&](unsigned t) {
    ready.count_down();
    const std::size_t n = o.characters;
    const std::size_t begin = n * t / o.threads, end = n * (t + 1) / o.threads;
    while (!stop.load(std::memory_order_relaxed)) {
      if (!crowd.frame(begin, end, kDt, scratch[t])) failed = true;
      frame_done.arrive_and_wait();
    }
  };

  std::printf("marrow_soak: %s, %zu characters x %zu skinned vertices, %u threads, %.0f s\n",
              o.file.c_str(), o.characters, crowd.vertices_per_character, o.threads, o.seconds);
  std::printf("%8s %12s %16s %16s %10s %12s\n", "time s", "frames", "char-frames/s", "Mvertices/s",
              "RSS MiB", "heap MiB");
  // Everything is set up, the workers included (starting a thread allocates its state and TLS
  // once; they wait at the first frame's barrier for this thread): from here on nothing may
  // allocate.
  std::vector<std::thread> workers;
  workers.reserve(o.threads);
  for (unsigned t = 1; t < o.threads; ++t) workers.emplace_back(work, t);
  ready.count_down();
  ready.wait();
  const double rss_start = rss_mib();
  const double cpu_start = cpu_seconds();
  const std::size_t heap_start = heap_in_use();
  meter.emplace();
  std::printf("%8.1f %12s %16s %16s %10.1f %12.2f\n", 0.0, "-", "-", "-", rss_start,
              static_cast<double>(heap_start) / (1 << 20));
  // The main thread works too; a small reporter thread would allocate, so windows are printed
  // by whichever frame crosses them: the main thread checks between its frames.
  double next_report = kWindow;
  std::uint64_t frames_at_window = 0;
  auto window_start = Clock::now();
  char lines[64][96];
  int line_count = 0;
  double first_window_rss = 0;
  {
    const std::size_t n = o.characters;
    const std::size_t end = n / o.threads;
    while (!stop.load(std::memory_order_relaxed)) {
      if (!crowd.frame(0, end, kDt, scratch[0])) failed = true;
      frame_done.arrive_and_wait();
      const double now = std::chrono::duration<double>(Clock::now() - start).count();
      if (now >= next_report || stop.load()) {
        const double span = std::chrono::duration<double>(Clock::now() - window_start).count();
        const std::uint64_t f = frames.load() - frames_at_window;
        const double cf = static_cast<double>(f) * static_cast<double>(o.characters) / span;
        const double rss_now = rss_mib();
        if (line_count == 0) first_window_rss = rss_now;
        if (line_count < 64) {
          // Formatted into fixed storage: printing happens after the loop.
          std::snprintf(lines[line_count++], sizeof lines[0],
                        "%8.1f %12llu %16.0f %16.1f %10.1f %12.2f", now,
                        static_cast<unsigned long long>(frames.load()), cf,
                        cf * static_cast<double>(crowd.vertices_per_character) / 1e6, rss_now,
                        static_cast<double>(heap_in_use()) / (1 << 20));
        }
        frames_at_window = frames.load();
        window_start = Clock::now();
        next_report += kWindow;
      }
    }
  }
  const std::uint64_t allocations_in_loop = allocations_end;
  const double rss_warm = line_count > 0 ? first_window_rss : rss_start;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  for (std::thread& w : workers) w.join();
  for (int i = 0; i < line_count; ++i) std::printf("%s\n", lines[i]);

  const double character_frames = static_cast<double>(frames.load()) * o.characters;
  std::printf("\nover %.1f s: %llu frames, %.0f character-frames/s, %.1f M skinned vertices/s\n",
              elapsed, static_cast<unsigned long long>(frames.load()), character_frames / elapsed,
              character_frames * static_cast<double>(crowd.vertices_per_character) / elapsed / 1e6);
  const double cpu = cpu_end - cpu_start;
  std::printf("CPU time %.1f s (%.2f cores busy): %.0f character-frames per CPU second\n", cpu,
              cpu / elapsed, character_frames / cpu);
  std::printf(
      "RSS %.1f MiB at the start, %.1f MiB after the first window, %.1f MiB at the end "
      "(%+.2f MiB since the first window)\n",
      rss_start, rss_warm, rss_end, rss_end - rss_warm);
  std::printf("heap in use %zu bytes at the start, %zu at the end (%+lld)\n", heap_start, heap_end,
              static_cast<long long>(heap_end) - static_cast<long long>(heap_start));
  std::printf("allocations inside the loop: %llu\n",
              static_cast<unsigned long long>(allocations_in_loop));
  if (failed) {
    std::printf("FAILED: a job refused its input\n");
    return 1;
  }
  if (heap_end != heap_start || allocations_in_loop != 0 || rss_end - rss_warm > 1.0) {
    std::printf("FAILED: memory grew under load\n");
    return 1;
  }
  std::printf("memory flat: yes\n");
  return 0;
}
