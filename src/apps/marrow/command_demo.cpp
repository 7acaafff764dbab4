// `marrow demo [--out demo.gif] [--size WxH] [--fps N] [--skeleton] [--no-ground]`: needs no files.
// A humanoid built in code is driven by an Animator (docs/control.md): a 1D blend space takes it
// from a walk to a run and back with the feet in step (sync markers at each foot's strike), a wave
// plays on an override layer masked to the right arm, and keyframe events flash where they happen:
// each footstep at its foot, each wave of the hand at the hand. The frames are drawn by the
// software rasterizer into a GIF; the time per frame of each stage is printed.
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>

#include "commands.h"
#include "marrow/control/animator.h"
#include "marrow/demo/demo_character.h"
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
// How long a keyframe event's flash stays on screen.
constexpr float kFlash = 0.15f;

float ramp(float t, const float (&span)[2]) {
  const float u = std::clamp((t - span[0]) / (span[1] - span[0]), 0.0f, 1.0f);
  return u * u * (3 - 2 * u);
}
// The blend space's parameter: 1 walks, 2 runs.
float gait(float t) {
  return 1 + ramp(t, kRunFadeIn) - ramp(t, kRunFadeOut);
}

// The demo's clip set: the character's clips compiled, sync markers where each foot strikes
// (the gaits put the left foot forward at phase 0 and the right at 0.5), footstep events on them,
// "hello" events at the two outward swings of each wave, the right arm's mask, the gait space.
std::shared_ptr<const ClipSet> demo_clip_set(const Asset& asset) {
  ClipSetBuilder b(asset.skeleton);
  for (const Clip& clip : asset.clips) (void)b.add_clip(clip, {.compile = true});
  for (const int c : {demo::kDemoWalk, demo::kDemoRun}) {
    const Clip& clip = asset.clips[c];
    const float half = clip.duration() / 2;
    (void)b.add_marker(clip.name(), 0, "left_down");
    (void)b.add_marker(clip.name(), half, "right_down");
    (void)b.add_event(clip.name(), 0, "step_left");
    (void)b.add_event(clip.name(), half, "step_right");
  }
  const Clip& wave = asset.clips[demo::kDemoWave];
  (void)b.add_event(wave.name(), 0.125f * wave.duration(), "hello");
  (void)b.add_event(wave.name(), 0.625f * wave.duration(), "hello");
  (void)b.add_mask("right arm", mask_from_subtree(asset.skeleton, "r_shoulder").value());
  const BlendSampleDesc gaits[] = {{asset.clips[demo::kDemoWalk].name(), 1},
                                   {asset.clips[demo::kDemoRun].name(), 2}};
  (void)b.add_blend_space_1d("gait", gaits);
  return b.build().value();
}

// One character playing the demo's timeline through an Animator: buffers made once, then a frame
// is update -> evaluate -> local-to-model, as a game runs it.
class DemoPlayer {
 public:
  explicit DemoPlayer(const Asset& asset)
      : set_(demo_clip_set(asset)),
        animator_(Animator::create(set_, layered(*set_)).value()),
        workspace_(*set_),
        local_(soa_group_count(asset.skeleton.size())),
        model_(asset.skeleton.size()) {
    gait_ =
        animator_.play_blend_space(set_->blend_space_id("gait").value(), {.blend_x = 1}).value();
  }

  using Clock = std::chrono::steady_clock;
  struct Timings {
    Clock::duration update{}, evaluate{}, local_to_model{};
  };

  // Advances to time t (frames come in order) and leaves the model pose in model(). The wave's
  // start and fade-out happen at their exact times on the timeline: the update is cut there, so
  // what plays (and which events fire) does not depend on the frame rate.
  void frame(float t, Timings& timings) {
    fired_.clear();
    const auto t0 = Clock::now();
    if (!wave_started_ && t >= kWaveIn[0]) {
      advance_to(kWaveIn[0]);
      wave_ =
          animator_
              .play(set_->clip_id("wave").value(), {.layer = 1, .fade_in = kWaveIn[1] - kWaveIn[0]})
              .value();
      wave_started_ = true;
    }
    if (wave_.valid() && t >= kWaveOut[0]) {
      advance_to(kWaveOut[0]);
      (void)animator_.fade_out(wave_, kWaveOut[1] - kWaveOut[0], FadeCurve::kSmooth);
      wave_ = {};
    }
    advance_to(t);
    const auto t1 = Clock::now();
    animator_.evaluate(workspace_, local_);
    const auto t2 = Clock::now();
    SoaLocalToModelJob job;
    job.skeleton = &set_->skeleton();
    job.local = local_;
    job.model = model_;
    job.run();
    const auto t3 = Clock::now();
    timings.update += t1 - t0;
    timings.evaluate += t2 - t1;
    timings.local_to_model += t3 - t2;
  }
  std::span<const Mat4> model() const { return model_; }
  // The events the last frame's update fired.
  std::span<const AnimationEvent> fired() const { return fired_; }

 private:
  static AnimatorOptions layered(const ClipSet& set) {
    AnimatorOptions o;
    o.layers = {{"base"},
                {"arm", marrow::LayerMode::kOverride, 1, set.mask_id("right arm").value()}};
    return o;
  }
  std::shared_ptr<const ClipSet> set_;
  Animator animator_;
  AnimatorWorkspace workspace_;
  std::vector<SoaTransform> local_;
  std::vector<Mat4> model_;
  std::vector<AnimationEvent> events_ = std::vector<AnimationEvent>(16);
  // One update from now_ to t, the gait parameter taken at its middle (the midpoint rule keeps
  // the phase the blend accumulates close to the exact one at any frame rate); the events it
  // fires are added to fired_.
  void advance_to(float t) {
    if (!(t > now_)) return;
    animator_.set_blend_parameter(gait_, gait((now_ + t) / 2));
    const UpdateResult r = animator_.update(t - now_, events_);
    fired_.insert(fired_.end(), events_.begin(),
                  events_.begin() + static_cast<std::ptrdiff_t>(r.events_written));
    now_ = t;
  }

  std::vector<AnimationEvent> fired_;
  PlayerId gait_, wave_;
  bool wave_started_ = false;
  float now_ = 0;
};

// A flash on screen: where (a joint), what colour, until when.
struct Flash {
  JointIndex joint = 0;
  render::Rgb color;
  float until = 0;
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
            << o.fps << " fps), driven by an Animator (docs/control.md):\n"
            << "  0.0 - " << kRunFadeIn[0]
            << " s  walk: a 1D blend space \"gait\" (walk at 1, run at 2)\n"
            << "  " << kRunFadeIn[0] << " - " << kRunFadeIn[1]
            << " s  its parameter ramps to run; walk and run are synced marker to marker\n"
            << "             (left and right foot strikes), so the feet stay in step\n"
            << "  " << kRunFadeIn[1] << " - " << kRunFadeOut[0] << " s  run; from " << kWaveIn[0]
            << " to " << kWaveOut[1] << " s it waves: an override layer masked to the right\n"
            << "             arm (mask_from_subtree \"r_shoulder\"), faded in and out\n"
            << "  " << kRunFadeOut[0] << " - " << kRunFadeOut[1] << " s  back to walk\n"
            << "  keyframe events flash: footsteps (step_left, step_right) at the foot, \"hello\"\n"
            << "             at the hand at each outward swing of the wave\n\n";

  // Pass 1: the character's extent over the whole timeline, so the camera holds still.
  DemoPlayer::Timings unused;
  std::vector<Vec3> extremes;
  render::Orientation orientation;
  {
    DemoPlayer player(asset);
    for (int f = 0; f < frames; ++f) {
      player.frame(f * dt, unused);
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
  const JointIndex left_foot = *asset.skeleton.find("l_foot");
  const JointIndex right_foot = *asset.skeleton.find("r_foot");
  const JointIndex right_hand = *asset.skeleton.find("r_hand");
  std::vector<Flash> flashes;
  std::size_t steps = 0, hellos = 0;
  for (int f = 0; f < frames; ++f) {
    const float t = f * dt;
    player.frame(t, timings);
    for (const AnimationEvent& e : player.fired()) {
      if (e.name == "step_left" || e.name == "step_right") {
        flashes.push_back(
            {e.name == "step_left" ? left_foot : right_foot, {255, 240, 90}, t + kFlash});
        ++steps;
      } else if (e.name == "hello") {
        flashes.push_back({right_hand, {120, 220, 255}, t + kFlash});
        ++hellos;
      }
    }
    const auto t0 = Clock::now();
    scene->set_pose(player.model());
    const auto t1 = Clock::now();
    scene->draw(rasterizer, camera);
    std::erase_if(flashes, [&](const Flash& fl) { return fl.until <= t; });
    for (const Flash& fl : flashes) {
      const float left = (fl.until - t) / kFlash;  // shrinks as it fades
      rasterizer.draw_dot(camera, player.model()[fl.joint].translation(),
                          (3.0f + 6.0f * left) * size->height / 320.0f, fl.color);
    }
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
            << std::setprecision(1) << "  animator update    " << std::setw(9) << us(timings.update)
            << " us  (fades, sync, events)\n"
            << "  animator evaluate  " << std::setw(9) << us(timings.evaluate)
            << " us  (sample compiled clips, blend)\n"
            << "  local-to-model     " << std::setw(9) << us(timings.local_to_model) << " us\n"
            << "  skin               " << std::setw(9) << us(skinning) << " us  ("
            << mesh.vertex_count() << " vertices, linear blend)\n"
            << "  draw               " << std::setw(9) << us(drawing) << " us  (" << size->width
            << "x" << size->height << ", software rasterizer)\n"
            << "  " << std::left << std::setw(19) << encoder << std::right << std::setw(9)
            << us(encoding) << " us\n\n"
            << "events fired: " << steps << " footsteps, " << hellos << " waves of the hand\n"
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
