// `marrow info FILE`: the node/joint tree, the clips, meshes, skins, materials and images of a
// file.
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "commands.h"
#include "marrow/io/asset.h"
#include "marrow/io/asset_info.h"
#include "marrow/skin/morph.h"

namespace marrow::cli {
namespace {

struct InfoOptions {
  std::string file;
  std::string format = "text";
  bool clips_only = false;
  LoadOptions load;
};

void print_tree(const Asset& asset) {
  const Skeleton& s = asset.skeleton;
  std::cout << "nodes: " << s.size() << " ("
            << "* = skin joint)\n";
  std::vector<int> depth(s.size(), 0);
  for (std::size_t j = 0; j < s.size(); ++j) {
    if (s.parent(j) != kNoParent) depth[j] = depth[s.parent(j)] + 1;
    const Transform& r = s.rest_pose()[j];
    std::cout << "  " << std::string(static_cast<std::size_t>(depth[j]) * 2, ' ')
              << (asset.is_skin_joint(static_cast<JointIndex>(j)) ? "* " : "- ")
              << (s.name(j).empty() ? "(unnamed)" : s.name(j)) << "  [node "
              << asset.source_index[j] << "]  t=(" << r.translation.x << ", " << r.translation.y
              << ", " << r.translation.z << ")\n";
  }
}

void print_clips(const Asset& asset) {
  std::cout << "clips: " << asset.clips.size() << "\n";
  for (std::size_t c = 0; c < asset.clips.size(); ++c) {
    const Clip& clip = asset.clips[c];
    std::set<std::string_view> interpolations;
    std::size_t keys = 0;
    std::set<JointIndex> joints;
    for (const Track& t : clip.tracks()) {
      interpolations.insert(to_string(t.interpolation));
      keys += t.key_count;
      joints.insert(t.joint);
    }
    std::size_t weights = 0;
    for (const WeightTrack& t : clip.weight_tracks()) {
      interpolations.insert(to_string(t.interpolation));
      keys += t.key_count;
      weights += t.weight_count;
    }
    std::cout << "  [" << c << "] '" << clip.name() << "'  " << clip.duration() << " s, "
              << clip.tracks().size() << " channels on " << joints.size() << " joints, ";
    if (!clip.weight_tracks().empty()) {
      std::cout << clip.weight_tracks().size() << " morph weight channels (" << weights
                << " weights), ";
    }
    std::cout << keys << " keys,";
    for (auto i : interpolations) std::cout << " " << i;
    if (clip.ticks_per_second() > 0) {
      // Where the rate came from: the file, the format's default, or --ticks-per-second.
      std::cout << ", " << clip.ticks_per_second() << " ticks/s ("
                << rate_source_name(asset.rate_source(c)) << ")";
    }
    std::cout << "\n";
    if (const CompiledClip* compiled = asset.compiled_clip(c)) {
      const CompiledClipReport& r = compiled->report();
      std::cout << "      compiled: " << compiled->size_bytes() << " bytes, error bound " << r.bound
                << " model units (measured " << r.max_error << " when compiled), virtual "
                << "vertices at " << r.distance << "\n";
    }
  }
}

void print_meshes(const Asset& asset) {
  std::cout << "skins: " << asset.skins.size() << "\n";
  for (std::size_t s = 0; s < asset.skins.size(); ++s) {
    std::cout << "  [" << s << "] '" << asset.skins[s].name << "'  " << asset.skins[s].joints.size()
              << " joints\n";
  }
  std::cout << "meshes: " << asset.meshes.size() << "\n";
  for (std::size_t m = 0; m < asset.meshes.size(); ++m) {
    const SkinnedMesh& mesh = asset.meshes[m];
    std::cout << "  [" << m << "] '" << mesh.name << "'  " << mesh.vertex_count() << " vertices, "
              << mesh.indices.size() / 3 << " triangles";
    if (mesh.skin >= 0)
      std::cout << ", skin " << mesh.skin << ", up to " << mesh.max_influences() << " influences";
    else
      std::cout << ", rigid";
    std::cout << (mesh.normals.empty() ? "" : ", normals")
              << (mesh.tangents.empty() ? "" : ", tangents") << (mesh.uvs.empty() ? "" : ", uvs")
              << (mesh.colors.empty() ? "" : ", vertex colours");
    if (mesh.material >= 0) std::cout << ", material " << mesh.material;
    if (!mesh.morph_targets.empty())
      std::cout << ", " << mesh.morph_targets.size() << " morph targets";
    std::cout << "\n";
    for (std::size_t t = 0; t < mesh.morph_targets.size(); ++t) {
      const MorphTarget& target = mesh.morph_targets[t];
      std::cout << "      target " << t << " '" << target.name << "': moves "
                << target.vertices.size() << " of " << mesh.vertex_count() << " vertices"
                << (target.normal_deltas.empty() ? "" : ", normals")
                << (target.tangent_deltas.empty() ? "" : ", tangents") << ", default weight "
                << (t < mesh.default_morph_weights.size() ? mesh.default_morph_weights[t] : 0.0f)
                << "\n";
    }
  }
  const MorphLayout layout = MorphLayout::build(asset.meshes);
  if (layout.weight_count() == 0) return;
  std::cout << "morph weights: " << layout.weight_count() << "\n";
  for (const MorphSlots& s : layout.slots()) {
    std::cout << "  node '" << asset.skeleton.name(s.node) << "': slots " << s.first << ".."
              << s.first + s.count - 1 << "\n";
  }
}

std::string describe_texture(const char* slot, const TextureRef& t) {
  if (!t.present()) return "";
  std::ostringstream out;
  out << ", " << slot << " image " << t.image;
  if (t.texcoord != 0) out << " (uv set " << t.texcoord << ")";
  if (t.transform) out << " (transformed)";
  return out.str();
}

void print_materials(const Asset& asset) {
  std::cout << "materials: " << asset.materials.size() << "\n";
  for (std::size_t m = 0; m < asset.materials.size(); ++m) {
    const Material& mat = asset.materials[m];
    const auto& c = mat.base_color_factor;
    std::cout << "  [" << m << "] '" << mat.name << "'  base colour (" << c[0] << ", " << c[1]
              << ", " << c[2] << ", " << c[3] << ")" << describe_texture("texture", mat.base_color)
              << ", metallic " << mat.metallic_factor << ", roughness " << mat.roughness_factor
              << describe_texture("metallic-roughness", mat.metallic_roughness)
              << describe_texture("normal", mat.normal)
              << describe_texture("occlusion", mat.occlusion)
              << describe_texture("emissive", mat.emissive);
    if (mat.emissive_factor != std::array<float, 3>{0, 0, 0})
      std::cout << ", emissive (" << mat.emissive_factor[0] << ", " << mat.emissive_factor[1]
                << ", " << mat.emissive_factor[2] << ") x " << mat.emissive_strength;
    if (mat.alpha_mode == AlphaMode::kMask) std::cout << ", alpha mask " << mat.alpha_cutoff;
    if (mat.alpha_mode == AlphaMode::kBlend) std::cout << ", alpha blend";
    std::cout << (mat.double_sided ? ", double-sided" : "") << (mat.unlit ? ", unlit" : "") << "\n";
  }
  std::cout << "images: " << asset.images.size() << "\n";
  for (std::size_t i = 0; i < asset.images.size(); ++i) {
    const MaterialImage& image = asset.images[i];
    std::cout << "  [" << i << "] '" << image.name << "'  ";
    if (!image.bytes.empty())
      std::cout << "embedded, " << image.bytes.size() << " bytes"
                << (image.mime_type.empty() ? "" : ", " + image.mime_type);
    else
      std::cout << "file " << image.path;
    std::cout << "\n";
  }
}

}  // namespace

void add_info_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Show the clips, node tree, meshes, skins and materials of a file");
  cmd->add_option("file", options->file, "Any file marrow reads")->required();
  add_load_options(cmd, options->load);
  cmd->add_option("--format", options->format,
                  "text, or json (the schema of docs/info_json.md, for scripts)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--clips", options->clips_only, "List the clips alone");
  set_example(*cmd, "marrow info Soldier.glb --clips");
  cmd->callback([options, &run] {
    run = [options] {
      Result<Asset> asset = load_asset(options->file, options->load);
      if (!asset) return report_error(asset.error().message);
      if (options->format == "json") {
        std::cout << asset_info_json(
            *asset, options->clips_only ? AssetInfoParts::kClipsOnly : AssetInfoParts::kAll);
        return 0;
      }
      std::cout << options->file << "\n";
      print_clips(*asset);
      if (!options->clips_only) {
        print_tree(*asset);
        print_meshes(*asset);
        print_materials(*asset);
      }
      for (const std::string& w : asset->warnings) std::cout << "note: " << w << "\n";
      return 0;
    };
  });
}

}  // namespace marrow::cli
