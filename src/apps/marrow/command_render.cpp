// `marrow render FILE [--clip NAME|INDEX] [--clip-file F] [--layer ...] [--script SCRIPT.json]
// --out out.png|out.gif|out.mp4 [--size WxH] [--fps N] [--seconds S] [--time T]
// [--camera PRESET] [--rest] [--morph NAME=WEIGHT]... [--skeleton] [--weights JOINT]
// [--skinning linear|dq] [--no-ground] [--no-textures]`: pictures and videos of a file, drawn by
// the software rasterizer (docs/rendering.md). With --script the poses come from an animation
// script stepped through an Animator, as `marrow play` steps it (docs/control.md), its root motion
// moving the character.
//
// The command runs in named steps: check the options, load the file and its pose source, set
// up the scene and camera, draw the frames into the writer, and report what was encoded.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.h"
#include "layers.h"
#include "marrow/io/animation_script.h"
#include "marrow/io/asset.h"
#include "marrow/io/script_runner.h"
#include "marrow/render/output.h"
#include "marrow/render/scene.h"
#include "marrow/skin/morph.h"
#include "progress.h"
#include "render_options.h"

namespace marrow::cli {
namespace {

struct RenderOptions {
  std::string file;
  std::string clip;
  std::string clip_file;
  std::vector<std::string> layers;
  std::string script;
  bool fps_given = false;  // on the command line (a script brings its own)
  std::string out;
  std::string size = "400x400";
  double fps = 25;
  std::optional<double> seconds;  // default: the clip's duration
  double time = 0;
  std::string camera = "auto";
  bool skeleton = false;
  std::string weights;
  std::string skinning = "linear";
  bool no_ground = false;
  bool no_textures = false;
  bool rest = false;                // the rest pose instead of a clip
  std::vector<std::string> morphs;  // NAME=WEIGHT, held in every frame
  LoadOptions load;
};

// Most frames one render may have (about 1 hour at 25 fps).
constexpr long kMaxFrames = 100000;
// The camera is framed over at most this many frames spread over the range.
constexpr long kMaxBoundsSamples = 400;
// Frames posed at once (PoseSource samples a batch of times in one call).
constexpr long kChunk = 32;

// Step 1: what the options say, checked before the file is read.
struct RenderPlan {
  render::OutputFormat format = render::OutputFormat::kPng;
  ImageSize size;
  render::CameraPreset preset = render::CameraPreset::kAuto;
};

Result<RenderPlan> check_options(const RenderOptions& o) {
  RenderPlan plan;
  Result<render::OutputFormat> format = render::output_format_of(o.out);
  if (!format) return format.error();
  plan.format = *format;
  if (Status s = check_output_folder(o.out); !s) return s.error();
  Result<ImageSize> size = parse_image_size(o.size);
  if (!size) return size.error();
  plan.size = *size;
  const auto preset = render::parse_camera_preset(o.camera);
  if (!preset) {
    return Error{"--camera '" + o.camera + "': expected one of " +
                 std::string(render::kCameraPresetNames)};
  }
  plan.preset = *preset;
  if (!(o.fps > 0) || !std::isfinite(o.fps) || o.fps > 120) {
    return Error{"--fps: expected a frame rate above 0 and at most 120"};
  }
  if (plan.format == render::OutputFormat::kGif && o.fps > 50) {
    return Error{
        "--fps: a GIF counts frame delays in hundredths of a second and viewers slow down "
        "delays below 2/100 s, so GIFs take at most 50 fps"};
  }
  if (o.seconds && (!(*o.seconds > 0) || !std::isfinite(*o.seconds))) {
    return Error{"--seconds: expected a duration above 0"};
  }
  if (!std::isfinite(o.time)) return Error{"--time: expected a time in seconds"};
  if (o.rest &&
      (!o.clip.empty() || !o.layers.empty() || !o.script.empty() || !o.clip_file.empty())) {
    return Error{"--rest draws the rest pose; drop --clip, --clip-file, --layer and --script"};
  }
  if (!o.script.empty()) {
    if (!o.clip.empty() || !o.layers.empty()) {
      return Error{"--script: the script says what plays; drop --clip and --layer"};
    }
    if (o.fps_given || o.seconds) {
      return Error{
          "--script: the script sets the frame rate and length (its \"fps\" and "
          "\"duration\"); drop --fps and --seconds"};
    }
    if (plan.format != render::OutputFormat::kPng && o.time != 0) {
      return Error{
          "--time: an animation of a script starts at the script's start; --time picks "
          "the frame of a PNG"};
    }
  }
  return plan;
}

// The frame times: a single PNG at --time; an animation from --time over --seconds (default:
// the clip's duration), each clip looping. A script's frames are its own: frame k at k / fps.
struct Timeline {
  long frames = 1;
  double start = 0, fps = 25;
  long first_frame = 0;  // of a script: the frame a PNG shows
  float time_of(long frame) const { return static_cast<float>(start + frame / fps); }
};

// Where the frames' poses come from: --clip / --layer sampled at the frames' times, or a script
// stepped frame by frame through an Animator. A script runner only steps forwards, so asking for
// an earlier frame starts it again (the camera pass and the drawing pass each go through the
// frames once). The script's root motion, composed frame by frame, moves the character.
class FramePoses {
 public:
  static Result<FramePoses> clip(const Asset& asset, const RenderOptions& o) {
    FramePoses p;
    if (o.rest) {
      p.source_.emplace(PoseSource::rest_pose(asset));
      return p;
    }
    Result<PoseSource> made = PoseSource::create(asset, o.clip, o.layers);
    if (!made) return made.error();
    p.source_.emplace(std::move(made).value());
    return p;
  }

  // --morph NAME=WEIGHT: the slots it names show WEIGHT in every frame, over what clips say.
  Status hold_morph_weights(const Asset& asset, const std::vector<std::string>& morphs) {
    const MorphLayout layout = MorphLayout::build(asset.meshes);
    defaults_.assign(layout.default_weights().begin(), layout.default_weights().end());
    for (const std::string& text : morphs) {
      const std::size_t equals = text.rfind('=');
      char* end = nullptr;
      const float weight =
          equals == std::string::npos ? NAN : std::strtof(text.c_str() + equals + 1, &end);
      if (equals == std::string::npos || end == text.c_str() + equals + 1 || *end != '\0' ||
          !std::isfinite(weight)) {
        return Error{"--morph '" + text +
                     "': expected NAME=WEIGHT (a target's name, or #SLOT, "
                     "and a number)"};
      }
      Result<std::vector<std::uint32_t>> slots = layout.find_slots(text.substr(0, equals));
      if (!slots) return make_error(asset.source, "--morph: " + slots.error().message);
      for (std::uint32_t slot : *slots) held_.emplace_back(slot, weight);
    }
    return {};
  }
  static Result<FramePoses> script(const Asset& asset, const std::string& path) {
    Result<AnimationScript> script = read_animation_script(path);
    if (!script) return script.error();
    FramePoses p;
    p.asset_ = &asset;
    p.script_ = std::move(script).value();
    if (Status s = p.restart(); !s) return s.error();
    return p;
  }

  bool is_script() const { return !source_.has_value(); }
  int script_frames() const { return runner_->frame_count(); }
  double script_fps() const { return runner_->fps(); }
  // Seconds of the clips involved, or of the script.
  float duration() const {
    return source_ ? source_->duration()
                   : static_cast<float>((runner_->frame_count() - 1) / runner_->fps());
  }
  std::string what(const Asset& asset, const RenderOptions& o) const {
    if (is_script()) return "script '" + o.script + "'";
    if (source_->clip_index() < 0) return "rest pose";
    std::string what =
        "clip '" + asset.clips[static_cast<std::size_t>(source_->clip_index())].name() + "'";
    if (!o.layers.empty()) what += " + " + std::to_string(o.layers.size()) + " layer(s)";
    return what;
  }

  // Frames first .. first + count - 1 of the timeline, with the held morph weights.
  Result<PoseSamples> get(const Timeline& timeline, long first, long count) {
    Result<PoseSamples> made = get_unheld(timeline, first, count);
    if (made && !held_.empty()) {
      for (std::vector<float>& weights : made->weights) {
        if (weights.size() < defaults_.size()) weights = defaults_;
        for (const auto& [slot, weight] : held_) weights[slot] = weight;
      }
    }
    return made;
  }

 private:
  FramePoses() = default;
  Result<PoseSamples> get_unheld(const Timeline& timeline, long first, long count) {
    PoseSamples out;
    if (source_) {
      std::vector<float> times;
      for (long f = first; f < first + count; ++f) times.push_back(timeline.time_of(f));
      return source_->sample(times, WrapMode::kLoop);
    }
    for (long f = first + timeline.first_frame; f < first + timeline.first_frame + count; ++f) {
      if (f < next_) {
        if (Status s = restart(); !s) return s.error();
      }
      while (next_ <= f) {
        if (Status s = step(); !s) return s.error();
      }
      std::vector<Mat4> world(frame_.model.size());
      for (std::size_t j = 0; j < world.size(); ++j) world[j] = mul_affine(root_, frame_.model[j]);
      out.times.push_back(frame_.time);
      out.world.push_back(std::move(world));
      out.weights.push_back(frame_.morph_weights);
    }
    return out;
  }

  Status step() {
    if (Status s = runner_->next(frame_); !s) return s;
    root_ = mul_affine(root_, to_matrix(frame_.update.root_motion));  // world * delta
    if (frame_.matching) record_paths(*frame_.matching);
    ++next_;
    return {};
  }

  // A motion-matching script's paths, frame by frame (each frame once, however often the runner
  // starts again): the desired path and the character's, in the world.
  void record_paths(const ScriptFrame::Matching& m) {
    if (static_cast<std::size_t>(next_) != desired_.size()) return;
    desired_.push_back(m.desired);
    actual_.push_back(m.world.translation);
  }

 public:
  // Steps a motion-matching script to its last frame (recording its paths); the next get()
  // starts it again. Other scripts have no paths and are not stepped.
  Status run_to_end() {
    if (!script_.motion_matching) return {};
    while (runner_ && next_ < runner_->frame_count()) {
      if (Status s = step(); !s) return s;
    }
    return {};
  }
  bool has_paths() const { return !desired_.empty(); }
  // The ground lines of frame `frame` of the timeline: the whole desired path (what the stick
  // asks for), and the character's path so far.
  std::vector<render::GroundPath> paths(const Timeline& timeline, long frame) const {
    const std::size_t upto =
        std::min(actual_.size(), static_cast<std::size_t>(frame + timeline.first_frame + 1));
    return {{desired_, {1.0f, 0.55f, 0.1f}},
            {{actual_.begin(), actual_.begin() + static_cast<std::ptrdiff_t>(upto)},
             {0.1f, 0.55f, 1.0f}}};
  }
  std::span<const Vec3> desired_path() const { return desired_; }
  std::span<const Vec3> actual_path() const { return actual_; }

 private:
  Status restart() {
    Result<ScriptRunner> runner = ScriptRunner::create(*asset_, script_);
    if (!runner) return runner.error();
    runner_.emplace(std::move(runner).value());
    next_ = 0;
    root_ = to_matrix(Transform{});
    return {};
  }

  std::optional<PoseSource> source_;
  const Asset* asset_ = nullptr;
  AnimationScript script_;
  std::optional<ScriptRunner> runner_;
  ScriptFrame frame_;
  std::vector<float> defaults_;                        // the layout's default weights
  std::vector<std::pair<std::uint32_t, float>> held_;  // --morph: slot, weight
  long next_ = 0;                                      // the frame the runner gives next
  Mat4 root_ = to_matrix(Transform{});                 // the root motion so far
  std::vector<Vec3> desired_, actual_;                 // per script frame, once recorded
};

// Step 2: the file, with --clip-file's clips bound in, and what --clip / --layer / --script
// select.
Status load(const RenderOptions& o, Asset& asset, std::optional<FramePoses>& poses) {
  Result<Asset> loaded = load_input(o.file, o.load);
  if (!loaded) return loaded.error();
  asset = std::move(loaded).value();
  if (!o.clip_file.empty()) {
    const std::optional<std::vector<std::string>> used =
        o.script.empty() ? std::optional(clips_named(o.clip, o.layers)) : std::nullopt;
    if (Status s = use_clips_of(asset, o.clip_file, o.load, used); !s) return s;
  }
  Result<FramePoses> made =
      o.script.empty() ? FramePoses::clip(asset, o) : FramePoses::script(asset, o.script);
  if (!made) return made.error();
  if (Status s = made->hold_morph_weights(asset, o.morphs); !s) return s;
  poses.emplace(std::move(made).value());
  return {};
}

Result<Timeline> make_timeline(const RenderOptions& o, const RenderPlan& plan,
                               const FramePoses& source) {
  Timeline timeline{1, o.time, o.fps};
  if (source.is_script()) {
    timeline.start = 0;
    timeline.fps = source.script_fps();
    if (plan.format == render::OutputFormat::kGif && timeline.fps > 50) {
      return Error{o.script + ": fps: a GIF takes at most 50 fps (write an .mp4, or lower it)"};
    }
    if (source.script_frames() > kMaxFrames) {
      return Error{o.script + ": duration x fps asks for more than " + std::to_string(kMaxFrames) +
                   " frames, the most one render makes"};
    }
    if (plan.format != render::OutputFormat::kPng) {
      timeline.frames = source.script_frames();
      return timeline;
    }
    timeline.first_frame = std::lround(o.time * timeline.fps);
    if (o.time < 0 || timeline.first_frame >= source.script_frames()) {
      return Error{"--time: the script's frames run from 0 to " +
                   std::to_string(source.duration()) + " s"};
    }
    return timeline;
  }
  if (plan.format != render::OutputFormat::kPng) {
    const double seconds = o.seconds ? *o.seconds : source.duration();
    const double wanted = seconds * o.fps;
    if (!(wanted <= kMaxFrames)) {
      return Error{"--seconds x --fps asks for more than " + std::to_string(kMaxFrames) +
                   " frames, the most one render makes"};
    }
    timeline.frames = std::max(1L, std::lround(wanted));
  } else if (o.seconds) {
    std::cerr << "marrow: note: a PNG holds one frame (the pose at --time); --seconds ignored\n";
  }
  return timeline;
}

// Step 3: the scene (meshes, textures, overlay) and a camera framed on the character over the
// whole range (sampled), from the chosen side.
struct Scene {
  std::optional<render::SceneRenderer> renderer;
  render::Camera camera;
};

Result<Scene> make_scene(const RenderOptions& o, const RenderPlan& plan, const Asset& asset,
                         FramePoses& source, const Timeline& timeline) {
  render::SceneStyle style;
  style.skeleton = o.skeleton;
  style.weights_joint = o.weights;
  style.method = o.skinning == "dq" ? SkinningMethod::kDualQuaternion : SkinningMethod::kLinear;
  style.ground = !o.no_ground;
  style.textures = !o.no_textures;
  Result<render::SceneRenderer> renderer = render::SceneRenderer::create(asset, style);
  if (!renderer) return renderer.error();
  for (const std::string& note : renderer->notes()) std::cerr << "marrow: note: " << note << "\n";

  std::vector<Vec3> extremes;
  render::Orientation orientation;
  const long stride = std::max(1L, (timeline.frames + kMaxBoundsSamples - 1) / kMaxBoundsSamples);
  for (long f = 0; f < timeline.frames; f += stride) {
    Result<PoseSamples> one = source.get(timeline, f, 1);
    if (!one) return one.error();
    renderer->set_pose(one->world[0], one->weights.empty()
                                          ? std::span<const float>()
                                          : std::span<const float>(one->weights[0]));
    renderer->extreme_points(extremes);
    if (f == 0) orientation = render::guess_orientation(asset.skeleton, one->world[0]);
  }
  if (source.is_script()) {
    // Every frame of a motion-matching script, so that the camera frames the whole of both paths
    // and the desired one is drawn whole from the first frame.
    if (Status s = source.run_to_end(); !s) return s.error();
    for (std::span<const Vec3> path : {source.desired_path(), source.actual_path()})
      extremes.insert(extremes.end(), path.begin(), path.end());
  }
  if (extremes.empty()) return Error{o.file + ": nothing to draw (no mesh and no joint)"};
  renderer->place_ground(extremes, orientation);
  Scene scene;
  scene.camera = render::frame_points(
      extremes, plan.preset, static_cast<float>(plan.size.width) / plan.size.height, orientation);
  scene.renderer.emplace(std::move(renderer).value());
  return scene;
}

// Step 4: every frame posed, drawn and handed to the writer, with a progress bar on a terminal.
Status draw_frames(FramePoses& source, const Timeline& timeline, const RenderPlan& plan,
                   Scene& scene, render::FrameWriter& writer) {
  render::Rasterizer rasterizer(plan.size.width, plan.size.height);
  ProgressBar progress("rendering", static_cast<std::uint64_t>(timeline.frames), "frames",
                       timeline.frames > 1);
  for (long first = 0; first < timeline.frames; first += kChunk) {
    const long count = std::min(kChunk, timeline.frames - first);
    Result<PoseSamples> made = source.get(timeline, first, count);
    if (!made) return made.error();
    const PoseSamples& chunk = *made;
    for (long k = 0; k < count; ++k) {
      scene.renderer->set_pose(
          chunk.world[static_cast<std::size_t>(k)],
          chunk.weights.empty()
              ? std::span<const float>()
              : std::span<const float>(chunk.weights[static_cast<std::size_t>(k)]));
      if (source.has_paths()) scene.renderer->set_ground_paths(source.paths(timeline, first + k));
      scene.renderer->draw(rasterizer, scene.camera);
      if (Status s = writer.add(rasterizer.image()); !s) return s;
      progress.advance();
    }
  }
  return {};
}

// Step 5: the file completed (encoded, renamed into place) and a line saying what it holds.
Status finish_and_report(const RenderOptions& o, const RenderPlan& plan, const Asset& asset,
                         const FramePoses& source, const Timeline& timeline,
                         render::FrameWriter& writer, double seconds_taken) {
  if (Status s = writer.finish(); !s) return s;
  const long frames = timeline.frames;
  std::cout << std::fixed << std::setprecision(2) << "wrote " << o.out << ": " << frames
            << (frames == 1 ? " frame" : " frames") << ", " << plan.size.width << "x"
            << plan.size.height << ", " << source.what(asset, o);
  if (frames > 1)
    std::cout << ", " << frames / timeline.fps << " s at " << timeline.fps << " fps";
  else
    std::cout << " at t = " << timeline.time_of(timeline.first_frame) << " s";
  std::cout << ", " << (writer.size() + 512) / 1024 << " KiB, in " << std::fixed
            << std::setprecision(2) << seconds_taken << " s\n";
  return {};
}

int run_render(const RenderOptions& o) {
  Result<RenderPlan> plan = check_options(o);
  if (!plan) return report_error(plan.error().message);
  Asset asset;  // outlives the pose source and the scene, which point into it
  std::optional<FramePoses> source;
  if (Status s = load(o, asset, source); !s) return report_error(s.error().message);
  Result<Timeline> timeline = make_timeline(o, *plan, *source);
  if (!timeline) return report_error(timeline.error().message);
  Result<Scene> scene = make_scene(o, *plan, asset, *source, *timeline);
  if (!scene) return report_error(scene.error().message);

  render::remove_temporaries_on_signal();  // Ctrl-C leaves no temporary behind
  auto writer =
      render::FrameWriter::open(o.out, plan->size.width, plan->size.height, timeline->fps);
  if (!writer) return report_error(writer.error().message);
  const auto start = std::chrono::steady_clock::now();
  if (Status s = draw_frames(*source, *timeline, *plan, *scene, **writer); !s)
    return report_error(s.error().message);
  const double taken =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (Status s = finish_and_report(o, *plan, asset, *source, *timeline, **writer, taken); !s)
    return report_error(s.error().message);
  return 0;
}

}  // namespace

void add_render_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* cmd = app.add_subcommand(
      "render", "Draw a file's animation into a PNG, GIF or MP4 (software rasterizer)");
  cmd->add_option("file", options->file, "Any file marrow reads (glTF, .X, BVH, FBX, ...)")
      ->required();
  add_load_options(cmd, options->load);
  cmd->add_option("--clip", options->clip, "Clip name or index (default: the first clip)");
  cmd->add_option("--clip-file", options->clip_file,
                  "Play this file's clips on FILE's skeleton, bound by joint name");
  cmd->add_option("--layer", options->layers,
                  "Blend layer CLIP[:weight=W][:mode=normal|override|additive]"
                  "[:mask=ROOT|!ROOT|auto][:time=T][:ref=rest|T] (repeatable; as in marrow pose)");
  cmd->add_option("--script", options->script,
                  "Play an animation script (players, fades, blend spaces, state machine; the "
                  "format of marrow play, docs/control.md) instead of --clip");
  cmd->add_option("--out", options->out, "Output file: .png (one frame), .gif or .mp4 (ffmpeg)")
      ->required();
  cmd->add_option("--size", options->size, "Image size WIDTHxHEIGHT (default 400x400)");
  cmd->add_option("--fps", options->fps, "Frames per second (default 25; GIF at most 50)");
  cmd->add_option("--seconds", options->seconds,
                  "Length of a GIF or MP4 (default: the clip's duration; clips loop)");
  cmd->add_option("--time", options->time,
                  "Time of the PNG's pose, or where an animation starts (default 0)");
  cmd->add_option("--camera", options->camera,
                  "auto, front, side, back, top or three-quarter (default auto)");
  cmd->add_flag("--rest", options->rest,
                "Draw the rest pose (the file's node transforms, the pose a mesh is bound in) "
                "instead of a clip");
  cmd->add_option("--morph", options->morphs,
                  "Hold a morph target at a weight in every frame: NAME=WEIGHT, or #SLOT=WEIGHT "
                  "(repeatable; targets no option names keep what the clip gives them)");
  cmd->add_flag("--skeleton", options->skeleton, "Draw the bones over the mesh");
  cmd->add_option("--weights", options->weights,
                  "Colour the mesh by each vertex's weight for this joint (blue 0 to red 1)");
  cmd->add_option("--skinning", options->skinning, "linear (default) or dq (dual quaternion)")
      ->check(CLI::IsMember({"linear", "dq"}));
  cmd->add_flag("--no-ground", options->no_ground,
                "No ground plane (grid and contact shadow) under the character");
  cmd->add_flag("--no-textures", options->no_textures,
                "Draw materials in their flat base colour, without textures");
  set_example(*cmd, "marrow render Soldier.glb --clip Walk --size 480x360 --out walk.gif");
  cmd->callback([options, cmd, &run] {
    options->fps_given = cmd->count("--fps") > 0;
    run = [options] { return run_render(*options); };
  });
}

}  // namespace marrow::cli
