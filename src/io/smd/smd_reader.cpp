// Valve SMD → Asset. The file is read line by line (LF, CRLF and lone CR alike): `version`,
// then sections that each end with `end`:
//   nodes      <id> "<name>" <parent id>             ids need not be sequential; -1: no parent
//   skeleton   time <n>, then <id> <px py pz> <rx ry rz> per bone (position relative to the
//              parent; Euler angles in radians, R = Rz(rz) Ry(ry) Rx(rx), X applied first, as
//              Valve's mathlib builds a matrix from a RadianEuler); a bone a frame leaves out
//              keeps its value from the frame before, and frames are numbered without gaps
//   triangles  a material line, then three vertex lines:
//              <parent> <px py pz> <nx ny nz> <u v> [<links> (<bone> <weight>)...]
//              in model space at the reference pose; no links means all weight on <parent>
//   vertexanimation (flex shapes): skipped with a warning
// Lines starting with //, # or ; are comments. Errors are thrown as SmdError naming file:line.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <unordered_map>

#include "common/budget.h"
#include "common/reader_support.h"
#include "common/text_lines.h"
#include "io/common/float_chars.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/smd.h"

namespace marrow {
namespace {

class SmdError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NodeRec {
  std::int64_t id = 0;
  std::string name;
  std::int64_t parent = -1;
  std::size_t line = 0;
};

struct BonePose {
  Vec3 position;
  Vec3 angles;  // radians, x y z
};

struct FrameRec {
  std::int64_t time = 0;
  std::size_t line = 0;
  std::vector<BonePose> pose;  // per node (index in `nodes`), filled from the frame before
};

struct VertexRec {
  Vec3 position, normal;
  float u = 0, v = 0;
  std::vector<std::pair<std::uint32_t, float>> links;  // node index, weight (normalized)
};

struct TriangleRec {
  std::size_t material = 0;
  VertexRec corners[3];
};

struct Document {
  std::vector<NodeRec> nodes;
  std::unordered_map<std::int64_t, std::uint32_t> node_of_id;
  std::vector<FrameRec> frames;
  std::size_t skeleton_line = 0;
  std::vector<std::string> materials;
  std::vector<TriangleRec> triangles;
  bool has_triangles = false;
};

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

// The words of a line; a "quoted name" is one word (without its quotes).
std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i >= line.size()) break;
    if (line[i] == '"') {
      const std::size_t close = line.find('"', i + 1);
      const std::size_t end = close == std::string_view::npos ? line.size() : close;
      out.push_back(line.substr(i + 1, end - i - 1));
      i = end + 1;
      continue;
    }
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

bool is_comment(std::string_view s) {
  return s.rfind("//", 0) == 0 || s.rfind("#", 0) == 0 || s.rfind(";", 0) == 0;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file, io::DocumentBudget& budget)
      : lines_(text), file_(file), budget_(budget) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") lines_ = io::LineSplitter(text, 3);
  }

  Document parse() {
    std::optional<io::TextLine> line = next();
    if (!line) fail(lines_.last_line(), "the file is empty (expected 'version 1')");
    std::vector<std::string_view> w = words_of(line->text);
    if (w[0] != "version") fail(line->number, "expected 'version 1', found " + quote(line->text));
    const std::int64_t version = integer(w, 1, *line, "the version", 1, 2);
    if (w.size() > 2)
      fail(line->number, "unexpected " + io::quote_token(w[2]) + " after the version");
    (void)version;  // studiomdl reads versions 1 and 2 alike
    bool has_nodes = false;
    while ((line = next())) {
      w = words_of(line->text);
      if (w.size() != 1)
        fail(line->number,
             "expected a section (nodes, skeleton, triangles), found " + quote(line->text));
      if (w[0] == "nodes") {
        if (has_nodes) fail(line->number, "a second nodes section");
        has_nodes = true;
        read_nodes(line->number);
      } else if (w[0] == "skeleton") {
        if (!has_nodes) fail(line->number, "skeleton before nodes");
        if (doc_.skeleton_line) fail(line->number, "a second skeleton section");
        doc_.skeleton_line = line->number;
        read_skeleton();
      } else if (w[0] == "triangles") {
        if (!has_nodes) fail(line->number, "triangles before nodes");
        doc_.has_triangles = true;
        read_triangles(line->number);
      } else if (w[0] == "vertexanimation") {
        warnings.push_back(where(line->number) + ": vertexanimation (flex shapes) is not read");
        skip_section(line->number);
      } else {
        fail(line->number, "unknown section " + io::quote_token(w[0]) +
                               " (expected nodes, skeleton, triangles or vertexanimation)");
      }
    }
    if (!has_nodes) fail(lines_.last_line(), "the file has no nodes section");
    return std::move(doc_);
  }

  std::vector<std::string> warnings;

 private:
  std::string where(std::size_t line) const { return file_ + ":" + std::to_string(line); }
  [[noreturn]] void fail(std::size_t line, const std::string& what) const {
    throw SmdError(where(line) + ": " + what);
  }
  static std::string quote(std::string_view s) { return io::quote_token(trimmed(s)); }

  // The next line that is neither blank nor a comment.
  std::optional<io::TextLine> next() {
    while (std::optional<io::TextLine> line = lines_.next()) {
      line->text = trimmed(line->text);
      if (line->text.empty() || is_comment(line->text)) continue;
      return line;
    }
    return std::nullopt;
  }

  // The next line of a section, which must come before the end of the file.
  io::TextLine section_line(std::size_t opened, const char* section) {
    std::optional<io::TextLine> line = next();
    if (!line) {
      fail(lines_.last_line(), std::string("the file ends inside the ") + section +
                                   " section opened on line " + std::to_string(opened) +
                                   " (missing 'end')");
    }
    return *line;
  }

  std::int64_t integer(const std::vector<std::string_view>& w, std::size_t i,
                       const io::TextLine& line, const char* what, std::int64_t min,
                       std::int64_t max) const {
    if (i >= w.size())
      fail(line.number, std::string("expected ") + what + ", found the end of the line");
    std::int64_t v = 0;
    const char* end = w[i].data() + w[i].size();
    const auto [ptr, ec] = std::from_chars(w[i].data(), end, v);
    if (ec != std::errc() || ptr != end) {
      fail(line.number,
           std::string("expected ") + what + " (a whole number), found " + io::quote_token(w[i]));
    }
    if (v < min || v > max) {
      fail(line.number, std::string(what) + " " + std::to_string(v) + " is out of range (" +
                            std::to_string(min) + " to " + std::to_string(max) + ")");
    }
    return v;
  }

  float real(const std::vector<std::string_view>& w, std::size_t i, const io::TextLine& line,
             const char* what) const {
    if (i >= w.size())
      fail(line.number, std::string("expected ") + what + ", found the end of the line");
    std::string_view s = w[i];
    if (s.size() > 1 && s[0] == '+') s.remove_prefix(1);
    double v = 0;
    const char* end = s.data() + s.size();
    const auto [ptr, ec] = io::parse_floating(s.data(), end, v);
    if (ptr != end || s.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      fail(line.number,
           std::string("expected ") + what + " (a number), found " + io::quote_token(w[i]));
    }
    if (ec != std::errc() || !std::isfinite(v) ||
        std::fabs(v) > std::numeric_limits<float>::max()) {
      fail(line.number, std::string(what) + " " + io::quote_token(w[i]) + " is not a finite float");
    }
    return static_cast<float>(v);
  }

  Vec3 vec3(const std::vector<std::string_view>& w, std::size_t i, const io::TextLine& line,
            const char* what) const {
    return {real(w, i, line, what), real(w, i + 1, line, what), real(w, i + 2, line, what)};
  }

  std::uint32_t node(std::int64_t id, const io::TextLine& line, const char* what) const {
    const auto it = doc_.node_of_id.find(id);
    if (it == doc_.node_of_id.end()) {
      fail(line.number, std::string(what) + " " + std::to_string(id) + " is not a node");
    }
    return it->second;
  }

  void read_nodes(std::size_t opened) {
    constexpr std::int64_t kMaxId = std::numeric_limits<std::int32_t>::max();
    for (;;) {
      const io::TextLine line = section_line(opened, "nodes");
      const std::vector<std::string_view> w = words_of(line.text);
      if (w.size() == 1 && w[0] == "end") break;
      if (w.size() != 3) {
        fail(line.number, "a node is <id> \"<name>\" <parent id>, found " + quote(line.text));
      }
      if (doc_.nodes.size() >= kMaxJoints) {
        fail(line.number,
             "more than the " + std::to_string(kMaxJoints) + " nodes a skeleton can index");
      }
      budget_.charge(sizeof(NodeRec) + w[1].size() + 64, [&] { return where(line.number); });
      NodeRec n;
      n.id = integer(w, 0, line, "a node id", 0, kMaxId);
      n.name = std::string(w[1]);
      n.parent = integer(w, 2, line, "a parent id", -1, kMaxId);
      n.line = line.number;
      if (!doc_.node_of_id.emplace(n.id, static_cast<std::uint32_t>(doc_.nodes.size())).second) {
        fail(line.number, "node id " + std::to_string(n.id) + " is used twice");
      }
      doc_.nodes.push_back(std::move(n));
    }
    for (const NodeRec& n : doc_.nodes) {
      if (n.parent >= 0 && !doc_.node_of_id.count(n.parent)) {
        fail(n.line, "node " + std::to_string(n.id) + " '" + n.name + "' has parent " +
                         std::to_string(n.parent) + ", which is not a node");
      }
    }
  }

  void read_skeleton() {
    const std::size_t bones = doc_.nodes.size();
    std::vector<bool> given;  // per node, in the frame being read
    for (;;) {
      const io::TextLine line = section_line(doc_.skeleton_line, "skeleton");
      const std::vector<std::string_view> w = words_of(line.text);
      if (w.size() == 1 && w[0] == "end") break;
      if (w[0] == "time") {
        const std::int64_t t =
            integer(w, 1, line, "a frame number", std::numeric_limits<std::int32_t>::min(),
                    std::numeric_limits<std::int32_t>::max());
        if (w.size() > 2)
          fail(line.number, "unexpected " + io::quote_token(w[2]) + " after the frame number");
        if (!doc_.frames.empty() && t != doc_.frames.back().time + 1) {
          fail(line.number, "time " + std::to_string(t) + " follows time " +
                                std::to_string(doc_.frames.back().time) +
                                " (frames are numbered in order, without gaps)");
        }
        // Each frame is a whole pose, copied from the one before: what a file of many short
        // `time` lines and many nodes would cost is charged here.
        budget_.charge(bones, 2 * sizeof(BonePose) + 8, [&] { return where(line.number); });
        FrameRec f;
        f.time = t;
        f.line = line.number;
        f.pose = doc_.frames.empty() ? std::vector<BonePose>(bones) : doc_.frames.back().pose;
        doc_.frames.push_back(std::move(f));
        given.assign(bones, false);
        continue;
      }
      if (doc_.frames.empty()) fail(line.number, "a bone's pose before the first 'time' line");
      if (w.size() != 7) {
        fail(line.number, "a bone's pose is <id> <px py pz> <rx ry rz>, found " + quote(line.text));
      }
      const std::uint32_t n =
          node(integer(w, 0, line, "a node id", 0, std::numeric_limits<std::int32_t>::max()), line,
               "node id");
      if (given[n])
        fail(line.number, "node " + std::string(w[0]) + " is posed twice in this frame");
      given[n] = true;
      doc_.frames.back().pose[n] = {vec3(w, 1, line, "a position"), vec3(w, 4, line, "an angle")};
    }
  }

  VertexRec read_vertex(std::size_t opened) {
    const io::TextLine line = section_line(opened, "triangles");
    const std::vector<std::string_view> w = words_of(line.text);
    if (w.size() == 1 && w[0] == "end") {
      fail(line.number, "the triangle ends after fewer than three vertices");
    }
    if (w.size() < 9) {
      fail(line.number, "a vertex is <parent> <px py pz> <nx ny nz> <u v> [<links> ...], found " +
                            std::to_string(w.size()) + " values");
    }
    VertexRec v;
    const std::uint32_t parent =
        node(integer(w, 0, line, "the parent bone", 0, std::numeric_limits<std::int32_t>::max()),
             line, "parent bone");
    v.position = vec3(w, 1, line, "a position");
    v.normal = vec3(w, 4, line, "a normal");
    v.u = real(w, 7, line, "a texture coordinate");
    v.v = real(w, 8, line, "a texture coordinate");
    const std::int64_t links = w.size() > 9 ? integer(w, 9, line, "the link count", 0,
                                                      std::numeric_limits<std::int32_t>::max())
                                            : 0;
    if (w.size() != 10 + 2 * static_cast<std::size_t>(links) && !(w.size() == 9 && links == 0)) {
      fail(line.number, std::to_string(links) + " links need " + std::to_string(10 + 2 * links) +
                            " values, the line has " + std::to_string(w.size()));
    }
    // Merged and summed in double: each weight is a finite float, but two large ones overflow a
    // float sum, and its normalization would give NaN.
    std::vector<std::pair<std::uint32_t, double>> merged;
    double sum = 0;
    for (std::int64_t k = 0; k < links; ++k) {
      const std::uint32_t bone = node(integer(w, 10 + 2 * k, line, "a linked bone", 0,
                                              std::numeric_limits<std::int32_t>::max()),
                                      line, "linked bone");
      const float weight = real(w, 11 + 2 * k, line, "a link weight");
      if (weight < 0) fail(line.number, "link " + std::to_string(k) + " has a negative weight");
      sum += weight;
      if (weight == 0) continue;
      auto same =
          std::find_if(merged.begin(), merged.end(), [&](auto& l) { return l.first == bone; });
      if (same != merged.end()) {
        same->second += weight;
      } else {
        merged.emplace_back(bone, weight);
      }
    }
    if (links > 0 && !(sum > 0)) fail(line.number, "the vertex's link weights sum to 0");
    if (links == 0) merged.emplace_back(parent, 1.0);
    // studiomdl balances the weights to sum to 1; marrow keeps every link, strongest first.
    std::stable_sort(merged.begin(), merged.end(),
                     [](auto& a, auto& b) { return a.second > b.second; });
    for (const auto& l : merged)
      v.links.emplace_back(l.first, static_cast<float>(l.second / (sum > 0 ? sum : 1.0)));
    return v;
  }

  void read_triangles(std::size_t opened) {
    std::map<std::string, std::size_t> material_of;
    for (std::size_t m = 0; m < doc_.materials.size(); ++m)
      material_of.emplace(doc_.materials[m], m);
    for (;;) {
      const io::TextLine line = section_line(opened, "triangles");
      if (line.text == "end") break;
      // Per corner: the record, a vertex after welding (positions, normals, UVs, influences)
      // and an index; a triangle takes at least 3 lines of 18 bytes in the file.
      budget_.charge(3, sizeof(VertexRec) + 64 + 4, [&] { return where(line.number); });
      TriangleRec t;
      const std::string material(line.text);
      const auto [it, added] = material_of.emplace(material, doc_.materials.size());
      if (added) doc_.materials.push_back(material);
      t.material = it->second;
      for (VertexRec& v : t.corners) v = read_vertex(opened);
      doc_.triangles.push_back(std::move(t));
    }
  }

  void skip_section(std::size_t opened) {
    for (;;) {
      const io::TextLine line = section_line(opened, "vertexanimation");
      if (line.text == "end") return;
    }
  }

  io::LineSplitter lines_;
  const std::string& file_;
  io::DocumentBudget& budget_;
  Document doc_;
};

// R = Rz(z) Ry(y) Rx(x): X is applied first (Valve's AngleMatrix of a RadianEuler).
Quat rotation_of(Vec3 angles) {
  return normalize(from_axis_angle({0, 0, 1}, angles.z) * from_axis_angle({0, 1, 0}, angles.y) *
                   from_axis_angle({1, 0, 0}, angles.x));
}

Transform local_of(const BonePose& p) {
  Transform t;
  t.translation = p.position;
  t.rotation = rotation_of(p.angles);
  return t;
}

class Assembler {
 public:
  Assembler(Document& doc, Asset& asset, const std::string& file, io::DocumentBudget& budget,
            const LoadOptions& options)
      : doc_(doc), asset_(asset), file_(file), budget_(budget), options_(options) {}

  void run() {
    build_skeleton();
    if (doc_.has_triangles) build_meshes();
    if (doc_.frames.size() > 1 || (!doc_.has_triangles && !doc_.frames.empty())) build_clip();
  }

 private:
  std::string where(std::size_t line) const { return file_ + ":" + std::to_string(line); }

  void build_skeleton() {
    const std::size_t n = doc_.nodes.size();
    std::vector<JointDesc> descs(n);
    for (std::size_t i = 0; i < n; ++i) {
      descs[i].name = doc_.nodes[i].name;
      descs[i].parent = doc_.nodes[i].parent < 0
                            ? std::int64_t{-1}
                            : std::int64_t{doc_.node_of_id.at(doc_.nodes[i].parent)};
      if (!doc_.frames.empty()) descs[i].rest = local_of(doc_.frames.front().pose[i]);
    }
    if (doc_.frames.empty()) {
      asset_.warnings.push_back(file_ + ": no skeleton frame: every node rests at the origin");
    }
    Result<std::vector<JointIndex>> joints =
        io::build_asset_skeleton(asset_, descs, file_ + ": nodes");
    if (!joints) throw SmdError(joints.error().message);
    joint_of_ = std::move(joints).value();
    if (const std::optional<JointIndex> deep = io::joint_nested_too_deep(asset_.skeleton)) {
      const NodeRec& node = doc_.nodes[static_cast<std::size_t>(asset_.source_index[*deep])];
      throw SmdError(where(node.line) + ": node '" + node.name + "' lies more than " +
                     std::to_string(io::kMaxNestingDepth) +
                     " nodes below its root; marrow reads hierarchies at most that deep");
    }
  }

  void build_meshes() {
    // The bind pose: model matrices of the first frame (identity without one).
    const std::size_t n = doc_.nodes.size();
    std::vector<Mat4> model(n);
    std::vector<Transform> local(asset_.skeleton.rest_pose().begin(),
                                 asset_.skeleton.rest_pose().end());
    if (!local_to_model_matrices(local, model))
      throw SmdError(file_ + ": the bind pose is not finite");
    Skin skin;
    skin.name = std::filesystem::path(file_).stem().string();
    for (std::size_t i = 0; i < n; ++i) {
      const JointIndex j = joint_of_[i];
      skin.joints.push_back(j);
      Mat4 inverse;
      if (!invert_affine(model[j], inverse)) {
        throw SmdError(where(doc_.nodes[i].line) + ": node '" + doc_.nodes[i].name +
                       "' has no inverse bind matrix at the first frame");
      }
      skin.inverse_bind_matrices.push_back(inverse);
    }
    asset_.skins.push_back(std::move(skin));
    // One mesh per material; corners equal in every value share a vertex.
    for (std::size_t m = 0; m < doc_.materials.size(); ++m) {
      SkinnedMesh mesh;
      mesh.name = doc_.materials[m];
      mesh.material = add_material(doc_.materials[m]);
      mesh.skin = 0;
      mesh.influence_offsets.assign(1, 0);
      std::unordered_map<std::string, std::uint32_t> vertex_of;
      std::string key;
      for (const TriangleRec& t : doc_.triangles) {
        if (t.material != m) continue;
        for (const VertexRec& v : t.corners) {
          key.assign(reinterpret_cast<const char*>(&v.position), sizeof(Vec3));
          key.append(reinterpret_cast<const char*>(&v.normal), sizeof(Vec3));
          key.append(reinterpret_cast<const char*>(&v.u), sizeof(float));
          key.append(reinterpret_cast<const char*>(&v.v), sizeof(float));
          for (const auto& l : v.links) {
            key.append(reinterpret_cast<const char*>(&l.first), sizeof(l.first));
            key.append(reinterpret_cast<const char*>(&l.second), sizeof(l.second));
          }
          const auto [it, added] =
              vertex_of.emplace(key, static_cast<std::uint32_t>(mesh.positions.size()));
          if (added) {
            mesh.positions.push_back(v.position);
            mesh.normals.push_back(v.normal);
            // SMD's v grows up from the bottom of the image (studiomdl flips it); marrow's, as
            // glTF's, grows down from the top.
            mesh.uvs.push_back({v.u, 1.0f - v.v});
            for (const auto& l : v.links) {
              mesh.influence_joints.push_back(static_cast<std::uint16_t>(l.first));
              mesh.influence_weights.push_back(l.second);
            }
            mesh.influence_offsets.push_back(
                static_cast<std::uint32_t>(mesh.influence_joints.size()));
          }
          mesh.indices.push_back(it->second);
        }
      }
      asset_.meshes.push_back(std::move(mesh));
    }
  }

  // An SMD material is the file name of its texture (studiomdl's convention): a material of that
  // name whose base colour is that image beside the file.
  int add_material(const std::string& name) {
    Material material;
    material.name = name;
    if (!name.empty()) {
      material.base_color.image = static_cast<int>(asset_.images.size());
      asset_.images.push_back(
          {name,
           io::image_path_beside(file_, name, file_ + ": material", asset_.warnings),
           {},
           ""});
    }
    asset_.materials.push_back(std::move(material));
    return static_cast<int>(asset_.materials.size() - 1);
  }

  // local_to_model over the skeleton's order (parents first), without the pose module's job.
  bool local_to_model_matrices(const std::vector<Transform>& local,
                               std::vector<Mat4>& model) const {
    for (std::size_t j = 0; j < local.size(); ++j) {
      const Mat4 m = to_matrix(local[j]);
      const JointIndex p = asset_.skeleton.parent(j);
      model[j] = p == kNoParent ? m : mul_affine(model[p], m);
      for (float f : model[j].m) {
        if (!std::isfinite(f)) return false;
      }
    }
    return true;
  }

  void build_clip() {
    std::string name = std::filesystem::path(file_).stem().string();
    if (name.empty()) name = "animation";
    RateSource source = RateSource::kDefault;
    double fps = kSmdDefaultFramesPerSecond;
    if (options_.ticks_per_second > 0) {
      source = RateSource::kOption;
      fps = options_.ticks_per_second;
    }
    const std::size_t frames = doc_.frames.size();
    const std::size_t n = doc_.nodes.size();
    // Per node and frame: a time and 3 + 4 values, built and then copied into the clip.
    budget_.charge(io::DocumentBudget::times(frames, n), 2 * 8 * sizeof(float),
                   [&] { return where(doc_.skeleton_line) + ": skeleton"; });
    ClipBuilder builder(name);
    builder.set_ticks_per_second(fps);
    std::vector<float> times(frames), values;
    for (std::size_t f = 0; f < frames; ++f) {
      times[f] =
          static_cast<float>(static_cast<double>(doc_.frames[f].time - doc_.frames[0].time) / fps);
      if (f > 0 && !(times[f] > times[f - 1])) {
        throw SmdError(where(doc_.frames[f].line) + ": frame " + std::to_string(f) +
                       " falls on the time of the frame before at " + std::to_string(fps) +
                       " frames per second");
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::string track_where =
          where(doc_.nodes[i].line) + ": node '" + doc_.nodes[i].name + "'";
      values.clear();
      for (const FrameRec& f : doc_.frames) {
        const Vec3 p = f.pose[i].position;
        values.insert(values.end(), {p.x, p.y, p.z});
      }
      Status st = builder.add_track(joint_of_[i], doc_.nodes[i].name, TrackTarget::kTranslation,
                                    Interpolation::kLinear, times, values, track_where);
      if (!st) throw SmdError(st.error().message);
      values.clear();
      Quat previous = Quat::identity();
      for (std::size_t f = 0; f < frames; ++f) {
        Quat q = rotation_of(doc_.frames[f].pose[i].angles);
        if (f > 0 && dot(previous, q) < 0) q = negate(q);  // slerp takes the short way
        previous = q;
        values.insert(values.end(), {q.x, q.y, q.z, q.w});
      }
      st = builder.add_track(joint_of_[i], doc_.nodes[i].name, TrackTarget::kRotation,
                             Interpolation::kLinear, times, values, track_where);
      if (!st) throw SmdError(st.error().message);
    }
    Result<Clip> clip =
        builder.build(asset_.skeleton.size(), where(doc_.skeleton_line) + ": skeleton");
    if (!clip) throw SmdError(clip.error().message);
    asset_.clips.push_back(std::move(clip).value());
    asset_.rate_sources.push_back(source);
  }

  Document& doc_;
  Asset& asset_;
  const std::string& file_;
  io::DocumentBudget& budget_;
  const LoadOptions& options_;
  std::vector<JointIndex> joint_of_;
};

Asset read_document(std::string_view text, const std::string& name, const LoadOptions& options) {
  io::DocumentBudget budget(text.size());
  Parser parser(text, name, budget);
  Document doc = parser.parse();
  Asset asset;
  asset.source = name;
  asset.warnings = std::move(parser.warnings);
  Assembler(doc, asset, name, budget, options).run();
  return asset;
}

}  // namespace

Result<Asset> read_smd(std::string_view text, const std::string& name, const LoadOptions& options) {
  return io::catch_parse_errors<SmdError>(name, [&] { return read_document(text, name, options); });
}

Result<Asset> read_smd(const std::string& path, const LoadOptions& options) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  return read_smd(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()),
                  path, options);
}

}  // namespace marrow
