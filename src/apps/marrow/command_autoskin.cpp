// `marrow autoskin`: bind a mesh to a skeleton automatically and write a skinned glTF, or
// measure the automatic weights against a rigged file's own (--evaluate). docs/autoskin.md.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "marrow/clip/binding.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/asset.h"
#include "marrow/io/save.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/autoskin.h"
#include "marrow/skin/autoskin_evaluation.h"
#include "marrow/skin/skinning.h"
#include "progress.h"

namespace marrow::cli {
namespace {

struct AutoskinOptions {
  std::string mesh;
  std::string skeleton;
  std::string output;
  std::string evaluate;
  std::string clips;  // --evaluate: animate with this file's clips (rotations, by joint name)
  std::string method = "heat";
  std::string format = "text";
  std::size_t max_influences = 4;
  float min_weight = 0.01f;
  float lower = 0.2f, upper = 0.8f;
  std::vector<std::string> ranges;  // NAME=L:U
  unsigned threads = 2;
  double heat_c = 1.0;
  double heat_cone = 0.0;
  bool no_visibility = false;
  bool nearest_only = false;
  bool hidden_to_nearest = false;
  double reach = 2.0;
  float frame_rate = 30;
  bool quiet = false;
  bool force = false;  // bind even when the mesh and the skeleton look like different units
  LoadOptions load;
};

// Mesh and skeleton extents further apart than this are taken for different units: a skeleton's
// joints span a little less than its body, never a third or three times of it.
constexpr float kUnitMismatchRatio = 3;

// Progress of heat's stages (visibility, laplacian, factorize, solve) as a bar on a terminal;
// nothing when stderr is piped. Shared, since std::function copies its target.
struct StageProgress {
  std::shared_ptr<ProgressBar> bar;
  std::string stage;
  void operator()(std::string_view s, float fraction) {
    if (!bar) {
      bar = std::make_shared<ProgressBar>(std::string(s), 100, "%");
    } else if (s != stage) {
      bar->restart(std::string(s), 100, "%");
    }
    stage = s;
    bar->set(static_cast<std::uint64_t>(std::clamp(fraction, 0.0f, 1.0f) * 100));
  }
};

// A fresh bar for the next piece of work; the old one (if any) clears its line first, so what
// is printed next starts on a clean line. JSON output gets none.
void reset_progress(autoskin::Options& options, const AutoskinOptions& o) {
  options.progress = nullptr;
  if (!o.quiet && o.format != "json" && ProgressBar::stderr_is_terminal())
    options.progress = StageProgress{};
}

Result<autoskin::Options> make_options(const AutoskinOptions& o, const Skeleton& skeleton,
                                       const std::string& skeleton_file) {
  autoskin::Options options;
  if (o.method == "heat")
    options.method = autoskin::Method::kHeat;
  else if (o.method == "proximity")
    options.method = autoskin::Method::kProximity;
  else
    return make_error("--method", "'" + o.method + "' is not proximity or heat");
  options.max_influences = o.max_influences;
  options.min_weight = o.min_weight;
  options.range = {o.lower, o.upper};
  options.threads = std::max(1u, o.threads);
  options.heat_c = o.heat_c;
  options.heat_cone = o.heat_cone;
  options.heat_visibility = !o.no_visibility;
  options.heat_nearest_only = o.nearest_only;
  options.heat_hidden_to_nearest = o.hidden_to_nearest;
  options.heat_reach = o.reach;
  if (!(o.heat_c > 0)) return make_error("--heat-c", "must be positive");
  for (const std::string& r : o.ranges) {
    const auto eq = r.rfind('='), colon = r.rfind(':');
    float lo = 0, hi = 0;
    char tail = 0;
    if (eq == std::string::npos || colon == std::string::npos || colon < eq ||
        std::sscanf(r.c_str() + eq + 1, "%f", &lo) != 1 ||
        std::sscanf(r.c_str() + colon + 1, "%f%c", &hi, &tail) != 1 || !(lo <= hi))
      return make_error("--range", "'" + r + "' is not NAME=LOWER:UPPER with LOWER <= UPPER");
    const std::string name = r.substr(0, eq);
    std::optional<JointIndex> j = skeleton.find(name);
    if (!j) return make_error("--range", "no joint named '" + name + "' in " + skeleton_file);
    options.range_overrides[*j] = {lo, hi};
  }
  reset_progress(options, o);
  return options;
}

// Meshes in the mesh file's model space: a rigid mesh hangs under its node; a skinned one is
// already in its bind space.
std::vector<SkinnedMesh> placed_meshes(const Asset& asset) {
  std::vector<Mat4> model(asset.skeleton.size());
  if (!asset.skeleton.empty())
    (void)local_to_model(asset.skeleton, asset.skeleton.rest_pose(), model);
  std::vector<SkinnedMesh> out;
  for (const SkinnedMesh& src : asset.meshes) {
    SkinnedMesh m;
    m.name = src.name;
    m.positions = src.positions;
    m.normals = src.normals;
    m.tangents = src.tangents;
    m.uvs = src.uvs;
    m.indices = src.indices;
    if (src.skin < 0 && src.node != kNoParent && src.node < model.size()) {
      const Mat4& x = model[src.node];
      Mat4 inverse;
      const bool invertible = invert_affine(x, inverse);
      for (Vec3& p : m.positions) p = transform_point(x, p);
      for (Vec3& n : m.normals) {
        // Normals go by the inverse transpose.
        Vec3 r = invertible ? Vec3{dot(inverse.column(0), n), dot(inverse.column(1), n),
                                   dot(inverse.column(2), n)}
                            : n;
        const float len = length(r);
        n = len > 0 ? r * (1 / len) : n;
      }
      for (auto& t : m.tangents) {
        Vec3 r = transform_vector(x, {t[0], t[1], t[2]});
        const float len = length(r);
        if (len > 0) r *= 1 / len;
        t = {r.x, r.y, r.z, t[3]};
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

// The unit of a file's coordinates where its format defines one: glTF's are metres, and the
// Collada reader converts a document's <unit> to metres. Other formats state none.
std::string length_unit(const std::string& file) {
  std::string ext = std::filesystem::path(file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".gltf" || ext == ".glb" || ext == ".dae" ? " m" : " units";
}

// A skeleton several times larger or smaller than the mesh binds every vertex to the wrong bones
// (the result falls apart when it moves): refused unless --force, which binds with a warning.
Status check_sizes(const AutoskinOptions& o, const autoskin::Extents& extents) {
  const float ratio = extents.ratio();
  if (!(ratio > kUnitMismatchRatio)) return {};
  std::ostringstream m;
  m << std::setprecision(3) << "the mesh (" << o.mesh << ") is " << extents.mesh
    << length_unit(o.mesh) << " across and the skeleton (" << o.skeleton << ") " << extents.skeleton
    << length_unit(o.skeleton) << ", " << ratio << " times "
    << (extents.skeleton < extents.mesh ? "smaller" : "larger")
    << ": are they in the same units? Scale one to the other first";
  if (!o.force) return make_error("autoskin", m.str() + " (--force binds them as they are)");
  if (!o.quiet)
    std::cerr << "marrow: warning: autoskin: " << m.str() << "; bound as given (--force)\n";
  return {};
}

int run_bind(const AutoskinOptions& o) {
  if (o.mesh.empty()) return report_error("autoskin: give a MESH file (or --evaluate FILE)");
  if (o.skeleton.empty()) return report_error("autoskin: --skeleton FILE is required");
  if (o.output.empty()) return report_error("autoskin: -o OUT.glb is required");
  Result<Asset> mesh_asset = load_input(o.mesh, o.load);
  if (!mesh_asset) return report_error(mesh_asset.error().message);
  Result<Asset> skel_asset = load_input(o.skeleton, o.load);
  if (!skel_asset) return report_error(skel_asset.error().message);
  if (mesh_asset->meshes.empty()) return report_error(o.mesh + ": has no mesh to bind");
  if (skel_asset->skeleton.empty()) return report_error(o.skeleton + ": has no skeleton");

  Asset out;
  out.source = o.output;
  out.skeleton = skel_asset->skeleton;
  out.source_index = skel_asset->source_index;
  out.clips = skel_asset->clips;
  out.rate_sources = skel_asset->rate_sources;      // a guessed rate stays marked as one
  out.compiled_clips = skel_asset->compiled_clips;  // same skeleton, same clips
  // The bones: the skeleton file's first skin where it has one (its joints, placed by its
  // inverse bind matrices), otherwise every joint at its rest pose.
  Result<autoskin::Rig> rig = skel_asset->skins.empty()
                                  ? autoskin::rig_from_rest_pose(out.skeleton)
                                  : autoskin::rig_from_skin(out.skeleton, skel_asset->skins[0]);
  if (!rig) return report_error(o.skeleton + ": " + rig.error().message);
  Result<autoskin::Options> options = make_options(o, out.skeleton, o.skeleton);
  if (!options) return report_error(options.error().message);

  out.meshes = placed_meshes(*mesh_asset);
  std::vector<autoskin::MeshPart> parts;
  Aabb box;
  for (const SkinnedMesh& m : out.meshes) {
    parts.push_back({m.positions, m.indices, m.name});
    for (Vec3 p : m.positions) {
      box.min = {std::min(box.min.x, p.x), std::min(box.min.y, p.y), std::min(box.min.z, p.z)};
      box.max = {std::max(box.max.x, p.x), std::max(box.max.y, p.y), std::max(box.max.z, p.z)};
    }
  }
  if (Status st = check_sizes(o, autoskin::measure_extents(parts, *rig)); !st)
    return report_error(st.error().message);
  // A skeleton outside the mesh usually means different units or placement.
  {
    const Vec3 margin = (box.max - box.min) * 0.1f;
    std::size_t inside = 0;
    for (JointIndex j : rig->joints) {
      const Vec3 p = rig->bind_model[j].translation();
      inside += p.x >= box.min.x - margin.x && p.x <= box.max.x + margin.x &&
                p.y >= box.min.y - margin.y && p.y <= box.max.y + margin.y &&
                p.z >= box.min.z - margin.z && p.z <= box.max.z + margin.z;
    }
    if (inside * 2 < rig->joints.size())
      std::cerr << "marrow: warning: " << rig->joints.size() - inside << " of "
                << rig->joints.size()
                << " bone joints lie outside the mesh's bounding box: are the mesh and the "
                   "skeleton in the same units and place?\n";
  }

  Result<autoskin::Binding> binding = autoskin::bind_mesh(parts, *rig, *options);
  options->progress = nullptr;  // clears the bar
  if (!binding) return report_error(o.mesh + ": " + binding.error().message);
  out.skins.push_back(binding->skin);
  for (std::size_t m = 0; m < out.meshes.size(); ++m)
    autoskin::apply(binding->parts[m], 0, out.meshes[m]);
  std::vector<std::string> notes;
  if (Status st = save_asset(out, o.output, &notes); !st) return report_error(st.error().message);
  if (!o.quiet) {
    for (const std::string& n : binding->notes) std::cerr << "marrow: autoskin: " << n << "\n";
    for (const std::string& n : notes)
      std::cerr << "marrow: note: " << o.output << ": " << n << "\n";
  }
  std::size_t vertices = 0;
  for (const SkinnedMesh& m : out.meshes) vertices += m.vertex_count();
  std::cout << o.mesh << " + " << o.skeleton << " -> " << o.output << ": " << vertices
            << " vertices bound to " << rig->joints.size() << " bones (" << o.method << "), "
            << out.clips.size() << " clips\n";
  return 0;
}

std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      r += ' ';
      continue;
    }
    r += c;
  }
  return r;
}

// Another file's clips on this skeleton, by joint name, rotations only: joint offsets (bone
// lengths) and scale stay the skeleton's own, so a clip made for a differently proportioned
// character with the same joint names still poses this one sensibly.
Result<std::vector<Clip>> borrowed_clips(const std::string& file, const Skeleton& skeleton,
                                         const LoadOptions& load) {
  Result<Asset> source = load_input(file, load);
  if (!source) return source.error();
  std::vector<Clip> out;
  for (const Clip& clip : source->clips) {
    Result<Clip> bound = rebind_clip(clip, skeleton);
    if (!bound) return make_error(file, bound.error().message);
    ClipBuilder builder(bound->name());
    builder.set_duration(bound->duration());
    const auto names = bound->track_joint_names();
    for (std::size_t t = 0; t < bound->tracks().size(); ++t) {
      const Track& track = bound->tracks()[t];
      if (track.target != TrackTarget::kRotation) continue;
      const std::uint32_t per_key = floats_per_key(track.target, track.interpolation);
      Status st = builder.add_track(
          track.joint, t < names.size() ? names[t] : std::string_view{}, track.target,
          track.interpolation, bound->times().subspan(track.first_key, track.key_count),
          bound->values().subspan(track.first_value, std::size_t{track.key_count} * per_key), file);
      if (!st) return st.error();
    }
    Result<Clip> built = builder.build(skeleton.size(), file);
    if (!built) return built.error();
    if (!built->tracks().empty()) out.push_back(std::move(built).value());
  }
  if (out.empty()) return make_error(file, "no clip animates a joint of the evaluated skeleton");
  return out;
}

int run_evaluate(const AutoskinOptions& o) {
  Result<Asset> asset = load_input(o.evaluate, o.load);
  if (!asset) return report_error(asset.error().message);
  if (!o.clips.empty()) {
    Result<std::vector<Clip>> clips = borrowed_clips(o.clips, asset->skeleton, o.load);
    if (!clips) return report_error(clips.error().message);
    asset->clips = std::move(clips).value();
  }
  Result<autoskin::Options> options = make_options(o, asset->skeleton, o.evaluate);
  if (!options) return report_error(options.error().message);
  bool any = false;
  std::ostringstream json;
  json << "{\"file\": \"" << json_escape(o.evaluate) << "\", \"method\": \"" << o.method
       << "\", \"max_influences\": " << o.max_influences << ", \"skins\": [";
  for (std::size_t s = 0; s < asset->skins.size(); ++s) {
    std::vector<SkinnedMesh> meshes;
    for (const SkinnedMesh& m : asset->meshes)
      if (m.skin == static_cast<int>(s)) meshes.push_back(m);
    if (meshes.empty()) continue;
    Result<autoskin::Evaluation> e = autoskin::evaluate(
        asset->skeleton, asset->clips, asset->skins[s], meshes, *options, o.frame_rate);
    reset_progress(*options, o);
    if (!e)
      return report_error(o.evaluate + ": skin '" + asset->skins[s].name +
                          "': " + e.error().message);
    if (o.format == "json") {
      json << (any ? ", " : "") << "{\"skin\": \"" << json_escape(asset->skins[s].name)
           << "\", \"bones\": " << e->bones << ", \"vertices\": " << e->vertices
           << ", \"mean_l1\": " << e->mean_l1 << ", \"precision\": " << e->precision
           << ", \"recall\": " << e->recall << ", \"clips\": " << e->clips
           << ", \"frames\": " << e->frames << ", \"mean_distance\": " << e->mean_distance
           << ", \"max_distance\": " << e->max_distance << ", \"diagonal\": " << e->diagonal
           << ", \"seconds\": " << e->seconds << ", \"notes\": [";
      for (std::size_t n = 0; n < e->notes.size(); ++n)
        json << (n ? ", " : "") << "\"" << json_escape(e->notes[n]) << "\"";
      json << "]}";
    } else {
      std::cout << std::fixed;
      std::cout << o.evaluate << "  method " << o.method << ", up to " << o.max_influences
                << " influences\n";
      std::cout << "skin '" << asset->skins[s].name << "': " << e->bones << " bones, "
                << e->vertices << " vertices in " << meshes.size() << " meshes\n";
      std::cout << std::setprecision(3) << "  weights: mean L1 " << e->mean_l1
                << " per vertex, precision " << e->precision << ", recall " << e->recall
                << " (influences > 1e-4)\n";
      if (e->frames)
        std::cout << "  deformation: " << e->clips << " clips, " << e->frames << " frames at "
                  << std::setprecision(0) << o.frame_rate << " Hz: mean " << std::setprecision(3)
                  << e->mean_distance * 100 << " %, max " << e->max_distance * 100
                  << " % of the bounding-box diagonal (" << std::setprecision(4) << e->diagonal
                  << ")\n";
      else
        std::cout << "  deformation: the file has no clips\n";
      std::cout << std::setprecision(3) << "  time: " << e->seconds << " s\n";
      for (const std::string& n : e->notes) std::cout << "  note: " << n << "\n";
    }
    any = true;
  }
  if (!any) return report_error(o.evaluate + ": has no skinned mesh to evaluate");
  if (o.format == "json") std::cout << json.str() << "]}\n";
  return 0;
}

}  // namespace

void add_autoskin_command(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<AutoskinOptions>();
  CLI::App* cmd = app.add_subcommand(
      "autoskin",
      "Bind a mesh to a skeleton automatically (writes a skinned glTF), or --evaluate the "
      "automatic weights against a rigged file's own");
  cmd->add_option("mesh", o->mesh, "The mesh to bind (any file marrow reads; weights ignored)");
  cmd->add_option("--skeleton", o->skeleton, "The skeleton (and its clips) to bind to");
  add_load_options(cmd, o->load, &o->quiet,
                   "No progress or notes on stderr (reader notes included)");
  cmd->add_option("-o,--output", o->output, "The skinned file to write (.glb, .gltf, .marrow)");
  cmd->add_option("--evaluate", o->evaluate,
                  "A rigged file: recompute its weights and compare with the artist's");
  cmd->add_flag("--force", o->force,
                "Bind even when the mesh and the skeleton differ in size by more than "
                "3 times (other units)");
  cmd->add_option("--method", o->method, "proximity or heat (default heat)")
      ->check(CLI::IsMember({"proximity", "heat"}));
  cmd->add_option("--max-influences", o->max_influences,
                  "Keep at most N influences per vertex (default 4; 0 keeps all)");
  cmd->add_option("--min-weight", o->min_weight, "Prune weights below this (default 0.01)");
  cmd->add_option("--lower", o->lower, "proximity: L of the [L, U] rule (default 0.2)");
  cmd->add_option("--upper", o->upper, "proximity: U of the [L, U] rule (default 0.8)");
  cmd->add_option("--range", o->ranges,
                  "proximity: per-bone [L, U] as JOINT=L:U (repeatable; e.g. Head=0:1)");
  cmd->add_option("--heat-c", o->heat_c, "heat: the paper's c in H = c / d^2 (default 1)");
  cmd->add_option("--heat-cone", o->heat_cone,
                  "heat: cosine of the visibility cone around the normal");
  cmd->add_flag("--no-visibility", o->no_visibility, "heat: count every bone as visible (no rays)");
  cmd->add_flag("--nearest-only", o->nearest_only,
                "heat: heat only from the nearest bone, none when it is hidden");
  cmd->add_option(
      "--reach", o->reach,
      "heat: bones farther than this multiple of the nearest one are not sources (default 2)");
  cmd->add_flag(
      "--hidden-to-nearest", o->hidden_to_nearest,
      "heat: a vertex that sees no bone is heated by its nearest bone (default: it diffuses)");
  cmd->add_option("--threads", o->threads, "heat: threads for visibility and solves (default 2)");
  cmd->add_option("--clips", o->clips,
                  "--evaluate: animate with this file's clips (rotations, matched by joint name)");
  cmd->add_option("--fps", o->frame_rate, "--evaluate: frames per second sampled (default 30)");
  cmd->add_option("--format", o->format, "--evaluate: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  set_example(*cmd, "marrow autoskin Xbot.glb --skeleton Xbot.glb --method heat -o xbot_heat.glb");
  cmd->callback(
      [o, &run] { run = [o] { return o->evaluate.empty() ? run_bind(*o) : run_evaluate(*o); }; });
}

}  // namespace marrow::cli
