// Tokens of an MD5 text file (.md5mesh, .md5anim): words, numbers, "quoted strings", ( ) { },
// and // comments to the end of the line, with line numbers counted by the shared rule (LF,
// CRLF, lone CR). Every read that can fail throws Md5Error naming the file and the line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace marrow::md5 {

class Md5Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class TokenKind : std::uint8_t {
  kEnd,
  kWord,
  kString,
  kOpenParen,
  kCloseParen,
  kOpenBrace,
  kCloseBrace
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  // a word as written, or a string's contents without the quotes
  std::size_t line = 0;
};

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  Token next();
  const Token& peek();

  // "file:LINE".
  std::string where(std::size_t line) const { return file_ + ":" + std::to_string(line); }
  [[noreturn]] void fail(std::size_t line, const std::string& what) const;
  const std::string& file() const { return file_; }
  // Bytes not read yet: a bound on how many more items the file can hold.
  std::size_t remaining() const { return text_.size() - pos_; }
  // The text of the last comment passed since the previous call (e.g. "meshes: body"), trimmed.
  std::string_view take_comment();

  // Reads a token of the kind named in `what`, or fails saying what was found instead.
  void expect_word(std::string_view word);
  void expect(TokenKind kind, const char* what);
  std::string read_string(const char* what);
  std::int64_t read_integer(const char* what, std::int64_t min, std::int64_t max);
  float read_float(const char* what);
  // Three floats in parentheses: ( x y z ).
  void read_vector(float* out, int count, const char* what);

 private:
  void lex();

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  Token current_;
  bool has_current_ = false;
  std::string_view comment_;
};

// How a token appears in a message: 'word', "string", '(' or "the end of the file".
std::string describe(const Token& token);

}  // namespace marrow::md5
