#include "common/text_lines.h"

namespace marrow::io {

std::size_t line_end(std::string_view text, std::size_t pos) {
  while (pos < text.size() && !is_line_break(text[pos])) ++pos;
  return pos;
}

std::size_t line_of_byte(std::string_view text, std::size_t pos) {
  std::size_t line = 1;
  std::size_t i = 0;
  while (i < pos && i < text.size()) {
    const std::size_t br = line_break_length(text, i);
    if (br == 0) {
      ++i;
      continue;
    }
    // A CRLF whose LF is `pos` itself still belongs to the line it ends.
    if (i + br > pos && br == 2) break;
    ++line;
    i += br;
  }
  return line;
}

bool ends_with_line_break(std::string_view text) {
  return !text.empty() && is_line_break(text.back());
}

std::optional<TextLine> LineSplitter::next() {
  if (pos_ >= text_.size()) return std::nullopt;
  const std::size_t end = line_end(text_, pos_);
  TextLine line{text_.substr(pos_, end - pos_), number_};
  const std::size_t br = line_break_length(text_, end);
  pos_ = end + br;
  if (br > 0) ++number_;
  return line;
}

std::optional<TextLine> LineSplitter::next_nonblank() {
  while (std::optional<TextLine> line = next()) {
    for (char c : line->text) {
      if (c != ' ' && c != '\t' && c != '\f' && c != '\v') return line;
    }
  }
  return std::nullopt;
}

std::size_t LineSplitter::last_line() const {
  std::size_t last = number_;
  for (std::size_t i = pos_; i < text_.size();) {
    const std::size_t br = line_break_length(text_, i);
    last += br > 0 ? 1 : 0;
    i += br > 0 ? br : 1;
  }
  // A final break ends the last line; it does not start another one.
  if (ends_with_line_break(text_) && last > 1) --last;
  return last;
}

}  // namespace marrow::io
