#include "x_parser.h"

#include <cmath>
#include <limits>

#include "common/reader_support.h"

namespace marrow::xfile {
namespace {

using io::iequals;

// Standard objects that carry nothing marrow keeps; skipped without a note.
bool is_ignorable(std::string_view type) {
  static constexpr std::string_view kIgnored[] = {"Header",
                                                  "Material",
                                                  "TextureFilename",
                                                  "KeyValuePair",
                                                  "XSkinMeshHeader",
                                                  "MeshMaterialList",
                                                  "VertexDuplicationIndices",
                                                  "AnimationOptions",
                                                  "ObjectMatrixComment",
                                                  "EffectInstance",
                                                  "EffectParamString",
                                                  "EffectParamDWord",
                                                  "EffectParamFloats",
                                                  "EffectFilename",
                                                  "AnimTicksPerSecond",
                                                  "MeshFaceWraps",
                                                  "SkinWeights",
                                                  "FrameTransformMatrix"};
  for (std::string_view s : kIgnored) {
    if (iequals(type, s)) return true;
  }
  return false;
}

}  // namespace

void Parser::parse_file() {
  for (;;) {
    const Token t = tk_.next();
    switch (t.kind) {
      case TokenKind::kEnd:
        return;
      case TokenKind::kTemplate:
        skip_template(t);
        break;
      case TokenKind::kName:
        top_level_object(t);
        break;
      case TokenKind::kOpenBrace:
        read_reference(t);
        warn(t.place, "a reference at the top level means nothing and is skipped");
        break;
      default:
        fail(t.place, "expected a template or a data object, found " + describe(t));
    }
  }
}

void Parser::warn(std::size_t place, const std::string& what) {
  warnings_.push_back(where(place) + ": " + what);
}

// "line 12" or "byte 345", for "opened at ..." in messages.
std::string Parser::at(std::size_t place) const {
  return (tk_.binary() ? "byte " : "line ") + std::to_string(place);
}

std::string Parser::title(const Header& h) {
  return h.name.empty() ? h.type : h.type + " " + named(h.name);
}

void Parser::note_unknown(const Header& h, const char* why) {
  if (noted_.emplace(h.type, true).second) {
    warn(h.place, std::string(why) + ": objects of type " + named(h.type) + " are not read");
  }
}

// Skips an object marrow does not read: silently for the templates every exporter writes
// (is_ignorable), with a one-time note per type otherwise.
void Parser::skip_unread(const Header& h, const char* why) {
  if (!is_ignorable(h.type)) note_unknown(h, why);
  skip_body(h);
}

// Identifier already read: [name] [<guid>] '{'.
Parser::Header Parser::read_header(const Token& id) {
  Header h{std::string(id.text), {}, id.place};
  Token t = tk_.peek();
  if (t.kind == TokenKind::kName ||
      (!tk_.binary() && (t.kind == TokenKind::kInteger || t.kind == TokenKind::kFloat))) {
    h.name = std::string(t.text);
    tk_.next();
    t = tk_.peek();
  }
  if (t.kind == TokenKind::kGuid) {
    tk_.next();
    t = tk_.peek();
  }
  if (t.kind != TokenKind::kOpenBrace) {
    fail(t.place, "expected '{' to open " + title(h) + ", found " + describe(t));
  }
  tk_.next();
  return h;
}

// Skips the rest of an object whose '{' has been read.
void Parser::skip_body(const Header& h) {
  std::size_t depth = 1;
  while (depth > 0) {
    const Token t = tk_.next();
    if (t.kind == TokenKind::kOpenBrace) ++depth;
    if (t.kind == TokenKind::kCloseBrace) --depth;
    if (t.kind == TokenKind::kEnd) {
      fail(t.place, "the file ends inside " + title(h) + " opened at " + at(h.place));
    }
  }
}

void Parser::skip_template(const Token& t) {
  const Token name = tk_.next();
  if (name.kind != TokenKind::kName) {
    fail(name.place, "expected a template name after 'template', found " + describe(name));
  }
  const Token open = tk_.next();
  if (open.kind != TokenKind::kOpenBrace) {
    fail(open.place,
         "expected '{' after template " + named(name.text) + ", found " + describe(open));
  }
  skip_body(Header{"template", std::string(name.text), t.place});
}

// '{' already read: Name [<guid>] '}' (or just <guid>). Returns the name.
std::string Parser::read_reference(const Token& open) {
  std::string name;
  Token t = tk_.next();
  if (t.kind == TokenKind::kName ||
      (!tk_.binary() && (t.kind == TokenKind::kInteger || t.kind == TokenKind::kFloat))) {
    name = std::string(t.text);
    t = tk_.next();
  }
  if (t.kind == TokenKind::kGuid) t = tk_.next();
  if (t.kind != TokenKind::kCloseBrace) {
    fail(t.place, "expected '}' to close the reference opened at " + at(open.place) + ", found " +
                      describe(t));
  }
  if (name.empty()) {
    fail(open.place, "a reference by GUID alone cannot be resolved; name the object");
  }
  return name;
}

// After the data of an object: nested objects are skipped, numbers mean the counts were
// wrong, and '}' closes it.
void Parser::finish_object(const Header& h) {
  for (;;) {
    const Token t = tk_.next();
    switch (t.kind) {
      case TokenKind::kCloseBrace:
        return;
      case TokenKind::kName:
        skip_body(read_header(t));
        break;
      case TokenKind::kOpenBrace:
        read_reference(t);
        break;
      case TokenKind::kInteger:
      case TokenKind::kFloat:
      case TokenKind::kString:
        fail(t.place, title(h) + " has more data than its counts say: found " + describe(t) +
                          " where '}' should close it");
      case TokenKind::kEnd:
        fail(t.place, "the file ends inside " + title(h) + " opened at " + at(h.place));
      default:
        fail(t.place, title(h) + ": expected an object, found " + describe(t));
    }
  }
}

[[noreturn]] void Parser::expected(const Token& t, const std::string& what, const Header& h) const {
  std::string hint;
  const bool object_name = t.kind == TokenKind::kName && !t.text.empty() &&
                           ((t.text[0] >= 'A' && t.text[0] <= 'Z') ||
                            (t.text[0] >= 'a' && t.text[0] <= 'z') || t.text[0] == '_');
  if (t.kind == TokenKind::kCloseBrace || t.kind == TokenKind::kEnd || object_name) {
    hint = " (the data is shorter than its counts say)";
  }
  fail(t.place, title(h) + ": expected " + what + ", found " + describe(t) + hint);
}

std::uint32_t Parser::read_dword(const char* what, const Header& h, std::size_t* place) {
  const Token t = tk_.next();
  if (t.kind != TokenKind::kInteger) expected(t, what, h);
  if (t.integer < 0 || t.integer > std::numeric_limits<std::uint32_t>::max()) {
    fail(t.place, title(h) + ": " + what + " " + std::to_string(t.integer) + " is out of range");
  }
  if (place) *place = t.place;
  return static_cast<std::uint32_t>(t.integer);
}

float Parser::read_float(const char* what, const Header& h) {
  const Token t = tk_.next();
  if (t.kind != TokenKind::kInteger && t.kind != TokenKind::kFloat) expected(t, what, h);
  if (!std::isfinite(t.real) || std::fabs(t.real) > std::numeric_limits<float>::max()) {
    fail(t.place, title(h) + ": " + what + " " + describe(t) + " is not a finite float");
  }
  return static_cast<float>(t.real);
}

void Parser::read_matrix(D3DMatrix& m, const Header& h) {
  for (float& v : m) v = read_float("a matrix element", h);
}

// A count of items of `numbers_each` numbers must fit in what is left of the file.
void Parser::check_count(std::uint64_t count, std::size_t numbers_each, std::size_t place,
                         const char* what, const Header& h) {
  const std::uint64_t bytes = count * numbers_each * tk_.min_bytes_per_number();
  if (bytes > tk_.remaining()) {
    fail(place, title(h) + ": " + std::to_string(count) + " " + what + " cannot fit in the " +
                    std::to_string(tk_.remaining()) + " bytes left in the file");
  }
  // Each number is kept as a 4-byte float or DWORD, and the assembler copies it about once.
  budget_.charge(count, 2 * 4 * numbers_each, [&] { return where(place) + ": " + title(h); });
}

void Parser::top_level_object(const Token& id) {
  const Header h = read_header(id);
  if (iequals(h.type, "Frame")) {
    parse_frame(h, -1);
  } else if (iequals(h.type, "Mesh")) {
    parse_mesh(h, -1, true);
  } else if (iequals(h.type, "AnimationSet")) {
    parse_set(h);
  } else if (iequals(h.type, "Animation")) {
    if (r_.loose.animations.empty()) {
      r_.loose.place = h.place;
      r_.loose.tps_before = static_cast<std::int64_t>(r_.ticks.size()) - 1;
    }
    parse_animation(h, r_.loose);
  } else if (iequals(h.type, "Material")) {
    r_.named_materials.push_back(parse_material(h));
  } else if (iequals(h.type, "AnimTicksPerSecond")) {
    std::size_t place = 0;
    const std::uint32_t v = read_dword("the ticks per second", h, &place);
    if (v == 0) fail(place, "AnimTicksPerSecond is 0");
    r_.ticks.push_back({v, place});
    finish_object(h);
  } else {
    skip_unread(h, "unknown top-level object");
  }
}

// Frames are read with an explicit stack, not recursion, and nest at most
// io::kMaxNestingDepth deep.
void Parser::parse_frame(const Header& root, std::int64_t parent) {
  struct Open {
    std::size_t frame;
    Header header;
  };
  std::vector<Open> stack;
  auto open = [&](const Header& h, std::int64_t p) {
    if (stack.size() > io::kMaxNestingDepth) {
      fail(h.place, "Frame " + named(h.name) + " lies " + std::to_string(stack.size()) +
                        " frames below its root; marrow reads hierarchies at most " +
                        std::to_string(io::kMaxNestingDepth) + " levels deep");
    }
    if (r_.frames.size() >= kMaxJoints) {
      fail(h.place, "more than the " + std::to_string(kMaxJoints) + " frames a skeleton can index");
    }
    budget_.charge(sizeof(FrameRec) + h.name.size(), [&] { return where(h.place); });
    FrameRec f;
    f.name = h.name;
    f.parent = p;
    f.place = h.place;
    r_.frames.push_back(std::move(f));
    stack.push_back({r_.frames.size() - 1, h});
  };
  open(root, parent);
  while (!stack.empty()) {
    const std::size_t f = stack.back().frame;
    const Token t = tk_.next();
    switch (t.kind) {
      case TokenKind::kCloseBrace:
        stack.pop_back();
        break;
      case TokenKind::kOpenBrace: {
        std::string name = read_reference(t);
        r_.mesh_refs.push_back({f, std::move(name), t.place});
        break;
      }
      case TokenKind::kName: {
        const Header h = read_header(t);
        if (iequals(h.type, "Frame")) {
          open(h, static_cast<std::int64_t>(f));
        } else if (iequals(h.type, "FrameTransformMatrix")) {
          if (r_.frames[f].has_matrix) {
            warn(h.place, "Frame " + named(r_.frames[f].name) +
                              " has a second FrameTransformMatrix; the last one is used");
          }
          read_matrix(r_.frames[f].matrix, h);
          r_.frames[f].has_matrix = true;
          r_.frames[f].matrix_place = h.place;
          finish_object(h);
        } else if (iequals(h.type, "Mesh")) {
          parse_mesh(h, static_cast<std::int64_t>(f), false);
        } else {
          skip_unread(h, "unknown object in a Frame");
        }
        break;
      }
      case TokenKind::kEnd:
        fail(t.place, "the file ends inside " + title(stack.back().header) + " opened at " +
                          at(stack.back().header.place));
      default:
        fail(t.place,
             title(stack.back().header) + " holds objects, not data: found " + describe(t));
    }
  }
}

void Parser::parse_set(const Header& h) {
  SetRec s;
  s.name = h.name;
  s.place = h.place;
  s.tps_before = static_cast<std::int64_t>(r_.ticks.size()) - 1;
  for_each_child(
      h,
      [&](const Token& t) {
        read_reference(t);
        warn(t.place, title(h) + ": an Animation given by reference is not read");
      },
      [&](const Header& c) {
        if (iequals(c.type, "Animation")) {
          parse_animation(c, s);
        } else {
          skip_unread(c, "unknown object in an AnimationSet");
        }
      });
  r_.sets.push_back(std::move(s));
}

void Parser::parse_animation(const Header& h, SetRec& set) {
  AnimationRec a;
  a.name = h.name;
  a.place = h.place;
  for_each_child(
      h,
      [&](const Token& t) {
        std::string name = read_reference(t);
        if (a.has_frame) {
          fail(t.place,
               title(h) + " names a second frame " + named(name) + " after " + named(a.frame));
        }
        a.frame = std::move(name);
        a.frame_place = t.place;
        a.has_frame = true;
      },
      [&](const Header& c) {
        if (iequals(c.type, "AnimationKey")) {
          parse_key(c, a);
        } else {
          skip_unread(c, "unknown object in an Animation");
        }
      });
  if (!a.has_frame) fail(h.place, title(h) + " names no frame (expected '{ FrameName }')");
  set.animations.push_back(std::move(a));
}

void Parser::parse_key(const Header& h, AnimationRec& a) {
  KeyRec k;
  k.place = h.place;
  std::size_t place = 0;
  k.type = read_dword("the key type", h, &place);
  // 0 rotation, 1 scale, 2 position, 4 matrix. The DirectX documentation numbers the matrix
  // key 3 while its writers and D3DX use 4; 3 is read as a matrix too.
  if (k.type > 4) fail(place, "AnimationKey type " + std::to_string(k.type) + " is unknown");
  if (k.type == 3) k.type = 4;
  const std::uint32_t per_key = k.type == 0 ? 4 : k.type == 4 ? 16 : 3;
  const std::uint32_t n = read_dword("the key count", h, &place);
  check_count(n, 2 + per_key, place, "keys", h);
  k.ticks.reserve(n);
  k.tick_places.reserve(n);
  k.values.reserve(std::size_t{n} * per_key);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t time = read_dword("a key time", h, &place);
    if (i > 0 && time <= k.ticks.back()) {
      fail(place, "AnimationKey key " + std::to_string(i) + " is at tick " + std::to_string(time) +
                      ", not after the previous key's tick " + std::to_string(k.ticks.back()) +
                      " (times must increase)");
    }
    k.ticks.push_back(time);
    k.tick_places.push_back(place);
    const std::uint32_t values = read_dword("the value count of a key", h, &place);
    if (values != per_key) {
      static constexpr const char* kWhat[] = {"rotation", "scale", "position", "", "matrix"};
      fail(place, "AnimationKey key " + std::to_string(i) + " has " + std::to_string(values) +
                      " values; a " + kWhat[k.type] + " key has " + std::to_string(per_key));
    }
    for (std::uint32_t v = 0; v < per_key; ++v) k.values.push_back(read_float("a key value", h));
    if (k.type == 0) {
      const float* q = &k.values[k.values.size() - 4];
      if (!(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] > 1e-12f)) {
        fail(k.tick_places.back(),
             "AnimationKey key " + std::to_string(i) + ": the rotation quaternion has zero length");
      }
    }
  }
  finish_object(h);
  a.keys.push_back(std::move(k));
}

}  // namespace marrow::xfile
