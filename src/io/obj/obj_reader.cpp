// OBJ through tinyobjloader. tinyobjloader accepts what it cannot parse (a bad number reads as
// 0, an out-of-range face index only gives a warning without its line), so a short pass of our
// own checks every v/vn/vt number and every face reference first and reports the line. That
// pass splits lines by the rule tinyobjloader uses too (LF, CRLF and a lone CR each end a line;
// io/common/text_lines.h), so no line reaches tinyobjloader unchecked.
#include <tiny_obj_loader.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/budget.h"
#include "common/reader_support.h"
#include "common/text_lines.h"
#include "io/common/float_chars.h"
#include "marrow/io/obj.h"

namespace marrow {
namespace {

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// A number tinyobjloader will store as a finite float: 1e97 is a finite double but infinity
// as a float.
bool parse_number(std::string_view s, double& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto [ptr, ec] = io::parse_floating(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() &&
         std::fabs(out) <= std::numeric_limits<float>::max();
}

// tinyobjloader assembles a number as mantissa x 5^e x 2^e: an exponent past about 440 gives
// infinity, and 0 x infinity NaN, whatever the number's value ("0.e500" is 0). Exponents beyond
// this are refused rather than read wrong.
constexpr long kMaxExponent = 300;

bool exponent_beyond_limit(std::string_view s) {
  const std::size_t e = s.find_first_of("eE");
  if (e == std::string_view::npos) return false;
  std::string_view digits = s.substr(e + 1);
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) digits.remove_prefix(1);
  while (!digits.empty() && digits.front() == '0') digits.remove_prefix(1);
  long exponent = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
  return ec != std::errc() || exponent > kMaxExponent;
}

bool parse_index(std::string_view s, long long& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// The checks tinyobjloader leaves out. Returns an error naming name:line, or nothing.
std::optional<Error> prevalidate(std::string_view text, const std::string& name) {
  long long counts[3] = {0, 0, 0};  // v, vt, vn
  // tinyobjloader triangulates a face of k corners by ear clipping, in about k^2 steps: one
  // 3.5 MB face of 200,000 corners took 88 s. The faces' k^2 are held to the document budget's
  // rule (64 per input byte + 64 Mi), as allocations are; ordinary meshes spend 9 or 16 a face.
  const std::uint64_t work_limit = io::DocumentBudget::limit_for(text.size());
  std::uint64_t work = 0;
  io::LineSplitter lines(text);
  while (const std::optional<io::TextLine> next = lines.next()) {
    std::string_view line = next->text;
    const std::size_t line_number = next->number;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    const std::vector<std::string_view> t = tokens(line);
    if (t.empty()) continue;
    const std::string where = name + ":" + std::to_string(line_number);
    auto numbers = [&](std::size_t least, std::size_t most,
                       const char* what) -> std::optional<Error> {
      if (t.size() - 1 < least)
        return make_error(where, std::string(what) + " needs at least " + std::to_string(least) +
                                     " numbers, got " + std::to_string(t.size() - 1));
      for (std::size_t i = 1; i < t.size() && i <= most; ++i) {
        double v = 0;
        if (!parse_number(t[i], v))
          return make_error(where, std::string(what) + ": '" + std::string(t[i]) +
                                       "' is not a finite number a float can hold");
        if (exponent_beyond_limit(t[i]))
          return make_error(where, std::string(what) + ": '" + std::string(t[i]) +
                                       "' has an exponent beyond " + std::to_string(kMaxExponent) +
                                       ", which the OBJ parser cannot read");
      }
      return std::nullopt;
    };
    if (t[0] == "v") {
      if (auto e = numbers(3, 3, "vertex position")) return e;
      ++counts[0];
    } else if (t[0] == "vt") {
      if (auto e = numbers(1, 2, "texture coordinate")) return e;
      ++counts[1];
    } else if (t[0] == "vn") {
      if (auto e = numbers(3, 3, "normal")) return e;
      ++counts[2];
    } else if (t[0] == "f") {
      if (t.size() < 4)
        return make_error(where,
                          "a face needs at least 3 vertices, got " + std::to_string(t.size() - 1));
      const std::uint64_t corners = t.size() - 1;
      work += corners * corners;
      if (work > work_limit)
        return make_error(where, "a face of " + std::to_string(corners) +
                                     " corners: triangulating the faces so far would take " +
                                     std::to_string(work) + " steps, more than the " +
                                     std::to_string(work_limit) + " marrow allows a document of " +
                                     std::to_string(text.size()) +
                                     " bytes (corners squared per face; 64 per input byte + " +
                                     "64 Mi)");
      for (std::size_t i = 1; i < t.size(); ++i) {
        std::string_view corner = t[i];
        static const char* kinds[3] = {"vertex", "texture coordinate", "normal"};
        for (int k = 0; k < 3 && !corner.empty(); ++k) {
          const std::size_t slash = corner.find('/');
          const std::string_view part = corner.substr(0, slash);
          corner = slash == std::string_view::npos ? std::string_view() : corner.substr(slash + 1);
          if (part.empty()) {
            if (k == 0)
              return make_error(where,
                                "face corner '" + std::string(t[i]) + "' has no vertex index");
            continue;
          }
          long long index = 0;
          if (!parse_index(part, index))
            return make_error(where, "face corner '" + std::string(t[i]) + "': '" +
                                         std::string(part) + "' is not an index");
          const long long resolved = index < 0 ? counts[k] + index + 1 : index;
          if (index == 0 || resolved < 1 || resolved > counts[k])
            return make_error(where, "face corner '" + std::string(t[i]) + "': " + kinds[k] +
                                         " index " + std::to_string(index) + " is out of range (" +
                                         std::to_string(counts[k]) + " defined so far)");
        }
      }
    }
  }
  return std::nullopt;
}

std::string root_name(const std::string& name) {
  const std::string stem = std::filesystem::path(name).stem().string();
  return stem.empty() ? std::string("obj") : stem;
}

void add_lines_as_warnings(const std::string& text, const std::string& name, Asset& asset) {
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    if (!line.empty()) asset.warnings.push_back(name + ": " + line);
  }
}

// The first `mtllib` file named in the text, read from `base_dir` (at most 16 MiB); "" when
// there is none or it cannot be read (a warning says which).
std::string material_library(const std::string& text, const std::string& base_dir,
                             const std::string& name, std::string& mtl_path,
                             std::vector<std::string>& warnings) {
  io::LineSplitter lines(text);
  while (const std::optional<io::TextLine> next = lines.next()) {
    const std::string_view line = next->text;
    if (line.rfind("mtllib", 0) != 0 || line.size() < 8 || (line[6] != ' ' && line[6] != '\t'))
      continue;
    std::string file(line.substr(7));
    while (!file.empty() && (file.back() == ' ' || file.back() == '\t')) file.pop_back();
    while (!file.empty() && file.front() == ' ') file.erase(0, 1);
    const std::filesystem::path path = std::filesystem::path(base_dir) / file;
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    std::ifstream in(path, std::ios::binary);
    if (ec || size > (16u << 20) || !in) {
      warnings.push_back(name + ": material library '" + path.string() +
                         "' cannot be read; materials ignored");
      return "";
    }
    mtl_path = path.string();
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  return "";
}

// An .mtl texture as an image beside the library (shared by path), with its -clamp, -o and -s
// options as wrap modes and a texture transform; none for an empty name.
TextureRef mtl_texture(const std::string& texname, const tinyobj::texture_option_t& option,
                       const std::string& mtl_path, const std::string& what, Asset& asset) {
  TextureRef ref;
  if (texname.empty()) return ref;
  const std::string path = io::image_path_beside(mtl_path, texname, what, asset.warnings);
  for (std::size_t i = 0; i < asset.images.size() && ref.image < 0; ++i)
    if (asset.images[i].path == path) ref.image = static_cast<int>(i);
  if (ref.image < 0) {
    ref.image = static_cast<int>(asset.images.size());
    asset.images.push_back({texname, path, {}, ""});
  }
  if (option.clamp) ref.wrap_u = ref.wrap_v = TextureWrap::kClampToEdge;
  const TextureTransform t{
      {static_cast<float>(option.origin_offset[0]), static_cast<float>(option.origin_offset[1])},
      0,
      {static_cast<float>(option.scale[0]), static_cast<float>(option.scale[1])}};
  const bool finite = std::isfinite(t.offset[0]) && std::isfinite(t.offset[1]) &&
                      std::isfinite(t.scale[0]) && std::isfinite(t.scale[1]);
  if (finite && t != TextureTransform{}) ref.transform = t;
  return ref;
}

// Whether an .mtl option argument is a number as the parser reads one (sign, digits, point,
// exponent), so a file name such as "2d.png" is not taken for one.
bool is_option_number(std::string_view token) {
  if (!token.empty() && (token[0] == '+' || token[0] == '-')) token.remove_prefix(1);
  if (token.empty() || !(std::isdigit(static_cast<unsigned char>(token[0])) || token[0] == '.'))
    return false;
  double value = 0;
  const auto [end, ec] = io::parse_floating(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size();
}

// The .mtl texture options -o, -s and -t take one to three numbers and -mm one or two, but
// tinyobjloader always reads three (two for -mm), taking the file name for the missing ones and
// losing the texture. The missing values are written in with the format's defaults (0 for -o
// and -t, 1 for -s, contrast 1 for -mm), so the parser reads what the file says.
std::string complete_texture_options(const std::string& mtl) {
  static const std::unordered_map<std::string_view, std::vector<std::string_view>> kDefaults = {
      {"-o", {"0", "0", "0"}},
      {"-s", {"1", "1", "1"}},
      {"-t", {"0", "0", "0"}},
      {"-mm", {"0", "1"}}};
  std::string out;
  std::size_t copied = 0;
  io::LineSplitter lines(mtl);
  while (const std::optional<io::TextLine> next = lines.next()) {
    const std::string_view line = next->text;
    std::vector<std::string_view> words;
    for (std::size_t at = 0; (at = line.find_first_not_of(" \t", at)) != line.npos;) {
      const std::size_t end = std::min(line.find_first_of(" \t", at), line.size());
      words.push_back(line.substr(at, end - at));
      at = end;
    }
    if (words.empty() ||
        !(words[0].rfind("map_", 0) == 0 || words[0] == "bump" || words[0] == "norm" ||
          words[0] == "disp" || words[0] == "decal" || words[0] == "refl"))
      continue;
    for (std::size_t w = 1; w < words.size(); ++w) {
      const auto option = kDefaults.find(words[w]);
      if (option == kDefaults.end()) continue;
      std::size_t given = 0;
      while (given < option->second.size() && w + 1 + given < words.size() &&
             is_option_number(words[w + 1 + given]))
        ++given;
      if (given == option->second.size()) continue;
      const std::string_view last = words[w + given];
      const std::size_t at = static_cast<std::size_t>(last.data() + last.size() - mtl.data());
      out.append(mtl, copied, at - copied);
      for (std::size_t d = given; d < option->second.size(); ++d)
        out.append(" ").append(option->second[d]);
      copied = at;
      w += given;
    }
  }
  return out.append(mtl, copied, mtl.npos);
}

// Which of Pr and Pm (the .mtl PBR extension's roughness and metalness) each material states, in
// the order the parser lists materials. The parser reads an absent one as 0, which is a value
// (a mirror, a metal), so presence comes from the text.
std::vector<std::set<std::string>> pbr_statements(const std::string& mtl) {
  static const std::set<std::string_view> kWords = {"Pr", "Pm"};
  std::vector<std::set<std::string>> found;
  bool named = false;
  io::LineSplitter lines(mtl);
  while (const std::optional<io::TextLine> next = lines.next()) {
    std::string_view line = next->text;
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    const std::string_view word = line.substr(0, line.find_first_of(" \t"));
    if (word == "newmtl") {
      // The parser trims the line, so a newmtl without a name is no statement at all.
      if (line.find_first_not_of(" \t", word.size()) == std::string_view::npos) continue;
      named = true;
      found.emplace_back();
    } else if (named && kWords.count(word) != 0 && word.size() < line.size()) {
      found.back().emplace(word);
    }
  }
  return found;
}

// OBJ materials as marrow keeps them: Kd as the base colour, d below 1 as blending, Ke as the
// emissive colour, Pr and Pm (where stated) as roughness and metalness; map_Kd, map_Ke and norm
// (else map_Bump, which exporters such as Blender use for normal maps) as the base-colour,
// emissive and normal textures, beside the .mtl. What else a library holds (specular, ambient,
// alpha, roughness and other maps; sheen, clearcoat, anisotropy) is named in one note.
void add_materials(const std::vector<tinyobj::material_t>& materials, const std::string& mtl_text,
                   const std::string& mtl_path, Asset& asset) {
  std::set<std::string> not_kept;
  std::vector<std::set<std::string>> stated = pbr_statements(mtl_text);
  if (stated.size() != materials.size()) stated.assign(materials.size(), {});
  for (std::size_t i = 0; i < materials.size(); ++i) {
    const tinyobj::material_t& m = materials[i];
    Material material;
    material.name = m.name;
    const std::string what = mtl_path + ": material " + io::quote_token(m.name);
    // In [0, 1]; a value the parser made infinite or NaN (an .mtl is not prevalidated) is 1.
    auto unit = [](double v) {
      return std::isfinite(v) ? std::clamp(static_cast<float>(v), 0.0f, 1.0f) : 1.0f;
    };
    const float d = unit(m.dissolve);
    material.base_color_factor = {unit(m.diffuse[0]), unit(m.diffuse[1]), unit(m.diffuse[2]), d};
    if (d < 1) material.alpha_mode = AlphaMode::kBlend;
    for (int c = 0; c < 3; ++c)
      material.emissive_factor[c] = std::isfinite(m.emission[c]) ? unit(m.emission[c]) : 0.0f;
    if (stated[i].count("Pr") != 0) material.roughness_factor = unit(m.roughness);
    if (stated[i].count("Pm") != 0) material.metallic_factor = unit(m.metallic);
    // The extension's other effects have no place in marrow's material; at 0 (what exporters
    // write for none, and the parser's absent) they add nothing, so only one in use is named.
    const std::pair<const char*, double> effects[] = {
        {"Ps", m.sheen}, {"Pc", m.clearcoat_thickness}, {"aniso", m.anisotropy}};
    for (const auto& [key, value] : effects)
      if (value != 0) not_kept.insert(key);
    material.base_color = mtl_texture(m.diffuse_texname, m.diffuse_texopt, mtl_path, what, asset);
    material.emissive = mtl_texture(m.emissive_texname, m.emissive_texopt, mtl_path, what, asset);
    if (material.emissive.present() && material.emissive_factor == std::array<float, 3>{0, 0, 0})
      material.emissive_factor = {1, 1, 1};
    material.normal = !m.normal_texname.empty()
                          ? mtl_texture(m.normal_texname, m.normal_texopt, mtl_path, what, asset)
                          : mtl_texture(m.bump_texname, m.bump_texopt, mtl_path, what, asset);
    const std::pair<const char*, const std::string*> others[] = {
        {"map_Ka", &m.ambient_texname},
        {"map_Ks", &m.specular_texname},
        {"map_Ns", &m.specular_highlight_texname},
        {"map_d", &m.alpha_texname},
        {"disp", &m.displacement_texname},
        {"refl", &m.reflection_texname},
        {"map_Pr", &m.roughness_texname},
        {"map_Pm", &m.metallic_texname},
        {"map_Ps", &m.sheen_texname}};
    for (const auto& [key, texname] : others)
      if (!texname->empty()) not_kept.insert(key);
    asset.materials.push_back(std::move(material));
  }
  if (!not_kept.empty()) {
    std::string keys;
    for (const std::string& k : not_kept) keys += (keys.empty() ? "" : ", ") + k;
    asset.warnings.push_back(
        mtl_path + ": " + keys +
        " not kept (marrow keeps Kd, d, Ke, Pr, Pm, map_Kd, map_Ke and the normal map)");
  }
}

Result<Asset> build(const tinyobj::ObjReader& reader, const std::string& name,
                    const std::string& mtl_text, const std::string& mtl_path,
                    io::DocumentBudget& budget) {
  Asset asset;
  asset.source = name;
  const JointDesc root{root_name(name), -1, Transform::identity()};
  Result<Skeleton> skeleton = Skeleton::build(std::span(&root, 1), name);
  if (!skeleton) return skeleton.error();
  asset.skeleton = std::move(skeleton).value();
  asset.source_index = {-1};
  add_lines_as_warnings(reader.Warning(), name, asset);
  add_materials(reader.GetMaterials(), mtl_text, mtl_path, asset);

  const tinyobj::attrib_t& attrib = reader.GetAttrib();
  // What prevalidate() cannot foresee of the parser's arithmetic, checked on what it produced.
  const std::pair<const char*, const std::vector<tinyobj::real_t>*> arrays[] = {
      {"vertex position", &attrib.vertices},
      {"normal", &attrib.normals},
      {"texture coordinate", &attrib.texcoords}};
  for (const auto& [what, values] : arrays) {
    for (tinyobj::real_t v : *values)
      if (!std::isfinite(v))
        return Error{name + ": a " + what + " is not finite as the OBJ parser read it"};
  }
  const auto& shapes = reader.GetShapes();
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const tinyobj::mesh_t& m = shapes[s].mesh;
    const std::string shape_name =
        shapes[s].name.empty() ? "shape_" + std::to_string(s) : shapes[s].name;
    if (!shapes[s].lines.indices.empty() || !shapes[s].points.indices.empty())
      asset.warnings.push_back(name + ": '" + shape_name + "': lines and points are skipped");
    if (m.indices.empty()) continue;
    // Per face corner: an index, at most one vertex (position, normal, UV) and its map entry.
    if (Status st = budget.try_charge(io::DocumentBudget::times(m.indices.size(), 4 + 32 + 48),
                                      name + ": '" + shape_name + "'");
        !st) {
      return st.error();
    }
    for (unsigned char fv : m.num_face_vertices) {
      if (fv != 3) return Error{name + ": '" + shape_name + "': a face was not triangulated"};
    }
    SkinnedMesh mesh;
    mesh.name = shape_name;
    mesh.node = 0;
    // One material per mesh: the first face's (a shape that mixes them is said so).
    if (!m.material_ids.empty() && m.material_ids[0] >= 0 &&
        static_cast<std::size_t>(m.material_ids[0]) < asset.materials.size()) {
      mesh.material = m.material_ids[0];
      for (int id : m.material_ids) {
        if (id != mesh.material) {
          asset.warnings.push_back(name + ": '" + shape_name +
                                   "' uses several materials; drawn in the first");
          break;
        }
      }
    }
    bool all_normals = true, all_uvs = true;
    for (const tinyobj::index_t& i : m.indices) {
      all_normals = all_normals && i.normal_index >= 0;
      all_uvs = all_uvs && i.texcoord_index >= 0;
    }
    bool any_normals = false, any_uvs = false;
    for (const tinyobj::index_t& i : m.indices) {
      any_normals = any_normals || i.normal_index >= 0;
      any_uvs = any_uvs || i.texcoord_index >= 0;
    }
    if (any_normals && !all_normals)
      asset.warnings.push_back(name + ": '" + shape_name +
                               "': some faces have normals and some not; normals dropped");
    if (any_uvs && !all_uvs)
      asset.warnings.push_back(name + ": '" + shape_name +
                               "': some faces have UVs and some not; UVs dropped");
    // One vertex per distinct (position, uv, normal) corner.
    struct Key {
      int v, t, n;
      bool operator==(const Key&) const = default;
    };
    struct KeyHash {
      std::size_t operator()(const Key& k) const {
        return (std::size_t(std::uint32_t(k.v)) * 73856093u) ^
               (std::size_t(std::uint32_t(k.t)) * 19349663u) ^
               (std::size_t(std::uint32_t(k.n)) * 83492791u);
      }
    };
    std::unordered_map<Key, std::uint32_t, KeyHash> vertex_of;
    for (const tinyobj::index_t& i : m.indices) {
      const Key key{i.vertex_index, all_uvs ? i.texcoord_index : -1,
                    all_normals ? i.normal_index : -1};
      auto [it, inserted] =
          vertex_of.try_emplace(key, static_cast<std::uint32_t>(mesh.positions.size()));
      if (inserted) {
        const std::size_t v = static_cast<std::size_t>(key.v);
        if (key.v < 0 || 3 * v + 2 >= attrib.vertices.size())
          return Error{name + ": '" + shape_name + "': vertex index out of range"};
        mesh.positions.push_back(
            {attrib.vertices[3 * v], attrib.vertices[3 * v + 1], attrib.vertices[3 * v + 2]});
        if (all_normals) {
          const std::size_t n = static_cast<std::size_t>(key.n);
          if (3 * n + 2 >= attrib.normals.size())
            return Error{name + ": '" + shape_name + "': normal index out of range"};
          mesh.normals.push_back(
              {attrib.normals[3 * n], attrib.normals[3 * n + 1], attrib.normals[3 * n + 2]});
        }
        if (all_uvs) {
          const std::size_t t = static_cast<std::size_t>(key.t);
          if (2 * t + 1 >= attrib.texcoords.size())
            return Error{name + ": '" + shape_name + "': texture coordinate index out of range"};
          // OBJ's v runs up from the bottom of the image, glTF's (and ours) down from the top.
          mesh.uvs.push_back({attrib.texcoords[2 * t], 1.0f - attrib.texcoords[2 * t + 1]});
        }
      }
      mesh.indices.push_back(it->second);
    }
    asset.meshes.push_back(std::move(mesh));
  }
  return asset;
}

// Materials come from the first `mtllib` beside the file (`usemtl` picks them per face).
Result<Asset> parse(const std::string& text, const std::string& name) {
  io::DocumentBudget budget(text.size());
  if (std::optional<Error> e = prevalidate(text, name)) return *e;
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  std::string mtl_path;
  std::vector<std::string> mtl_warnings;
  const std::string mtl = material_library(text, std::filesystem::path(name).parent_path().string(),
                                           name, mtl_path, mtl_warnings);
  const bool ok = reader.ParseFromString(text, complete_texture_options(mtl), config);
  if (!ok || !reader.Error().empty()) {
    std::string err = reader.Error();
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    return Error{name + ": " + (err.empty() ? std::string("cannot parse") : err)};
  }
  Result<Asset> asset = build(reader, name, mtl, mtl_path, budget);
  if (asset)
    asset->warnings.insert(asset->warnings.end(), mtl_warnings.begin(), mtl_warnings.end());
  return asset;
}

}  // namespace

Result<Asset> read_obj(std::span<const std::uint8_t> bytes, const std::string& name) {
  const std::string text(bytes.begin(), bytes.end());
  return parse(text, name);
}

Result<Asset> read_obj(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  return read_obj(*bytes, path);
}

}  // namespace marrow
