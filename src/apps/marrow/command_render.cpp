// `marrow render FILE [--clip NAME|INDEX] [--clip-file F] [--layer ...] --out
// out.png|out.gif|out.mp4
//   [--size WxH] [--fps N] [--seconds S] [--time T] [--camera PRESET] [--skeleton]
//   [--weights JOINT] [--skinning linear|dq]`: pictures and videos of a file, drawn by the
// software rasterizer (docs/rendering.md).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.h"
#include "layers.h"
#include "marrow/io/asset.h"
#include "marrow/render/output.h"
#include "marrow/render/scene.h"
#include "render_options.h"

namespace marrow::cli {
namespace {

struct RenderOptions {
  std::string file;
  std::string clip;
  std::string clip_file;
  std::vector<std::string> layers;
  std::string out;
  std::string size = "400x400";
  double fps = 25;
  std::optional<double> seconds;  // default: the clip's duration
  double time = 0;
  std::string camera = "auto";
  bool skeleton = false;
  std::string weights;
  std::string skinning = "linear";
  LoadOptions load;
};

// Most frames one render may have (about 1 hour at 25 fps).
constexpr long kMaxFrames = 100000;
// The camera is framed over at most this many frames spread over the range.
constexpr long kMaxBoundsSamples = 400;

int run_render(const RenderOptions& o) {
  // Everything that can be checked without the file is checked first.
  Result<render::OutputFormat> format = render::output_format_of(o.out);
  if (!format) return report_error(format.error().message);
  if (Status s = check_output_folder(o.out); !s) return report_error(s.error().message);
  Result<ImageSize> size = parse_image_size(o.size);
  if (!size) return report_error(size.error().message);
  const auto preset = render::parse_camera_preset(o.camera);
  if (!preset) {
    return report_error("--camera '" + o.camera + "': expected one of " +
                        std::string(render::kCameraPresetNames));
  }
  if (!(o.fps > 0) || !std::isfinite(o.fps) || o.fps > 120) {
    return report_error("--fps: expected a frame rate above 0 and at most 120");
  }
  if (*format == render::OutputFormat::kGif && o.fps > 50) {
    return report_error(
        "--fps: a GIF counts frame delays in hundredths of a second and viewers slow down "
        "delays below 2/100 s, so GIFs take at most 50 fps");
  }
  if (o.seconds && (!(*o.seconds > 0) || !std::isfinite(*o.seconds))) {
    return report_error("--seconds: expected a duration above 0");
  }
  if (!std::isfinite(o.time)) return report_error("--time: expected a time in seconds");

  Result<Asset> asset = load_asset(o.file, o.load);
  if (!asset) return report_error(asset.error().message);
  if (!o.clip_file.empty()) {
    if (Status s = use_clips_of(*asset, o.clip_file, o.load); !s) {
      return report_error(s.error().message);
    }
  }
  Result<PoseSource> source = PoseSource::create(*asset, o.clip, o.layers);
  if (!source) return report_error(source.error().message);
  render::SceneStyle style;
  style.skeleton = o.skeleton;
  style.weights_joint = o.weights;
  style.method = o.skinning == "dq" ? SkinningMethod::kDualQuaternion : SkinningMethod::kLinear;
  Result<render::SceneRenderer> scene = render::SceneRenderer::create(*asset, style);
  if (!scene) return report_error(scene.error().message);
  for (const std::string& note : scene->notes()) std::cerr << "marrow: note: " << note << "\n";

  // Frame times: a single PNG at --time; an animation from --time over --seconds (default: the
  // clip's duration), each clip looping.
  long frames = 1;
  if (*format != render::OutputFormat::kPng) {
    const double seconds = o.seconds ? *o.seconds : source->duration();
    const double wanted = seconds * o.fps;
    if (!(wanted <= kMaxFrames)) {
      return report_error("--seconds x --fps asks for more than " + std::to_string(kMaxFrames) +
                          " frames, the most one render makes");
    }
    frames = std::max(1L, std::lround(wanted));
  } else if (o.seconds) {
    std::cerr << "marrow: note: a PNG holds one frame (the pose at --time); --seconds ignored\n";
  }
  auto time_of = [&](long frame) { return static_cast<float>(o.time + frame / o.fps); };
  auto poses = [&](long first, long count) {
    std::vector<float> times;
    for (long f = first; f < first + count; ++f) times.push_back(time_of(f));
    return source->sample(times, WrapMode::kLoop);
  };

  // The camera: framed on the character over the whole range (sampled), from the chosen side.
  std::vector<Vec3> extremes;
  render::Orientation orientation;
  const long stride = std::max(1L, (frames + kMaxBoundsSamples - 1) / kMaxBoundsSamples);
  for (long f = 0; f < frames; f += stride) {
    const PoseSamples one = poses(f, 1);
    scene->set_pose(one.world[0], one.weights.empty() ? std::span<const float>()
                                                      : std::span<const float>(one.weights[0]));
    scene->extreme_points(extremes);
    if (f == 0) orientation = render::guess_orientation(asset->skeleton, one.world[0]);
  }
  if (extremes.empty()) {
    return report_error(o.file + ": nothing to draw (no mesh and no joint)");
  }
  const render::Camera camera = render::frame_points(
      extremes, *preset, static_cast<float>(size->width) / size->height, orientation);

  render::remove_temporaries_on_signal();  // Ctrl-C leaves no temporary behind
  auto writer = render::FrameWriter::open(o.out, size->width, size->height, o.fps);
  if (!writer) return report_error(writer.error().message);
  render::Rasterizer rasterizer(size->width, size->height);
  const bool tty = isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  int last_quarter = 0;
  constexpr long kChunk = 32;
  for (long first = 0; first < frames; first += kChunk) {
    const long count = std::min(kChunk, frames - first);
    const PoseSamples chunk = poses(first, count);
    for (long k = 0; k < count; ++k) {
      scene->set_pose(chunk.world[static_cast<std::size_t>(k)],
                      chunk.weights.empty()
                          ? std::span<const float>()
                          : std::span<const float>(chunk.weights[static_cast<std::size_t>(k)]));
      scene->draw(rasterizer, camera);
      if (Status s = (*writer)->add(rasterizer.image()); !s) return report_error(s.error().message);
      const long done = first + k + 1;
      if (frames > 1 && tty) {
        std::cerr << "\rmarrow: rendering frame " << done << "/" << frames << std::flush;
      } else if (frames > 1) {
        // Not a terminal: a line per quarter, only for renders long enough to wonder about.
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const int quarter = static_cast<int>(done * 4 / frames);
        if (elapsed > 3 && quarter > last_quarter && done < frames) {
          std::cerr << "marrow: rendered " << done << "/" << frames << " frames\n";
        }
        last_quarter = quarter;
      }
    }
  }
  if (frames > 1 && tty) std::cerr << "\r" << std::string(48, ' ') << "\r" << std::flush;
  if (Status s = (*writer)->finish(); !s) return report_error(s.error().message);

  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ostringstream what;
  what << std::fixed << std::setprecision(2);
  if (source->clip_index() >= 0) {
    what << "clip '" << asset->clips[static_cast<std::size_t>(source->clip_index())].name() << "'";
  } else {
    what << "rest pose";
  }
  if (!o.layers.empty()) what << " + " << o.layers.size() << " layer(s)";
  std::cout << "wrote " << o.out << ": " << frames << (frames == 1 ? " frame" : " frames") << ", "
            << size->width << "x" << size->height << ", " << what.str();
  if (frames > 1)
    std::cout << ", " << frames / o.fps << " s at " << o.fps << " fps";
  else
    std::cout << " at t = " << o.time << " s";
  std::cout << ", " << ((*writer)->size() + 512) / 1024 << " KiB, in " << std::setprecision(2)
            << elapsed << " s\n";
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
  cmd->add_flag("--skeleton", options->skeleton, "Draw the bones over the mesh");
  cmd->add_option("--weights", options->weights,
                  "Colour the mesh by each vertex's weight for this joint (blue 0 to red 1)");
  cmd->add_option("--skinning", options->skinning, "linear (default) or dq (dual quaternion)")
      ->check(CLI::IsMember({"linear", "dq"}));
  cmd->callback([options, &run] { run = [options] { return run_render(*options); }; });
}

}  // namespace marrow::cli
