// What side_by_side.cpp and side_by_side_skin.cpp share: Soldier.glb in both libraries' forms,
// the interleaved timer, and small helpers. See README.md.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "marrow/clip/compiled_clip.h"
#include "marrow/io/asset.h"
#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/skeleton.h"

namespace peer {

inline constexpr std::size_t kClipCount = 3;
inline constexpr const char* kClipNames[kClipCount] = {"Idle", "Walk", "Run"};

[[noreturn]] void fail(const std::string& message);

// One conversion of the three clips by ozz's gltf2ozz.
struct OzzClips {
  std::string label;
  ozz::animation::Animation clips[kClipCount];
};

// The three clips compiled by marrow under one choice of bound.
struct MarrowClips {
  std::string label;
  std::vector<marrow::CompiledClip> clips;
};

struct Scene {
  marrow::Asset asset;
  const marrow::Clip* exact[kClipCount] = {};
  ozz::animation::Skeleton ozz_skeleton;
  std::vector<std::unique_ptr<OzzClips>> ozz;  // [0]: ozz's default settings
  std::vector<MarrowClips> marrow;             // [0]: marrow's default bound
  // marrow joint of each ozz joint (matched by name).
  std::vector<marrow::JointIndex> joint_of_ozz;
  // Placed above ozz's roots so its model space is marrow's: the rest-pose model matrix of the
  // marrow parent of ozz's roots (identity when they are marrow's roots too).
  marrow::Mat4 ozz_root = marrow::Mat4::identity();
  float extent = 0;  // the character's size in model units (CompiledClipReport::extent)
};

// Loads Soldier.glb, its exact clips compiled with marrow's defaults, and ozz's skeleton.
void load_scene(Scene& scene, const std::string& soldier, const std::string& ozz_dir);
// Loads Idle.ozz, Walk.ozz and Run.ozz from `dir` as one more ozz conversion.
void add_ozz_clips(Scene& scene, const std::string& dir, const std::string& label);

// A workload timed once per repetition, interleaved with all the others.
struct Workload {
  Workload(std::string g, std::string n, std::function<std::size_t()> r)
      : group(std::move(g)), name(std::move(n)), run(std::move(r)) {}
  std::string group, name;
  std::function<std::size_t()> run;  // returns items done (character-frames or vertices)
  std::vector<double> seconds;       // thread CPU time per repetition
  std::size_t items = 0;
};

double thread_seconds();
double median(std::vector<double> v);
std::string fmt(const char* format, double x);

// Skinning workloads (side_by_side_skin.cpp): the synthetic mesh and Soldier's own, both
// libraries, appended to `out`. `repeat` skins per repetition.
void add_skinning_workloads(const Scene& scene, std::size_t repeat, std::vector<Workload>& out);

}  // namespace peer
