// marrow_fuzz_seeds SHARED_DIR OUT_DIR [MAX_BYTES [SEEDS_DIR [SHARD/SHARDS]]]: derives seed
// inputs for the fuzz targets from the shared assets, at fuzz time (they are never committed: the
// assets stay in ../shared), and from the committed text seeds in SEEDS_DIR (fuzz/seeds).
// SHARD/SHARDS (0/2, 1/2) makes this run one of SHARDS that share the work: it derives from every
// SHARDS-th seed name (files that write seeds of one name fall to one shard, so such a seed is
// written by one process in one order), and shard 0 alone from SEEDS_DIR.
// Every file marrow can load is trimmed (a few keys per track, a few clips, the first triangles
// of each mesh) and re-encoded in every format a target reads: embedded .gltf, .glb, archive,
// OBJ with a .mtl (archives also with compiled clips); .X text files become binary and MSZIP seeds;
// BVH files keep their hierarchy and first frames; .gltf files travel with their .bin files as file
// sets (file_set.h). Writes OUT_DIR/<target>/<seed> and prints how many seeds each target got.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "encodings.h"
#include "file_set.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/archive.h"
#include "marrow/io/asset.h"
#include "marrow/io/bvh.h"
#include "marrow/io/gltf.h"
#include "marrow/io/gltf_export.h"
#include "marrow/io/motion_database_archive.h"
#include "marrow/io/obj.h"
#include "motion_fixtures.h"

namespace fs = std::filesystem;
using marrow::Asset;
using Bytes = std::vector<std::uint8_t>;

namespace {

constexpr std::uint32_t kKeysPerTrack = 4;
constexpr std::size_t kClipsKept = 2;
constexpr std::size_t kTrianglesKept = 48;
constexpr std::size_t kBvhFrames = 6;

std::size_t g_max_bytes = 65536;
std::map<std::string, int> g_count;

Bytes read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void emit(const fs::path& out, const std::string& target, const std::string& seed,
          const Bytes& bytes) {
  if (bytes.empty() || bytes.size() > g_max_bytes) return;
  fs::create_directories(out / target);
  std::ofstream f(out / target / seed, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ++g_count[target];
}

Bytes bytes_of(std::string_view s) {
  return Bytes(s.begin(), s.end());
}

// The first keys of each track (the clip's shape kept, its length cut).
marrow::Result<marrow::Clip> trim_clip(const marrow::Clip& clip) {
  marrow::ClipBuilder builder(clip.name());
  builder.set_ticks_per_second(clip.ticks_per_second());
  for (std::size_t t = 0; t < clip.tracks().size(); ++t) {
    const marrow::Track& track = clip.tracks()[t];
    const std::uint32_t keys = std::min(track.key_count, kKeysPerTrack);
    const std::uint32_t per_key = marrow::floats_per_key(track.target, track.interpolation);
    const auto times = clip.times().subspan(track.first_key, keys);
    const auto values = clip.values().subspan(track.first_value, std::size_t{keys} * per_key);
    if (marrow::Status s = builder.add_track(track.joint, clip.track_joint_names()[t], track.target,
                                             track.interpolation, times, values, clip.name());
        !s)
      return s.error();
  }
  for (const marrow::ClipEvent& e : clip.events()) builder.add_event(e.time, e.name);
  return builder.build(clip.joint_count(), clip.name());
}

// The first triangles of a mesh, with only the vertices they use.
marrow::SkinnedMesh trim_mesh(const marrow::SkinnedMesh& m) {
  marrow::SkinnedMesh r;
  r.name = m.name;
  r.node = m.node;
  r.skin = m.skin;
  const bool skinned = m.influence_offsets.size() == m.vertex_count() + 1;
  if (skinned) r.influence_offsets.push_back(0);
  std::unordered_map<std::uint32_t, std::uint32_t> new_index;
  const std::size_t corners = std::min(m.indices.size() / 3, kTrianglesKept) * 3;
  for (std::size_t c = 0; c < corners; ++c) {
    const std::uint32_t v = m.indices[c];
    auto [it, inserted] = new_index.try_emplace(v, static_cast<std::uint32_t>(r.positions.size()));
    if (inserted) {
      r.positions.push_back(m.positions[v]);
      if (!m.normals.empty()) r.normals.push_back(m.normals[v]);
      if (!m.tangents.empty()) r.tangents.push_back(m.tangents[v]);
      if (!m.uvs.empty()) r.uvs.push_back(m.uvs[v]);
      if (skinned) {
        for (std::uint32_t i = m.influence_offsets[v]; i < m.influence_offsets[v + 1]; ++i) {
          r.influence_joints.push_back(m.influence_joints[i]);
          r.influence_weights.push_back(m.influence_weights[i]);
        }
        r.influence_offsets.push_back(static_cast<std::uint32_t>(r.influence_joints.size()));
      }
    }
    r.indices.push_back(it->second);
  }
  return r;
}

Asset trim(const Asset& a) {
  Asset r;
  r.source = a.source;
  r.skeleton = a.skeleton;
  r.source_index = a.source_index;
  r.skins = a.skins;
  r.warnings = a.warnings;
  for (std::size_t c = 0; c < std::min(a.clips.size(), kClipsKept); ++c) {
    if (auto clip = trim_clip(a.clips[c])) r.clips.push_back(std::move(clip).value());
  }
  for (const marrow::SkinnedMesh& m : a.meshes) r.meshes.push_back(trim_mesh(m));
  return r;
}

void emit_asset_seeds(const fs::path& out, const std::string& stem, const Asset& full) {
  const Asset a = trim(full);
  if (auto glb = marrow::export_glb(a)) emit(out, "glb", stem + ".glb", *glb);
  if (auto gltf = marrow::export_gltf_embedded(a)) emit(out, "gltf_json", stem + ".gltf", *gltf);
  if (auto archive = marrow::archive_bytes(a)) {
    emit(out, "archive_raw", stem + ".marrow", *archive);
    emit(out, "archive_crc", stem + ".marrow", *archive);
  }
  // The same with each clip's compiled form (archive version 3), so the fuzzer reaches it.
  Asset compiled = a;
  for (const marrow::Clip& clip : a.clips) {
    auto c = marrow::CompiledClip::compile(clip, a.skeleton);
    compiled.compiled_clips.push_back(c ? std::optional(std::move(c).value()) : std::nullopt);
  }
  if (auto archive = marrow::archive_bytes(compiled); archive && !a.clips.empty()) {
    emit(out, "archive_raw", stem + "_compiled.marrow", *archive);
    emit(out, "archive_crc", stem + "_compiled.marrow", *archive);
  }
  if (!a.meshes.empty()) {
    const auto [obj, mtl] = marrow::fuzz::obj_and_mtl(a, stem + ".mtl");
    emit(out, "obj", stem + ".obj", bytes_of(obj));
    const Bytes mtl_bytes = bytes_of(mtl);
    emit(out, "obj", stem + "_with_mtl.obj",
         marrow::fuzz::join_file_set(bytes_of(obj), {{stem + ".mtl", mtl_bytes}}));
  }
}

void emit_x_seeds(const fs::path& out, const std::string& stem, const Bytes& text) {
  const std::string_view view(reinterpret_cast<const char*>(text.data()), text.size());
  if (text.size() >= 16) {
    // x_compressed's input: a selector byte (0: text, 32-bit) and what follows the header.
    Bytes z = marrow::fuzz::x_mszip(text, 4096);
    z.erase(z.begin(), z.begin() + 16);
    z.insert(z.begin(), std::uint8_t{0});
    emit(out, "x_compressed", stem + "_text.bin", z);
  }
  for (bool float64 : {false, true}) {
    const auto binary = marrow::fuzz::x_text_to_binary(view, float64);
    if (!binary) continue;
    const std::uint8_t selector = float64 ? 1 : 0;
    Bytes body(binary->begin() + 16, binary->end());
    body.insert(body.begin(), selector);
    emit(out, "x_binary", stem + (float64 ? "_64.bin" : "_32.bin"), body);
    Bytes z = marrow::fuzz::x_mszip(*binary, 8192);
    z.erase(z.begin(), z.begin() + 16);
    z.insert(z.begin(), static_cast<std::uint8_t>(1 | (float64 ? 2 : 0)));
    emit(out, "x_compressed", stem + (float64 ? "_bin64.bin" : "_bin32.bin"), z);
  }
}

// HIERARCHY and the first frames of MOTION.
Bytes trim_bvh(const Bytes& file) {
  std::string text(file.begin(), file.end());
  const std::size_t motion = text.find("MOTION");
  if (motion == std::string::npos) return file;
  std::istringstream in(text.substr(motion));
  std::string line, out = text.substr(0, motion);
  std::size_t frames = 0;
  bool in_frames = false;
  while (std::getline(in, line)) {
    if (line.rfind("Frames:", 0) == 0) {
      out += "Frames: " + std::to_string(kBvhFrames) + "\n";
      continue;
    }
    if (in_frames && frames++ == kBvhFrames) break;
    if (line.rfind("Frame Time:", 0) == 0) in_frames = true;
    out += line + "\n";
  }
  return Bytes(out.begin(), out.end());
}

// The committed seeds of the text targets, loaded as their targets read them, re-encoded for
// the other targets (and .X text into binary and MSZIP).
void emit_from_committed_seeds(const fs::path& out, const fs::path& seeds) {
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(seeds, ec)) {
    if (!e.is_regular_file()) continue;
    const std::string target = e.path().parent_path().filename().string();
    const std::string stem = "seed_" + e.path().stem().string();
    const Bytes bytes = read_bytes(e.path());
    const marrow::fuzz::FileSet set = marrow::fuzz::split_file_set(bytes);
    marrow::Result<Asset> asset = marrow::Error{};
    if (target == "x_text") {
      emit_x_seeds(out, stem, bytes);
      asset = marrow::load_asset(e.path().string());
    } else if (target == "bvh") {
      asset = marrow::read_bvh(
          std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "seed.bvh");
    } else if (target == "obj") {
      asset = marrow::read_obj(set.main, "seed.obj");
    } else if (target == "gltf_json") {
      asset = marrow::read_gltf(set.main, "seed.gltf", marrow::fuzz::write_file_set(set));
    }
    if (asset) emit_asset_seeds(out, stem, *asset);
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool parse_shard(const std::string& text, std::size_t& shard, std::size_t& shards) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  try {
    shard = std::stoul(text.substr(0, slash));
    shards = std::stoul(text.substr(slash + 1));
  } catch (const std::exception&) {
    return false;
  }
  return shards > 0 && shard < shards;
}

// The name a file's seeds are written under: files with one name (the same stem in folders of
// the same name) write the same seeds, so they must fall to the same shard.
std::string seed_stem(const fs::path& file) {
  return file.parent_path().filename().string() + "_" + file.stem().string();
}

std::vector<std::string> distinct_stems(const std::vector<fs::path>& files) {
  std::vector<std::string> stems;
  for (const fs::path& f : files) stems.push_back(seed_stem(f));
  std::sort(stems.begin(), stems.end());
  stems.erase(std::unique(stems.begin(), stems.end()), stems.end());
  return stems;
}

std::size_t stem_index(const std::vector<std::string>& stems, const std::string& stem) {
  return static_cast<std::size_t>(std::lower_bound(stems.begin(), stems.end(), stem) -
                                  stems.begin());
}

}  // namespace

// A motion-matching database (archive version 5's MOTN section) of the tests' hand-built walker:
// small, and the same on every machine.
void emit_motion_database_seed(const fs::path& out) {
  const marrow::Skeleton skeleton = marrow::test::walker_skeleton();
  const marrow::Clip ahead = marrow::test::walker_clip("ahead", 1.5f, {0, 0, 0}, {0, 0, 1.5f}, 0);
  const marrow::Clip turn = marrow::test::walker_clip("turn", 1.5f, {0, 0, 0}, {1, 0, 1}, 0, 1);
  const std::vector<marrow::MotionClipDesc> clips = {{&ahead}, {&turn}};
  auto database = marrow::MotionDatabase::build(skeleton, clips, marrow::test::walker_schema());
  if (!database) return;
  if (auto bytes = marrow::motion_database_bytes(**database))
    emit(out, "archive_crc", "walker_motion_database.marrow", *bytes);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SHARED_DIR OUT_DIR [MAX_BYTES [SEEDS_DIR [SHARD/SHARDS]]]\n",
                 argv[0]);
    return 2;
  }
  const fs::path shared = argv[1], out = argv[2];
  if (argc > 3) g_max_bytes = std::stoul(argv[3]);
  std::size_t shard = 0, shards = 1;
  if (argc > 5 && !parse_shard(argv[5], shard, shards)) {
    std::fprintf(stderr, "%s: '%s' is not SHARD/SHARDS with SHARD < SHARDS\n", argv[0], argv[5]);
    return 2;
  }
  if (argc > 4 && shard == 0) emit_from_committed_seeds(out, argv[4]);
  if (shard == 0) emit_motion_database_seed(out);
  const fs::path assets = shared / "assets";
  std::vector<fs::path> files;
  if (fs::is_directory(assets)) {
    for (const auto& e : fs::recursive_directory_iterator(assets))
      if (e.is_regular_file()) files.push_back(e.path());
  } else {
    std::fprintf(stderr, "%s: no assets folder under %s: seeds come from %s alone\n", argv[0],
                 shared.c_str(), argc > 4 ? argv[4] : "the committed seeds");
  }
  std::sort(files.begin(), files.end());
  const std::vector<std::string> stems = distinct_stems(files);
  for (const fs::path& file : files) {
    const std::string stem = seed_stem(file);
    if (stem_index(stems, stem) % shards != shard) continue;
    const std::string ext = lower(file.extension().string());
    if (ext == ".x") emit_x_seeds(out, stem, read_bytes(file));
    if (ext == ".bvh") emit(out, "bvh", stem + ".bvh", trim_bvh(read_bytes(file)));
    if (ext == ".gltf") {
      // The document with the files its buffers name (those beside it), as one file set.
      const Bytes json = read_bytes(file);
      const std::string json_text(json.begin(), json.end());
      std::vector<std::pair<std::string, Bytes>> buffers;
      for (const auto& e : fs::directory_iterator(file.parent_path())) {
        const std::string name = e.path().filename().string();
        if (lower(e.path().extension().string()) == ".bin" &&
            json_text.find(name) != std::string::npos)
          buffers.emplace_back(name, read_bytes(e.path()));
      }
      std::vector<marrow::fuzz::InputFile> others;
      for (const auto& [name, bytes] : buffers) others.push_back({name, bytes});
      emit(out, "gltf_json", stem + "_files.gltf", marrow::fuzz::join_file_set(json, others));
    }
    if (ext == ".png" || ext == ".jpg" || ext == ".md" || ext == ".bin") continue;
    marrow::Result<Asset> asset = marrow::load_asset(file.string());
    if (asset) emit_asset_seeds(out, stem, *asset);
  }
  for (const auto& [target, n] : g_count) std::printf("%s: %d derived seeds\n", target.c_str(), n);
  return 0;
}
