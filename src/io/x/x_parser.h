// The .X parser: the token stream (text or binary alike) into Records. This is the one place
// where the file's bytes are read, so every check on a value sits here: counts against the bytes
// left and the document budget, indices against their ranges, floats finite, key times
// increasing, frames nested no deeper than io::kMaxNestingDepth. Failures are thrown as XError
// naming the file and the line (text) or byte offset (binary).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/budget.h"
#include "x_records.h"
#include "x_tokenizer.h"

namespace marrow::xfile {

class Parser {
 public:
  Parser(XTokenizer& tk, std::vector<std::string>& warnings, io::DocumentBudget& budget)
      : tk_(tk), warnings_(warnings), budget_(budget) {}

  // Reads the whole body into records().
  void parse_file();
  Records& records() { return r_; }

  std::string where(std::size_t place) const { return tk_.where(place); }
  [[noreturn]] void fail(std::size_t place, const std::string& what) const {
    tk_.fail(place, what);
  }

 private:
  struct Header {
    std::string type;
    std::string name;
    std::size_t place = 0;
  };

  // Structure (x_parser.cpp).
  void warn(std::size_t place, const std::string& what);
  std::string at(std::size_t place) const;
  static std::string title(const Header& h);
  void note_unknown(const Header& h, const char* why);
  void skip_unread(const Header& h, const char* why);
  template <typename OnReference, typename OnObject>
  void for_each_child(const Header& h, OnReference on_reference, OnObject on_object,
                      const char* after_data = nullptr);
  Header read_header(const Token& id);
  void skip_body(const Header& h);
  void skip_template(const Token& t);
  std::string read_reference(const Token& open);
  void finish_object(const Header& h);
  void top_level_object(const Token& id);
  void parse_frame(const Header& root, std::int64_t parent);
  void parse_set(const Header& h);
  void parse_animation(const Header& h, SetRec& set);
  void parse_key(const Header& h, AnimationRec& a);

  // Values (x_parser.cpp).
  [[noreturn]] void expected(const Token& t, const std::string& what, const Header& h) const;
  std::uint32_t read_dword(const char* what, const Header& h, std::size_t* place = nullptr);
  float read_float(const char* what, const Header& h);
  void read_matrix(D3DMatrix& m, const Header& h);
  void check_count(std::uint64_t count, std::size_t numbers_each, std::size_t place,
                   const char* what, const Header& h);

  // Mesh bodies (x_parse_mesh.cpp).
  void parse_mesh(const Header& h, std::int64_t frame, bool top_level);
  void parse_normals(const Header& h, MeshRec& m);
  void parse_uvs(const Header& h, MeshRec& m);
  void parse_decl_data(const Header& h, MeshRec& m);
  void parse_skin_weights(const Header& h, MeshRec& m);
  MaterialRec parse_material(const Header& h);
  void parse_material_list(const Header& h, MeshRec& m);

  XTokenizer& tk_;
  std::vector<std::string>& warnings_;
  io::DocumentBudget& budget_;
  Records r_;
  std::map<std::string, bool> noted_;
};

// Reads the children of `h` up to its closing brace: a reference '{ Name }' goes to
// `on_reference`, a child object's header to `on_object`. Anything else is an error; where
// `after_data` is given, stray data is reported as "more data than its counts say".
template <typename OnReference, typename OnObject>
void Parser::for_each_child(const Header& h, OnReference on_reference, OnObject on_object,
                            const char* after_data) {
  for (;;) {
    const Token t = tk_.next();
    if (t.kind == TokenKind::kCloseBrace) return;
    if (t.kind == TokenKind::kOpenBrace) {
      on_reference(t);
      continue;
    }
    if (t.kind == TokenKind::kEnd) {
      fail(t.place, "the file ends inside " + title(h) + " opened at " + at(h.place));
    }
    if (t.kind != TokenKind::kName) {
      if (after_data) {
        fail(t.place, title(h) + " has more data than its counts say: found " + describe(t) + " " +
                          after_data);
      }
      fail(t.place, title(h) + ": expected an object, found " + describe(t));
    }
    on_object(read_header(t));
  }
}

}  // namespace marrow::xfile
