#include "md5_lexer.h"
#include "io/common/float_chars.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "common/reader_support.h"
#include "common/text_lines.h"

namespace marrow::md5 {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool ends_word(char c) {
  return is_space(c) || c == '(' || c == ')' || c == '{' || c == '}' || c == '"';
}

}  // namespace

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd:
      return "the end of the file";
    case TokenKind::kString:
      return "the string \"" + std::string(token.text.substr(0, 40)) + "\"";
    default:
      return io::quote_token(token.text);
  }
}

void Lexer::fail(std::size_t line, const std::string& what) const {
  throw Md5Error(where(line) + ": " + what);
}

std::string_view Lexer::take_comment() {
  std::string_view c = comment_;
  comment_ = {};
  while (!c.empty() && is_space(c.front())) c.remove_prefix(1);
  while (!c.empty() && is_space(c.back())) c.remove_suffix(1);
  return c;
}

const Token& Lexer::peek() {
  if (!has_current_) {
    lex();
    has_current_ = true;
  }
  return current_;
}

Token Lexer::next() {
  peek();
  has_current_ = false;
  return current_;
}

void Lexer::lex() {
  const std::size_t n = text_.size();
  for (;;) {
    while (pos_ < n && is_space(text_[pos_])) {
      if (io::closes_line(text_, pos_)) ++line_;
      ++pos_;
    }
    if (pos_ + 1 < n && text_[pos_] == '/' && text_[pos_ + 1] == '/') {
      const std::size_t end = io::line_end(text_, pos_);
      comment_ = text_.substr(pos_ + 2, end - pos_ - 2);
      pos_ = end;
      continue;
    }
    break;
  }
  current_ = Token{};
  current_.line = line_;
  if (pos_ >= n) return;
  const char c = text_[pos_];
  const std::size_t start = pos_;
  switch (c) {
    case '(':
    case ')':
    case '{':
    case '}':
      current_.kind = c == '('   ? TokenKind::kOpenParen
                      : c == ')' ? TokenKind::kCloseParen
                      : c == '{' ? TokenKind::kOpenBrace
                                 : TokenKind::kCloseBrace;
      current_.text = text_.substr(pos_++, 1);
      return;
    case '"': {
      ++pos_;
      while (pos_ < n && text_[pos_] != '"' && !io::is_line_break(text_[pos_])) ++pos_;
      if (pos_ >= n || text_[pos_] != '"') fail(line_, "a string is not closed on its line");
      current_.kind = TokenKind::kString;
      current_.text = text_.substr(start + 1, pos_ - start - 1);
      ++pos_;
      return;
    }
    default:
      while (pos_ < n && !ends_word(text_[pos_])) ++pos_;
      current_.kind = TokenKind::kWord;
      current_.text = text_.substr(start, pos_ - start);
  }
}

void Lexer::expect_word(std::string_view word) {
  const Token t = next();
  if (t.kind != TokenKind::kWord || t.text != word) {
    fail(t.line, "expected '" + std::string(word) + "', found " + describe(t));
  }
}

void Lexer::expect(TokenKind kind, const char* what) {
  const Token t = next();
  if (t.kind != kind) fail(t.line, std::string("expected ") + what + ", found " + describe(t));
}

std::string Lexer::read_string(const char* what) {
  const Token t = next();
  if (t.kind != TokenKind::kString) {
    fail(t.line, std::string("expected ") + what + " (a quoted string), found " + describe(t));
  }
  return std::string(t.text);
}

std::int64_t Lexer::read_integer(const char* what, std::int64_t min, std::int64_t max) {
  const Token t = next();
  std::int64_t v = 0;
  const char* end = t.text.data() + t.text.size();
  const auto [ptr, ec] = std::from_chars(t.text.data(), end, v);
  if (t.kind != TokenKind::kWord || ec != std::errc() || ptr != end) {
    fail(t.line, std::string("expected ") + what + " (a whole number), found " + describe(t));
  }
  if (v < min || v > max) {
    fail(t.line, std::string(what) + " " + std::to_string(v) + " is out of range (" +
                     std::to_string(min) + " to " + std::to_string(max) + ")");
  }
  return v;
}

float Lexer::read_float(const char* what) {
  const Token t = next();
  std::string_view s = t.text;
  if (s.size() > 1 && s[0] == '+') s.remove_prefix(1);
  double v = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = io::parse_floating(s.data(), end, v);
  if (t.kind != TokenKind::kWord || s.empty() || ptr != end ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    fail(t.line, std::string("expected ") + what + " (a number), found " + describe(t));
  }
  if (ec != std::errc() || !std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max()) {
    fail(t.line, std::string(what) + " " + describe(t) + " is not a finite float");
  }
  return static_cast<float>(v);
}

void Lexer::read_vector(float* out, int count, const char* what) {
  expect(TokenKind::kOpenParen, "'(' opening a vector");
  for (int i = 0; i < count; ++i) out[i] = read_float(what);
  expect(TokenKind::kCloseParen, "')' closing a vector");
}

}  // namespace marrow::md5
