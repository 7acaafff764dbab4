// Tokens of a DirectX .X body, text or binary, behind one interface. Separators (',' and ';',
// TOKEN_COMMA and TOKEN_SEMICOLON) are skipped: exporters disagree on them, and the counts the
// data carries are what the reader checks. Binary INTEGER_LIST and FLOAT_LIST tokens are handed
// out one number at a time, so the parser reads both encodings the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace marrow::xfile {

// Thrown inside the reader; the message already names the file and the place.
class XError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class TokenKind : std::uint8_t {
  kEnd,
  kName,        // an identifier: a template or object name
  kString,      // "quoted" (text) or TOKEN_STRING (binary)
  kGuid,        // <...> or TOKEN_GUID
  kOpenBrace,   // {
  kCloseBrace,  // }
  kInteger,     // a number without fraction or exponent (text) or an INTEGER(_LIST) element
  kFloat,       // a number with a fraction or exponent (text) or a FLOAT_LIST element
  kTemplate,    // the word `template` or TOKEN_TEMPLATE
  kOther,       // template-only punctuation and type keywords of the binary encoding
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  // Name and string contents, or how a number or other token is spelled. Text strings are raw:
  // backslash escapes are still in them (see XTokenizer::string_value).
  std::string_view text;
  std::int64_t integer = 0;  // kInteger
  double real = 0;           // kInteger and kFloat
  std::size_t place = 0;     // line (text) or byte offset (binary)
};

class XTokenizer {
 public:
  // `body` follows the 16-byte header; `body_offset` is where it starts in the file (for binary
  // byte offsets). `place_note` is appended to binary places (e.g. " of the decompressed data").
  XTokenizer(std::span<const std::uint8_t> body, bool binary, bool float64, std::string file,
             std::size_t body_offset, std::string place_note = {});

  const Token& peek();
  Token next();
  bool binary() const { return binary_; }
  // Bytes not read yet: a bound on how many more numbers the file can hold.
  std::size_t remaining() const;
  // The smallest number of bytes one number takes in this encoding (for count caps).
  std::size_t min_bytes_per_number() const { return binary_ ? 4 : 1; }

  // "file:LINE" (text) or "file: byte N" (binary).
  std::string where(std::size_t place) const;
  [[noreturn]] void fail(std::size_t place, const std::string& what) const;
  // The place of the next token (the end of the file when none is left).
  std::size_t place_here();

  // A string token's contents with text escapes (\\, \", \n, \t) resolved.
  std::string string_value(const Token& token) const;

 private:
  void lex();
  void lex_text();
  void lex_binary();
  std::uint16_t read_u16(std::size_t at) const;
  std::uint32_t read_u32(std::size_t at) const;
  bool need(std::size_t bytes, std::size_t token_start, const char* what) const;

  std::span<const std::uint8_t> data_;
  bool binary_;
  bool float64_;
  std::string file_;
  std::size_t body_offset_;
  std::string place_note_;

  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  Token current_;
  bool has_current_ = false;
  // Binary number lists being handed out.
  std::uint32_t list_left_ = 0;
  bool list_is_float_ = false;
};

// A name as it appears in messages: 'name'.
inline std::string named(std::string_view s) {
  return "'" + std::string(s) + "'";
}

// How a token appears in a message: 'name', 42, "string", '{', or "the end of the file".
std::string describe(const Token& token);

}  // namespace marrow::xfile
