// .md5mesh: joints in model space (the bind pose: each joint's position and orientation in the
// model, not relative to its parent), then meshes whose vertices carry no position of their
// own: a vertex is the sum over its weights of bias * (joint position + joint orientation
// applied to the weight's position). marrow turns the joints into local rest transforms
// (parent⁻¹ · joint) and each mesh into a SkinnedMesh with the bind positions that sum gives,
// skinned to every joint with inverse bind matrices from the bind pose.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

#include "common/reader_support.h"
#include "md5_internal.h"

namespace marrow::md5 {
namespace {

struct BindJoint {
  Vec3 position;  // model space
  Quat orientation;
};

struct VertRec {
  float s = 0, t = 0;
  std::uint32_t first_weight = 0, weight_count = 0;
  std::size_t line = 0;
};

struct WeightRec {
  std::uint32_t joint = 0;
  float bias = 0;
  Vec3 position;  // in the joint's frame
};

struct MeshRec {
  std::string name;
  std::string shader;  // a Doom 3 material name, "models/monsters/imp/imp"

  std::size_t line = 0;
  std::vector<VertRec> verts;
  std::vector<std::uint32_t> indices;
  std::vector<WeightRec> weights;
};

// "numverts 12": a count each of whose items takes at least `bytes_each` bytes of the file.
std::uint32_t read_count(Lexer& lex, const char* keyword, std::uint64_t bytes_each,
                         std::uint64_t bytes_charged_each, io::DocumentBudget& budget) {
  lex.expect_word(keyword);
  const std::size_t line = lex.peek().line;
  const std::int64_t n = lex.read_integer(keyword, 0, kMaxCount);
  if (static_cast<std::uint64_t>(n) * bytes_each > lex.remaining()) {
    lex.fail(line, std::string(keyword) + " " + std::to_string(n) + " cannot fit in the " +
                       std::to_string(lex.remaining()) + " bytes left");
  }
  budget.charge(static_cast<std::uint64_t>(n), bytes_charged_each,
                [&] { return lex.where(line) + ": " + keyword; });
  return static_cast<std::uint32_t>(n);
}

// The sequence number that starts a vert, tri or weight line must be its place in the list.
void expect_index(Lexer& lex, const char* keyword, std::uint32_t expected) {
  lex.expect_word(keyword);
  const Token t = lex.peek();
  const std::int64_t i = lex.read_integer(keyword, 0, kMaxCount);
  if (i != expected) {
    lex.fail(t.line, std::string(keyword) + " " + std::to_string(i) + " where " + keyword + " " +
                         std::to_string(expected) + " belongs (they are numbered in order)");
  }
}

MeshRec parse_mesh(Lexer& lex, std::size_t joint_count, io::DocumentBudget& budget) {
  MeshRec m;
  m.line = lex.peek().line;
  lex.expect(TokenKind::kOpenBrace, "'{' after mesh");
  lex.take_comment();  // a comment before the block is not this mesh's
  lex.expect_word("shader");
  // The exporter writes the mesh's name as "// meshes: name" right after the brace.
  if (const std::string_view c = lex.take_comment(); c.rfind("meshes:", 0) == 0) {
    std::string_view name = c.substr(7);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    m.name = std::string(name);
  }
  m.shader = lex.read_string("the shader");

  const std::uint32_t nv = read_count(lex, "numverts", 16, sizeof(VertRec) + 64, budget);
  m.verts.resize(nv);
  for (std::uint32_t v = 0; v < nv; ++v) {
    VertRec& r = m.verts[v];
    r.line = lex.peek().line;
    expect_index(lex, "vert", v);
    float st[2];
    lex.read_vector(st, 2, "a texture coordinate");
    r.s = st[0], r.t = st[1];
    r.first_weight = static_cast<std::uint32_t>(lex.read_integer("the first weight", 0, kMaxCount));
    r.weight_count = static_cast<std::uint32_t>(lex.read_integer("the weight count", 0, kMaxCount));
  }
  const std::uint32_t nt = read_count(lex, "numtris", 12, 2 * 3 * 4, budget);
  m.indices.reserve(std::size_t{nt} * 3);
  for (std::uint32_t t = 0; t < nt; ++t) {
    const std::size_t line = lex.peek().line;
    expect_index(lex, "tri", t);
    for (int k = 0; k < 3; ++k) {
      const std::int64_t i = lex.read_integer("a vertex index", 0, kMaxCount);
      if (i >= nv) {
        lex.fail(line, "tri " + std::to_string(t) + " uses vertex " + std::to_string(i) +
                           " of the mesh's " + std::to_string(nv));
      }
      m.indices.push_back(static_cast<std::uint32_t>(i));
    }
  }
  const std::uint32_t nw = read_count(lex, "numweights", 20, sizeof(WeightRec), budget);
  m.weights.resize(nw);
  for (std::uint32_t w = 0; w < nw; ++w) {
    WeightRec& r = m.weights[w];
    const std::size_t line = lex.peek().line;
    expect_index(lex, "weight", w);
    const std::int64_t joint = lex.read_integer("a joint index", 0, kMaxCount);
    if (joint >= static_cast<std::int64_t>(joint_count)) {
      lex.fail(line, "weight " + std::to_string(w) + " names joint " + std::to_string(joint) +
                         " of the " + std::to_string(joint_count) + " joints");
    }
    r.joint = static_cast<std::uint32_t>(joint);
    r.bias = lex.read_float("a weight bias");
    if (r.bias < 0) lex.fail(line, "weight " + std::to_string(w) + " has a negative bias");
    float p[3];
    lex.read_vector(p, 3, "a weight position");
    r.position = {p[0], p[1], p[2]};
  }
  for (const VertRec& r : m.verts) {
    if (std::uint64_t{r.first_weight} + r.weight_count > nw) {
      lex.fail(r.line, "the vertex's weights " + std::to_string(r.first_weight) + " to " +
                           std::to_string(std::uint64_t{r.first_weight} + r.weight_count) +
                           " run past the mesh's " + std::to_string(nw) + " weights");
    }
  }
  lex.expect(TokenKind::kCloseBrace, "'}' closing the mesh");
  return m;
}

// One SkinnedMesh from a mesh record: bind positions from the weights, influences merged by
// joint, strongest first, normalized.
// A shader as a material: named by it, with the image it names where one lies beside the file
// (the shader as a path, or its last part, with or without .png, .tga, .jpg or .jpeg). Doom 3
// resolves shaders through its .mtr material files, which are not read: a shader that names no
// image beside the file stays a name.
class ShaderMaterials {
 public:
  int index_of(const std::string& shader, const std::string& file, Asset& asset) {
    if (const auto it = by_shader_.find(shader); it != by_shader_.end()) return it->second;
    Material m;
    m.name = shader;
    if (const std::string image = find_image(shader, file); !image.empty()) {
      m.base_color.image = static_cast<int>(asset.images.size());
      asset.images.push_back({shader, image, {}, ""});
    } else {
      unresolved_.push_back(shader);
    }
    asset.materials.push_back(std::move(m));
    return by_shader_[shader] = static_cast<int>(asset.materials.size() - 1);
  }
  void add_note(const std::string& file, Asset& asset) const {
    if (unresolved_.empty()) return;
    std::string names;
    for (const std::string& s : unresolved_)
      names += (names.empty() ? "" : ", ") + io::quote_token(s);
    asset.warnings.push_back(file + ": shader(s) " + names +
                             " name no image beside the file (Doom 3's .mtr files, which give "
                             "them, are not read); kept as material names");
  }

 private:
  std::map<std::string, int> by_shader_;
  std::vector<std::string> unresolved_;

  static std::string find_image(const std::string& shader, const std::string& file) {
    namespace fs = std::filesystem;
    const fs::path folder = fs::path(file).parent_path();
    std::string relative = shader;
    std::replace(relative.begin(), relative.end(), '\\', '/');
    if (relative.empty() || fs::path(relative).is_absolute() ||
        relative.find("..") != std::string::npos)
      return "";
    for (const fs::path& base : {fs::path(relative), fs::path(relative).filename()}) {
      for (const char* ext : {"", ".png", ".tga", ".jpg", ".jpeg"}) {
        const fs::path candidate = (folder / (base.string() + ext)).lexically_normal();
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec)) return candidate.string();
      }
    }
    return "";
  }
};

SkinnedMesh build_mesh(const MeshRec& m, std::size_t index, const std::vector<BindJoint>& bind,
                       const Lexer& lex, io::DocumentBudget& budget,
                       std::vector<std::string>& warnings) {
  SkinnedMesh mesh;
  mesh.name = m.name.empty() ? "mesh" + std::to_string(index) : m.name;
  mesh.skin = 0;
  std::uint64_t influences = 0;
  for (const VertRec& r : m.verts) influences += r.weight_count;
  // An influence is a joint and a weight, kept once and sorted once; a vertex 36 bytes.
  budget.charge(2 * influences * 6 + m.verts.size() * 36,
                [&] { return lex.where(m.line) + ": mesh " + std::to_string(index); });
  mesh.influence_offsets.assign(1, 0);
  float worst = 0;  // how far a weight's own point lies from the vertex (see below)
  std::size_t unweighted = 0, off_sum = 0;
  std::vector<std::pair<std::uint16_t, double>> list;  // double: large biases overflow a float sum
  for (const VertRec& r : m.verts) {
    Vec3 p{0, 0, 0};
    list.clear();
    float sum = 0;
    for (std::uint32_t k = 0; k < r.weight_count; ++k) {
      const WeightRec& w = m.weights[r.first_weight + k];
      const BindJoint& j = bind[w.joint];
      p = p + (j.position + rotate(j.orientation, w.position)) * w.bias;
      sum += w.bias;
      if (w.bias == 0) continue;
      const auto joint = static_cast<std::uint16_t>(w.joint);
      auto same = std::find_if(list.begin(), list.end(), [&](auto& e) { return e.first == joint; });
      if (same != list.end()) {
        same->second += w.bias;
      } else {
        list.emplace_back(joint, w.bias);
      }
    }
    // Doom skins each weight's own point; linear blend skinning skins the vertex. The two agree
    // when every weight's point is the vertex (what exporters write): measure the difference.
    for (std::uint32_t k = 0; k < r.weight_count; ++k) {
      const WeightRec& w = m.weights[r.first_weight + k];
      const BindJoint& j = bind[w.joint];
      if (w.bias > 0)
        worst = std::max(worst, length(j.position + rotate(j.orientation, w.position) - p));
    }
    if (!is_finite(p)) lex.fail(r.line, "the vertex's position from its weights is not finite");
    if (list.empty() || !(sum > 0)) ++unweighted;
    if (std::fabs(sum - 1) > 1e-3f) ++off_sum;
    std::stable_sort(list.begin(), list.end(),
                     [](auto& a, auto& b) { return a.second > b.second; });
    double total = 0;
    for (auto& e : list) total += e.second;
    for (auto& e : list) {
      mesh.influence_joints.push_back(e.first);
      mesh.influence_weights.push_back(static_cast<float>(e.second / total));
    }
    mesh.influence_offsets.push_back(static_cast<std::uint32_t>(mesh.influence_joints.size()));
    mesh.positions.push_back(p);
    mesh.uvs.push_back({r.s, r.t});
  }
  // MD5 lists a triangle's corners clockwise seen from the front (BoarMan.md5mesh as written
  // encloses a negative volume); marrow, like glTF, takes counter-clockwise as the front.
  mesh.indices.reserve(m.indices.size());
  for (std::size_t t = 0; t + 2 < m.indices.size(); t += 3) {
    mesh.indices.insert(mesh.indices.end(), {m.indices[t], m.indices[t + 2], m.indices[t + 1]});
  }
  const std::string where = lex.where(m.line) + ": mesh '" + mesh.name + "'";
  if (unweighted) {
    warnings.push_back(where + ": " + std::to_string(unweighted) + " vertices have no weight");
  }
  if (off_sum) {
    warnings.push_back(where + ": the biases of " + std::to_string(off_sum) +
                       " vertices do not sum to 1; the positions use them as written, the "
                       "skinning weights are normalized");
  }
  if (worst > 1e-3f) {
    warnings.push_back(where + ": the weights of a vertex place it up to " + std::to_string(worst) +
                       " units apart; marrow skins the vertex (linear blend), which moves "
                       "differently from Doom's per-weight sum when these disagree");
  }
  return mesh;
}

}  // namespace

Asset read_mesh_document(std::string_view text, const std::string& file,
                         io::DocumentBudget& budget) {
  Lexer lex(text, file);
  read_header(lex);
  lex.expect_word("numJoints");
  const std::size_t joints_line = lex.peek().line;
  const auto joint_count = static_cast<std::size_t>(
      lex.read_integer("numJoints", 0, static_cast<std::int64_t>(kMaxJoints)));
  lex.expect_word("numMeshes");
  const std::size_t meshes_line = lex.peek().line;
  const std::int64_t mesh_count = lex.read_integer("numMeshes", 0, kMaxCount);
  if (joint_count * 20 > lex.remaining() ||
      static_cast<std::uint64_t>(mesh_count) * 40 > lex.remaining()) {
    lex.fail(joint_count * 20 > lex.remaining() ? joints_line : meshes_line,
             "the counts cannot fit in the " + std::to_string(lex.remaining()) + " bytes left");
  }
  budget.charge(joint_count, sizeof(JointRec) + sizeof(JointDesc) + sizeof(BindJoint) + 96,
                [&] { return lex.where(joints_line) + ": numJoints"; });

  lex.expect_word("joints");
  lex.expect(TokenKind::kOpenBrace, "'{' after joints");
  std::vector<JointRec> joints;
  std::vector<BindJoint> bind;
  for (std::size_t j = 0; j < joint_count; ++j) {
    JointRec joint;
    joint.line = lex.peek().line;
    joint.name = lex.read_string("a joint name");
    joint.parent = lex.read_integer("a parent index", -1, static_cast<std::int64_t>(j) - 1);
    float p[3], q[3];
    lex.read_vector(p, 3, "a joint position");
    lex.read_vector(q, 3, "a joint orientation");
    bind.push_back({{p[0], p[1], p[2]}, unit_quat(q, lex, joint.line)});
    joints.push_back(std::move(joint));
  }
  lex.expect(TokenKind::kCloseBrace, "'}' closing the joints after numJoints joints");
  check_hierarchy(joints, lex);

  std::vector<MeshRec> meshes;
  for (std::int64_t i = 0; i < mesh_count; ++i) {
    lex.expect_word("mesh");
    meshes.push_back(parse_mesh(lex, joint_count, budget));
  }
  const Token rest = lex.next();
  if (rest.kind != TokenKind::kEnd) {
    lex.fail(rest.line, "unexpected " + describe(rest) + " after the " +
                            std::to_string(mesh_count) + " meshes numMeshes announces");
  }

  // The rest pose is local: a joint relative to its parent, parent⁻¹ · joint.
  Asset asset;
  asset.source = file;
  std::vector<JointDesc> descs(joint_count);
  for (std::size_t j = 0; j < joint_count; ++j) {
    descs[j].name = joints[j].name;
    descs[j].parent = joints[j].parent;
    Transform& rest = descs[j].rest;
    if (joints[j].parent < 0) {
      rest.translation = bind[j].position;
      rest.rotation = bind[j].orientation;
    } else {
      const BindJoint& parent = bind[static_cast<std::size_t>(joints[j].parent)];
      const Quat inverse = conjugate(parent.orientation);
      rest.translation = rotate(inverse, bind[j].position - parent.position);
      rest.rotation = normalize(inverse * bind[j].orientation);
    }
  }
  Result<std::vector<JointIndex>> built = io::build_asset_skeleton(asset, descs, file + ": joints");
  if (!built) throw Md5Error(built.error().message);
  const std::vector<JointIndex> joint_of = std::move(built).value();

  std::size_t empty = 0;
  ShaderMaterials shaders;
  for (std::size_t i = 0; i < meshes.size(); ++i) {
    if (meshes[i].verts.empty()) {
      ++empty;
      continue;
    }
    asset.meshes.push_back(build_mesh(meshes[i], i, bind, lex, budget, asset.warnings));
    if (!meshes[i].shader.empty())
      asset.meshes.back().material = shaders.index_of(meshes[i].shader, file, asset);
  }
  shaders.add_note(file, asset);
  if (empty) {
    asset.warnings.push_back(file + ": " + std::to_string(empty) +
                             " meshes without vertices skipped");
  }
  if (!asset.meshes.empty()) {
    // One skin over every joint, in the file's order, bound at the bind pose.
    Skin skin;
    skin.name = std::filesystem::path(file).stem().string();
    for (std::size_t j = 0; j < joint_count; ++j) {
      skin.joints.push_back(joint_of[j]);
      Mat4 inverse;
      if (!invert_affine(mat4_from_trs(bind[j].position, bind[j].orientation, {1, 1, 1}),
                         inverse)) {
        lex.fail(joints[j].line, "joint '" + joints[j].name + "' has no inverse bind matrix");
      }
      skin.inverse_bind_matrices.push_back(inverse);
    }
    asset.skins.push_back(std::move(skin));
  }
  return asset;
}

}  // namespace marrow::md5
