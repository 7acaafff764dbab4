// `marrow demo`: needs no files. Builds a small arm skeleton and a waving clip in code, plays it
// with a cursor the way a game would, and prints what happened and what each stage cost.
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <numbers>

#include "commands.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/clip/sampling.h"
#include "marrow/pose/local_to_model.h"

namespace marrow::cli {
namespace {

Skeleton demo_skeleton() {
  std::vector<JointDesc> joints = {
      {"hips", -1, {{0, 1.0f, 0}, {}, {1, 1, 1}}},
      {"spine", 0, {{0, 0.25f, 0}, {}, {1, 1, 1}}},
      {"chest", 1, {{0, 0.25f, 0}, {}, {1, 1, 1}}},
      {"head", 2, {{0, 0.3f, 0}, {}, {1, 1, 1}}},
      {"shoulder", 2, {{0.2f, 0.2f, 0}, {}, {1, 1, 1}}},
      {"elbow", 4, {{0.3f, 0, 0}, {}, {1, 1, 1}}},
      {"hand", 5, {{0.25f, 0, 0}, {}, {1, 1, 1}}},
  };
  return Skeleton::build(joints, "demo").value();
}

Clip demo_clip(const Skeleton& skeleton) {
  ClipBuilder builder("wave");
  const float pi = std::numbers::pi_v<float>;
  // Shoulder raises the arm (linear rotation keys about z), elbow swings (cubic spline).
  std::vector<float> times = {0.0f, 0.5f, 1.0f};
  std::vector<float> shoulder;
  for (float angle : {0.0f, pi / 2, 0.0f}) {
    const Quat q = from_axis_angle({0, 0, 1}, angle);
    shoulder.insert(shoulder.end(), {q.x, q.y, q.z, q.w});
  }
  std::vector<float> elbow;
  for (float angle : {0.0f, pi / 3, 0.0f}) {
    const Quat q = from_axis_angle({0, 1, 0}, angle);
    elbow.insert(elbow.end(), {0, 0, 0, 0, q.x, q.y, q.z, q.w, 0, 0, 0, 0});  // in, value, out
  }
  std::vector<float> hips_times = {0.0f, 1.0f};
  std::vector<float> hips = {0, 1.0f, 0, 0, 1.05f, 0};
  auto add = [&](const char* name, TrackTarget target, Interpolation interp,
                 const std::vector<float>& t, const std::vector<float>& v) {
    const JointIndex j = *skeleton.find(name);
    if (!builder.add_track(j, name, target, interp, t, v, "demo")) std::abort();
  };
  add("shoulder", TrackTarget::kRotation, Interpolation::kLinear, times, shoulder);
  add("elbow", TrackTarget::kRotation, Interpolation::kCubicSpline, times, elbow);
  add("hips", TrackTarget::kTranslation, Interpolation::kLinear, hips_times, hips);
  return builder.build(skeleton.size(), "demo").value();
}

int run_demo() {
  const Skeleton skeleton = demo_skeleton();
  const Clip clip = demo_clip(skeleton);
  std::cout << "marrow demo: a " << skeleton.size() << "-joint arm playing clip '" << clip.name()
            << "' (" << clip.duration() << " s, " << clip.tracks().size()
            << " tracks), looped for 2 s at 10 fps\n\n";
  std::vector<Transform> local(skeleton.size());
  std::vector<Mat4> model(skeleton.size());
  SamplingCursor cursor(clip);
  const JointIndex hand = *skeleton.find("hand");
  std::cout << std::fixed << std::setprecision(3) << "    time    hand position (x, y, z)\n";
  for (int frame = 0; frame <= 20; ++frame) {
    const float t = frame * 0.1f;
    sample(clip, skeleton.rest_pose(), wrap_time(t, clip.duration(), WrapMode::kLoop), cursor,
           local);
    local_to_model(skeleton, local, model);
    const Vec3 p = model[hand].translation();
    std::cout << "  " << std::setw(6) << t << "    (" << std::setw(6) << p.x << ", " << std::setw(6)
              << p.y << ", " << std::setw(6) << p.z << ")\n";
  }

  // What a frame costs, stage by stage, over many frames at 60 Hz.
  using Clock = std::chrono::steady_clock;
  constexpr int kFrames = 200000;
  Clock::duration sampling{}, hierarchy{};
  for (int frame = 0; frame < kFrames; ++frame) {
    const auto t0 = Clock::now();
    sample(clip, skeleton.rest_pose(), wrap_time(frame / 60.0f, clip.duration(), WrapMode::kLoop),
           cursor, local);
    const auto t1 = Clock::now();
    local_to_model(skeleton, local, model);
    sampling += t1 - t0;
    hierarchy += Clock::now() - t1;
  }
  auto ns = [](Clock::duration d) {
    return std::chrono::duration<double, std::nano>(d).count() / kFrames;
  };
  std::cout
      << "\nper frame (mean of " << kFrames << " frames, timer overhead included):\n"
      << "  sample          " << std::setprecision(0) << ns(sampling) << " ns\n"
      << "  local-to-model  " << ns(hierarchy) << " ns\n"
      << "\nTry a file of your own:\n"
      << "  build/bin/marrow info ../shared/assets/gltf/Soldier.glb\n"
      << "  build/bin/marrow pose ../shared/assets/gltf/Soldier.glb --clip Walk --times 0,0.5\n";
  return 0;
}

}  // namespace

void add_demo_command(CLI::App& app, std::function<int()>& run) {
  CLI::App* cmd = app.add_subcommand("demo", "Play a clip built in code and print what happened");
  cmd->callback([&run] { run = run_demo; });
}

}  // namespace marrow::cli
