// `marrow demo [--out demo.gif] [--size WxH] [--fps N] [--skeleton] [--no-ground]`: needs no files.
// A humanoid built in code walks, cross-fades to a run (normal layers, foot phases kept in step by
// normalized time), waves with a masked override layer on its right arm, and cross-fades back to
// the walk; the frames are drawn by the software rasterizer into a GIF. Prints what each stage of a
// frame costs.
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>

#include "commands.h"
#include "marrow/clip/sampling.h"
#include "marrow/demo/demo_character.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "marrow/render/output.h"
#include "marrow/render/scene.h"
#include "render_options.h"

namespace marrow::cli {
namespace {

struct DemoOptions {
  std::string out = "demo.gif";
  std::string size = "320x320";
  double fps = 20;
  bool skeleton = false;
  bool no_ground = false;
};

// The timeline, in seconds.
constexpr float kLength = 6.0f;
constexpr float kRunFadeIn[2] = {1.5f, 2.5f};
constexpr float kWaveIn[2] = {3.0f, 3.4f};
constexpr float kWaveOut[2] = {4.6f, 5.0f};
constexpr float kRunFadeOut[2] = {5.0f, 6.0f};

float ramp(float t, const float (&span)[2]) {
  const float u = std::clamp((t - span[0]) / (span[1] - span[0]), 0.0f, 1.0f);
  return u * u * (3 - 2 * u);
}
float run_weight(float t) {
  return ramp(t, kRunFadeIn) - ramp(t, kRunFadeOut);
}
float wave_weight(float t) {
  return ramp(t, kWaveIn) - ramp(t, kWaveOut);
}

// One character playing the demo's timeline: buffers made once, then a frame is the straight
// line sample -> blend -> local-to-model that a game runs.
class DemoPlayer {
 public:
  explicit DemoPlayer(const Asset& asset)
      : asset_(asset),
        walk_(asset.clips[demo::kDemoWalk]),
        run_(asset.clips[demo::kDemoRun]),
        wave_(asset.clips[demo::kDemoWave]),
        arm_mask_(mask_from_subtree(asset.skeleton, "r_shoulder").value()) {
    const std::size_t n = asset.skeleton.size();
    for (auto* pose : {&walk_pose_, &run_pose_, &wave_pose_, &local_}) pose->resize(n);
    model_.resize(n);
  }

  using Clock = std::chrono::steady_clock;
  struct Timings {
    Clock::duration sample{}, blend{}, local_to_model{};
  };

  // Advances to time t (frames come in order, dt apart) and leaves the model pose in model().
  void frame(float t, float dt, Timings& timings) {
    const Clip& walk = asset_.clips[demo::kDemoWalk];
    const Clip& run = asset_.clips[demo::kDemoRun];
    const Clip& wave = asset_.clips[demo::kDemoWave];
    const float w_run = run_weight(t), w_wave = wave_weight(t);
    // Sync: one shared phase whose cycle length is the weighted mix of both gaits', so the
    // left foot lands at the same normalized time in both clips.
    if (t > 0) {
      const float cycle = walk.duration() * (1 - w_run) + run.duration() * w_run;
      phase_ = std::fmod(phase_ + dt / cycle, 1.0f);
    }
    const auto t0 = Clock::now();
    const Skeleton& skeleton = asset_.skeleton;
    sample(walk, skeleton.rest_pose(), phase_ * walk.duration(), walk_, walk_pose_);
    sample(run, skeleton.rest_pose(), phase_ * run.duration(), run_, run_pose_);
    sample(wave, skeleton.rest_pose(), wrap_time(t, wave.duration(), WrapMode::kLoop), wave_,
           wave_pose_);
    const auto t1 = Clock::now();
    const BlendLayer normal[] = {{walk_pose_, 1 - w_run, {}}, {run_pose_, w_run, {}}};
    const BlendLayer overrides[] = {{wave_pose_, w_wave, arm_mask_}};
    BlendJob blend;
    blend.rest_pose = skeleton.rest_pose();
    blend.layers = normal;
    blend.overrides = overrides;
    blend.output = local_;
    blend.run();
    const auto t2 = Clock::now();
    local_to_model(skeleton, local_, model_);
    const auto t3 = Clock::now();
    timings.sample += t1 - t0;
    timings.blend += t2 - t1;
    timings.local_to_model += t3 - t2;
  }
  std::span<const Mat4> model() const { return model_; }

 private:
  const Asset& asset_;
  SamplingCursor walk_, run_, wave_;
  std::vector<float> arm_mask_;
  std::vector<Transform> walk_pose_, run_pose_, wave_pose_, local_;
  std::vector<Mat4> model_;
  float phase_ = 0;
};

int run_demo(const DemoOptions& o) {
  if (Status s = check_output_folder(o.out); !s) return report_error(s.error().message);
  Result<render::OutputFormat> format = render::output_format_of(o.out);
  if (!format) return report_error(format.error().message);
  if (*format == render::OutputFormat::kPng) {
    return report_error(o.out + ": the demo is an animation; write a .gif or .mp4");
  }
  Result<ImageSize> size = parse_image_size(o.size);
  if (!size) return report_error(size.error().message);

  const Asset asset = demo::make_demo_character();
  const SkinnedMesh& mesh = asset.meshes[0];
  render::SceneStyle style;
  style.skeleton = o.skeleton;
  style.ground = !o.no_ground;
  Result<render::SceneRenderer> scene = render::SceneRenderer::create(asset, style);
  if (!scene) return report_error(scene.error().message);

  const int frames = static_cast<int>(std::lround(kLength * o.fps));
  const float dt = static_cast<float>(1 / o.fps);
  std::cout << "marrow demo: a humanoid built in code (" << asset.skeleton.size() << " joints, "
            << mesh.vertex_count() << " vertices, " << mesh.indices.size() / 3
            << " triangles,\n  up to " << mesh.max_influences()
            << " influences per vertex) and clips made by ClipBuilder:\n"
            << std::fixed << std::setprecision(2) << "  walk ("
            << asset.clips[demo::kDemoWalk].duration() << " s cycle), run ("
            << asset.clips[demo::kDemoRun].duration() << " s cycle), wave ("
            << asset.clips[demo::kDemoWave].duration() << " s)\n\n"
            << std::setprecision(1) << "timeline (" << kLength << " s, " << frames << " frames at "
            << o.fps << " fps):\n"
            << "  0.0 - " << kRunFadeIn[0] << " s  walk\n"
            << "  " << kRunFadeIn[0] << " - " << kRunFadeIn[1]
            << " s  cross-fade to run: two normal layers, weights ramping; both clips sampled at\n"
            << "             one normalized phase, so the feet stay in step\n"
            << "  " << kRunFadeIn[1] << " - " << kRunFadeOut[0] << " s  run; from " << kWaveIn[0]
            << " to " << kWaveOut[1] << " s it waves: an override layer masked to the right\n"
            << "             arm (mask_from_subtree \"r_shoulder\"), faded in and out\n"
            << "  " << kRunFadeOut[0] << " - " << kRunFadeOut[1]
            << " s  cross-fade back to walk\n\n";

  // Pass 1: the character's extent over the whole timeline, so the camera holds still.
  DemoPlayer::Timings unused;
  std::vector<Vec3> extremes;
  render::Orientation orientation;
  {
    DemoPlayer player(asset);
    for (int f = 0; f < frames; ++f) {
      player.frame(f * dt, dt, unused);
      scene->set_pose(player.model());
      scene->extreme_points(extremes);
      if (f == 0) orientation = render::guess_orientation(asset.skeleton, player.model());
    }
  }
  const render::Camera camera =
      render::frame_points(extremes, render::CameraPreset::kAuto,
                           static_cast<float>(size->width) / size->height, orientation);
  scene->place_ground(extremes, orientation);

  // Pass 2: the frames, timed stage by stage.
  render::remove_temporaries_on_signal();  // Ctrl-C leaves no temporary behind
  auto writer = render::FrameWriter::open(o.out, size->width, size->height, o.fps);
  if (!writer) return report_error(writer.error().message);
  render::Rasterizer rasterizer(size->width, size->height);
  DemoPlayer player(asset);
  DemoPlayer::Timings timings;
  using Clock = DemoPlayer::Clock;
  Clock::duration skinning{}, drawing{}, encoding{};
  for (int f = 0; f < frames; ++f) {
    player.frame(f * dt, dt, timings);
    const auto t0 = Clock::now();
    scene->set_pose(player.model());
    const auto t1 = Clock::now();
    scene->draw(rasterizer, camera);
    const auto t2 = Clock::now();
    if (Status s = (*writer)->add(rasterizer.image()); !s) return report_error(s.error().message);
    skinning += t1 - t0;
    drawing += t2 - t1;
    encoding += Clock::now() - t2;
  }
  if (Status s = (*writer)->finish(); !s) return report_error(s.error().message);

  auto us = [&](Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count() / frames;
  };
  const char* encoder = *format == render::OutputFormat::kGif ? "encode GIF" : "send to ffmpeg";
  std::cout << "time per frame (mean of " << frames << " frames):\n"
            << std::setprecision(1) << "  sample (3 clips)   " << std::setw(9) << us(timings.sample)
            << " us\n"
            << "  blend              " << std::setw(9) << us(timings.blend) << " us\n"
            << "  local-to-model     " << std::setw(9) << us(timings.local_to_model) << " us\n"
            << "  skin               " << std::setw(9) << us(skinning) << " us  ("
            << mesh.vertex_count() << " vertices, linear blend)\n"
            << "  draw               " << std::setw(9) << us(drawing) << " us  (" << size->width
            << "x" << size->height << ", software rasterizer)\n"
            << "  " << std::left << std::setw(19) << encoder << std::right << std::setw(9)
            << us(encoding) << " us\n\n"
            << "wrote " << o.out << " (" << size->width << "x" << size->height << ", " << frames
            << " frames, " << ((*writer)->size() + 512) / 1024 << " KiB)\n\n"
            << "Try your own files:\n"
            << "  build/bin/marrow render ../shared/assets/gltf/Soldier.glb --clip Run --out "
               "run.gif\n"
            << "  build/bin/marrow render FILE --time 0.5 --skeleton --out pose.png\n"
            << "  build/bin/marrow render FILE --weights JOINT --camera front --out weights.png\n"
            << "  build/bin/marrow info FILE     (clips and joint names)\n";
  return 0;
}

}  // namespace

void add_demo_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<DemoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "demo", "Animate a humanoid built in code (walk, run, wave) into demo.gif; needs no files");
  cmd->add_option("--out", options->out, "Output file, .gif or .mp4 (default demo.gif)");
  cmd->add_option("--size", options->size, "Image size WIDTHxHEIGHT (default 320x320)");
  cmd->add_option("--fps", options->fps, "Frames per second (default 20, 1 to 50)")
      ->check(CLI::Range(1.0, 50.0));
  cmd->add_flag("--skeleton", options->skeleton, "Draw the bones over the mesh");
  cmd->add_flag("--no-ground", options->no_ground,
                "No ground plane (grid and contact shadow) under the character");
  set_example(*cmd, "marrow demo --out demo.gif --size 480x480 --skeleton");
  cmd->callback([options, &run] { run = [options] { return run_demo(*options); }; });
}

}  // namespace marrow::cli
