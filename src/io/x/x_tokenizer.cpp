#include "x_tokenizer.h"
#include "io/common/float_chars.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/reader_support.h"
#include "common/text_lines.h"

namespace marrow::xfile {
namespace {

// Binary token identifiers (DirectX .X binary format).
enum : std::uint16_t {
  kTokName = 1,
  kTokString = 2,
  kTokInteger = 3,
  kTokGuid = 5,
  kTokIntegerList = 6,
  kTokFloatList = 7,
  kTokOpenBrace = 10,
  kTokCloseBrace = 11,
  kTokOpenParen = 12,
  kTokCloseParen = 13,
  kTokOpenBracket = 14,
  kTokCloseBracket = 15,
  kTokOpenAngle = 16,
  kTokCloseAngle = 17,
  kTokDot = 18,
  kTokComma = 19,
  kTokSemicolon = 20,
  kTokTemplate = 31,
  kTokWord = 40,
  kTokDword = 41,
  kTokFloat = 42,
  kTokDouble = 43,
  kTokChar = 44,
  kTokUchar = 45,
  kTokSword = 46,
  kTokSdword = 47,
  kTokVoid = 48,
  kTokLpstr = 49,
  kTokUnicode = 50,
  kTokCstring = 51,
  kTokArray = 52,
};

bool is_space(std::uint8_t c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool ends_word(std::uint8_t c) {
  return is_space(c) || c == '{' || c == '}' || c == '"' || c == ';' || c == ',' || c == '<' ||
         c == '>';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Classifies a text word: a number (integer or float) or a name.
void classify_word(Token& t) {
  const std::string_view w = t.text;
  if (w == "template") {
    t.kind = TokenKind::kTemplate;
    return;
  }
  t.kind = TokenKind::kName;
  const bool signed_start = w[0] == '-' || w[0] == '+' || w[0] == '.';
  if (!is_digit(w[0]) && !(signed_start && w.size() > 1 && (is_digit(w[1]) || w[1] == '.'))) {
    return;
  }
  std::string_view s = w;
  if (s[0] == '+') s.remove_prefix(1);
  const char* end = s.data() + s.size();
  bool all_digits = true;
  for (std::size_t i = s[0] == '-' ? 1 : 0; i < s.size(); ++i) all_digits &= is_digit(s[i]);
  if (all_digits && s != "-") {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), end, v);
    if (ec == std::errc() && ptr == end) {
      t.kind = TokenKind::kInteger;
      t.integer = v;
      t.real = static_cast<double>(v);
      return;
    }
  }
  double d = 0;
  const auto [ptr, ec] = io::parse_floating(s.data(), end, d);
  if (ptr != end) return;  // "1.#QNAN0", "12abc": a name, which a number slot rejects by name
  if (ec == std::errc::result_out_of_range) {
    d = std::numeric_limits<double>::infinity();
  } else if (ec != std::errc()) {
    return;
  }
  t.kind = TokenKind::kFloat;
  t.real = d;
}

}  // namespace

XTokenizer::XTokenizer(std::span<const std::uint8_t> body, bool binary, bool float64,
                       std::string file, std::size_t body_offset, std::string place_note)
    : data_(body),
      binary_(binary),
      float64_(float64),
      file_(std::move(file)),
      body_offset_(body_offset),
      place_note_(std::move(place_note)) {}

std::string XTokenizer::where(std::size_t place) const {
  if (binary_) return file_ + ": byte " + std::to_string(place) + place_note_;
  return file_ + ":" + std::to_string(place) + place_note_;
}

void XTokenizer::fail(std::size_t place, const std::string& what) const {
  throw XError(where(place) + ": " + what);
}

std::size_t XTokenizer::remaining() const {
  return data_.size() - pos_;
}

std::size_t XTokenizer::place_here() {
  return peek().place;
}

const Token& XTokenizer::peek() {
  if (!has_current_) {
    lex();
    has_current_ = true;
  }
  return current_;
}

Token XTokenizer::next() {
  peek();
  has_current_ = false;
  return current_;
}

void XTokenizer::lex() {
  current_ = Token{};
  if (binary_) {
    lex_binary();
  } else {
    lex_text();
  }
}

void XTokenizer::lex_text() {
  const std::size_t n = data_.size();
  const std::string_view text(reinterpret_cast<const char*>(data_.data()), n);
  for (;;) {
    while (pos_ < n && (is_space(data_[pos_]) || data_[pos_] == ',' || data_[pos_] == ';')) {
      if (io::closes_line(text, pos_)) ++line_;
      ++pos_;
    }
    if (pos_ >= n) {
      current_.kind = TokenKind::kEnd;
      current_.place = line_;
      return;
    }
    const bool comment =
        data_[pos_] == '#' || (data_[pos_] == '/' && pos_ + 1 < n && data_[pos_ + 1] == '/');
    if (!comment) break;
    pos_ = io::line_end(text, pos_);
  }
  const std::size_t start = pos_;
  const char* chars = reinterpret_cast<const char*>(data_.data());
  current_.place = line_;
  const std::uint8_t c = data_[pos_];
  if (c == '{' || c == '}') {
    current_.kind = c == '{' ? TokenKind::kOpenBrace : TokenKind::kCloseBrace;
    current_.text = std::string_view(chars + start, 1);
    ++pos_;
    return;
  }
  if (c == '"') {
    const std::size_t line = line_;
    ++pos_;
    while (pos_ < n && data_[pos_] != '"') {
      if (data_[pos_] == '\\' && pos_ + 1 < n) ++pos_;
      if (io::closes_line(text, pos_)) ++line_;
      ++pos_;
    }
    if (pos_ >= n) fail(line, "the string that starts here is not closed before the end of file");
    current_.kind = TokenKind::kString;
    current_.text = std::string_view(chars + start + 1, pos_ - start - 1);
    ++pos_;
    return;
  }
  if (c == '<') {
    while (pos_ < n && data_[pos_] != '>' && !io::is_line_break(text[pos_])) ++pos_;
    if (pos_ >= n || data_[pos_] != '>') fail(line_, "a GUID '<...' is not closed by '>'");
    current_.kind = TokenKind::kGuid;
    current_.text = std::string_view(chars + start, pos_ + 1 - start);
    ++pos_;
    return;
  }
  if (c == '>') fail(line_, "unexpected '>'");
  while (pos_ < n && !ends_word(data_[pos_]) &&
         !(data_[pos_] == '/' && pos_ + 1 < n && data_[pos_ + 1] == '/')) {
    ++pos_;
  }
  current_.text = std::string_view(chars + start, pos_ - start);
  classify_word(current_);
}

std::uint16_t XTokenizer::read_u16(std::size_t at) const {
  return static_cast<std::uint16_t>(data_[at] | (data_[at + 1] << 8));
}

std::uint32_t XTokenizer::read_u32(std::size_t at) const {
  return static_cast<std::uint32_t>(data_[at]) | (static_cast<std::uint32_t>(data_[at + 1]) << 8) |
         (static_cast<std::uint32_t>(data_[at + 2]) << 16) |
         (static_cast<std::uint32_t>(data_[at + 3]) << 24);
}

bool XTokenizer::need(std::size_t bytes, std::size_t token_start, const char* what) const {
  if (bytes > data_.size() - pos_) {
    fail(body_offset_ + token_start, std::string(what) + " runs past the end of the file (" +
                                         std::to_string(bytes) + " bytes needed, " +
                                         std::to_string(data_.size() - pos_) + " left)");
  }
  return true;
}

void XTokenizer::lex_binary() {
  const std::size_t n = data_.size();
  if (list_left_ > 0) {
    current_.place = body_offset_ + pos_;
    if (list_is_float_) {
      if (float64_) {
        double d;
        std::memcpy(&d, data_.data() + pos_, 8);
        current_.real = d;
        pos_ += 8;
      } else {
        float f;
        std::memcpy(&f, data_.data() + pos_, 4);
        current_.real = f;
        pos_ += 4;
      }
      current_.kind = TokenKind::kFloat;
    } else {
      current_.kind = TokenKind::kInteger;
      current_.integer = read_u32(pos_);
      current_.real = static_cast<double>(current_.integer);
      pos_ += 4;
    }
    --list_left_;
    return;
  }
  for (;;) {
    if (pos_ >= n) {
      current_.kind = TokenKind::kEnd;
      current_.place = body_offset_ + n;
      return;
    }
    const std::size_t start = pos_;
    current_.place = body_offset_ + start;
    need(2, start, "a token");
    const std::uint16_t id = read_u16(pos_);
    pos_ += 2;
    const char* chars = reinterpret_cast<const char*>(data_.data());
    switch (id) {
      case kTokName:
      case kTokString: {
        need(4, start, id == kTokName ? "a name" : "a string");
        const std::uint32_t count = read_u32(pos_);
        pos_ += 4;
        need(count, start, id == kTokName ? "a name" : "a string");
        current_.text = std::string_view(chars + pos_, count);
        pos_ += count;
        current_.kind = id == kTokName ? TokenKind::kName : TokenKind::kString;
        if (id == kTokString) {
          // The terminator: TOKEN_SEMICOLON or TOKEN_COMMA, written as a WORD token by some
          // writers and as a DWORD by others (then two zero bytes follow; 0 is no token).
          if (n - pos_ >= 2 && (read_u16(pos_) == kTokSemicolon || read_u16(pos_) == kTokComma)) {
            pos_ += 2;
            if (n - pos_ >= 2 && read_u16(pos_) == 0) pos_ += 2;
          }
        }
        return;
      }
      case kTokInteger:
        need(4, start, "an integer");
        current_.kind = TokenKind::kInteger;
        current_.integer = read_u32(pos_);
        current_.real = static_cast<double>(current_.integer);
        pos_ += 4;
        return;
      case kTokGuid:
        need(16, start, "a GUID");
        current_.kind = TokenKind::kGuid;
        current_.text = std::string_view(chars + pos_, 16);
        pos_ += 16;
        return;
      case kTokIntegerList:
      case kTokFloatList: {
        const bool is_float = id == kTokFloatList;
        const char* what = is_float ? "a float list" : "an integer list";
        need(4, start, what);
        const std::uint32_t count = read_u32(pos_);
        pos_ += 4;
        const std::size_t size = is_float && float64_ ? 8 : 4;
        if (count > (n - pos_) / size) need(static_cast<std::size_t>(count) * size, start, what);
        if (count == 0) continue;
        list_left_ = count;
        list_is_float_ = is_float;
        lex_binary();
        return;
      }
      case kTokOpenBrace:
      case kTokCloseBrace:
        current_.kind = id == kTokOpenBrace ? TokenKind::kOpenBrace : TokenKind::kCloseBrace;
        current_.text = id == kTokOpenBrace ? "{" : "}";
        return;
      case kTokComma:
      case kTokSemicolon:
        continue;
      case kTokTemplate:
        current_.kind = TokenKind::kTemplate;
        current_.text = "template";
        return;
      case kTokOpenParen:
      case kTokCloseParen:
      case kTokOpenBracket:
      case kTokCloseBracket:
      case kTokOpenAngle:
      case kTokCloseAngle:
      case kTokDot:
      case kTokWord:
      case kTokDword:
      case kTokFloat:
      case kTokDouble:
      case kTokChar:
      case kTokUchar:
      case kTokSword:
      case kTokSdword:
      case kTokVoid:
      case kTokLpstr:
      case kTokUnicode:
      case kTokCstring:
      case kTokArray:
        current_.kind = TokenKind::kOther;
        current_.text = "a template keyword";
        return;
      default:
        fail(body_offset_ + start, "unknown binary token " + std::to_string(id));
    }
  }
}

std::string XTokenizer::string_value(const Token& token) const {
  if (binary_) return std::string(token.text);
  std::string out;
  out.reserve(token.text.size());
  for (std::size_t i = 0; i < token.text.size(); ++i) {
    char c = token.text[i];
    if (c == '\\' && i + 1 < token.text.size()) {
      c = token.text[++i];
      if (c == 'n') c = '\n';
      if (c == 't') c = '\t';
    }
    out += c;
  }
  return out;
}

std::string describe(const Token& token) {
  auto quoted = [](std::string_view s) { return io::quote_token(s); };
  switch (token.kind) {
    case TokenKind::kEnd:
      return "the end of the file";
    case TokenKind::kName:
      return "name " + quoted(token.text);
    case TokenKind::kString:
      return "string " + quoted(token.text);
    case TokenKind::kGuid:
      return "a GUID";
    case TokenKind::kOpenBrace:
      return "'{'";
    case TokenKind::kCloseBrace:
      return "'}'";
    case TokenKind::kInteger:
      return "the number " +
             (token.text.empty() ? std::to_string(token.integer) : std::string(token.text));
    case TokenKind::kFloat: {
      if (!token.text.empty()) return "the number " + std::string(token.text);
      char buf[32];
      const auto r = io::print_shortest(buf, buf + sizeof buf, token.real);
      return "the number " + std::string(buf, r.ptr);
    }
    case TokenKind::kTemplate:
      return "'template'";
    case TokenKind::kOther:
      return token.text.empty() ? "a template keyword" : std::string(token.text);
  }
  return "a token";
}

}  // namespace marrow::xfile
