// One rule for where a line of text ends, shared by every text reader (OBJ, BVH, .X text, MD5,
// SMD, glTF's JSON positions) and by their pre-checks: LF, CRLF and a lone CR (old Mac OS) each
// end one line. Readers that walk characters use line_break_length(); readers that work line by
// line use LineSplitter. A pre-check and the parser it guards then always see the same lines.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace marrow::io {

constexpr bool is_line_break(char c) {
  return c == '\n' || c == '\r';
}

// The length of the line break that starts at text[pos]: 2 for CRLF, 1 for LF or a lone CR,
// 0 when text[pos] ends no line (or pos is past the end).
constexpr std::size_t line_break_length(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return 0;
  if (text[pos] == '\n') return 1;
  if (text[pos] != '\r') return 0;
  return pos + 1 < text.size() && text[pos + 1] == '\n' ? 2 : 1;
}

// True when text[pos] is the last byte of a line break (an LF, or a CR not followed by LF):
// a reader that walks byte by byte counts lines by the rule above by counting these.
constexpr bool closes_line(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return false;
  return text[pos] == '\n' ||
         (text[pos] == '\r' && (pos + 1 >= text.size() || text[pos + 1] != '\n'));
}

// Where the line that contains byte `pos` ends (the position of its break, or text.size()).
std::size_t line_end(std::string_view text, std::size_t pos);

// The 1-based line of byte `pos`, counting breaks by the rule above (for messages).
std::size_t line_of_byte(std::string_view text, std::size_t pos);

// True when the text ends with a line break: a final break does not start another line.
bool ends_with_line_break(std::string_view text);

struct TextLine {
  std::string_view text;   // without its break
  std::size_t number = 0;  // 1-based
};

// Lines one at a time, with their numbers.
class LineSplitter {
 public:
  // Starts at byte `pos`, which begins line `number`.
  explicit LineSplitter(std::string_view text, std::size_t pos = 0, std::size_t number = 1)
      : text_(text), pos_(pos), number_(number) {}

  // The next line, or nothing at the end of the text. A text that ends with a break has no
  // empty line after it.
  std::optional<TextLine> next();
  // The next line holding something other than spaces, tabs, form feeds or vertical tabs.
  std::optional<TextLine> next_nonblank();

  std::size_t position() const { return pos_; }
  std::size_t remaining_bytes() const { return text_.size() - pos_; }
  // The number of the last line of the text (for "end of file" messages).
  std::size_t last_line() const;

 private:
  std::string_view text_;
  std::size_t pos_;
  std::size_t number_;
};

}  // namespace marrow::io
