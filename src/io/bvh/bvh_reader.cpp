// BVH → Asset. Every ROOT, JOINT and End Site becomes a joint, in the order the file declares
// them (already parent-before-child); the MOTION section becomes one LINEAR clip. Errors are
// thrown as BvhError deep in the parser and turned into a marrow::Error at the boundary, so
// every message starts with "file:line:".
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/budget.h"
#include "common/reader_support.h"
#include "common/text_lines.h"
#include "io/common/float_chars.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/bvh.h"

namespace marrow {
namespace {

class BvhError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& file, std::size_t line, const std::string& what) {
  throw BvhError(make_error(file + ":" + std::to_string(line), what).message);
}

std::string quote(std::string_view token) {
  return io::quote_token(token);
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

using io::iequals;

enum class NumberStatus { kOk, kNotNumber, kNotFinite, kOutOfRange };

// A float written in decimal ("-1.5", ".25", "+3", "1e-3"); the whole token must be the number.
NumberStatus parse_float(std::string_view s, float& out) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-') s.remove_prefix(1);
  double d = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = io::parse_floating(s.data(), end, d);
  if (ptr != end || s.empty()) return NumberStatus::kNotNumber;
  if (ec == std::errc::result_out_of_range) return NumberStatus::kOutOfRange;
  if (ec != std::errc()) return NumberStatus::kNotNumber;
  if (!std::isfinite(d)) return NumberStatus::kNotFinite;
  if (std::fabs(d) > std::numeric_limits<float>::max()) return NumberStatus::kOutOfRange;
  out = static_cast<float>(d);
  return NumberStatus::kOk;
}

// The words a NumberStatus other than kOk puts in a message.
std::string number_problem(NumberStatus status) {
  switch (status) {
    case NumberStatus::kNotNumber:
      return "is not a number";
    case NumberStatus::kNotFinite:
      return "is not finite";
    case NumberStatus::kOutOfRange:
      return "is out of the range of a float";
    case NumberStatus::kOk:
      break;
  }
  return "is fine";
}

struct Token {
  std::string_view text;
  std::size_t line = 0;
};

// Whitespace-separated tokens with line numbers; '{' and '}' are tokens of their own even when
// glued to a word.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte order mark
  }

  std::optional<Token> next() {
    skip_space(true);
    if (pos_ >= text_.size()) return std::nullopt;
    const std::size_t start = pos_;
    if (text_[pos_] == '{' || text_[pos_] == '}') {
      ++pos_;
    } else {
      while (pos_ < text_.size() && !is_space(text_[pos_]) && text_[pos_] != '{' &&
             text_[pos_] != '}') {
        ++pos_;
      }
    }
    return Token{text_.substr(start, pos_ - start), line_};
  }

  // The next token if it lies on the current line, without crossing a newline.
  std::optional<Token> next_on_line() {
    skip_space(false);
    if (pos_ >= text_.size() || io::is_line_break(text_[pos_])) return std::nullopt;
    return next();
  }

  std::size_t line() const { return line_; }
  std::size_t pos() const { return pos_; }
  // The last line of the file (a final line break does not start another line).
  std::size_t eof_line() const {
    return line_ > 1 && io::ends_with_line_break(text_) ? line_ - 1 : line_;
  }

 private:
  // Lines end at LF, CRLF or a lone CR (io/common/text_lines.h).
  void skip_space(bool cross_lines) {
    while (pos_ < text_.size() && is_space(text_[pos_])) {
      if (io::is_line_break(text_[pos_]) && !cross_lines) return;
      if (io::closes_line(text_, pos_)) ++line_;
      ++pos_;
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

// Splits a line at whitespace, calling f(token) for each word; stops early when f returns false.
template <typename F>
void for_each_word(std::string_view line, F&& f) {
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i >= line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (!f(line.substr(start, i - start))) return;
  }
}

enum class Channel : std::uint8_t { kXpos, kYpos, kZpos, kXrot, kYrot, kZrot };

std::optional<Channel> channel_of(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, Channel>, 6> kNames{{
      {"Xposition", Channel::kXpos},
      {"Yposition", Channel::kYpos},
      {"Zposition", Channel::kZpos},
      {"Xrotation", Channel::kXrot},
      {"Yrotation", Channel::kYrot},
      {"Zrotation", Channel::kZrot},
  }};
  for (const auto& [text, channel] : kNames) {
    if (iequals(name, text)) return channel;
  }
  return std::nullopt;
}

bool is_position(Channel c) {
  return c <= Channel::kZpos;
}
int axis_of(Channel c) {
  return static_cast<int>(c) % 3;
}

bool is_keyword(std::string_view t) {
  for (std::string_view k : {"ROOT", "JOINT", "End", "OFFSET", "CHANNELS", "MOTION", "{", "}"}) {
    if (iequals(t, k)) return true;
  }
  return false;
}

struct Node {
  std::string name;
  std::int64_t parent = -1;
  Vec3 offset;
  bool has_offset = false;
  bool has_channels = false;
  bool end_site = false;
  std::size_t line = 0;           // where the joint is declared
  std::vector<Channel> channels;  // in the file's order
  std::size_t first_channel = 0;  // index of its first value in a frame line
};

struct Hierarchy {
  std::vector<Node> nodes;
  std::size_t channel_count = 0;
  bool has_motion = false;
  std::size_t motion_pos = 0;  // byte after the MOTION keyword
  std::size_t motion_line = 0;
};

class HierarchyParser {
 public:
  HierarchyParser(std::string_view text, const std::string& file, io::DocumentBudget& budget)
      : lex_(text), file_(file), budget_(budget) {}

  Hierarchy parse() {
    const std::optional<Token> first = lex_.next();
    if (!first) fail(file_, lex_.eof_line(), "the file is empty (expected HIERARCHY)");
    if (!iequals(first->text, "HIERARCHY")) {
      fail(file_, first->line, "expected HIERARCHY, found " + quote(first->text));
    }
    std::vector<std::size_t> open;  // nodes whose '{' is not closed yet, innermost last
    for (;;) {
      const std::optional<Token> tok = lex_.next();
      if (!tok) {
        if (!open.empty()) {
          const Node& n = h_.nodes[open.back()];
          fail(file_, lex_.eof_line(),
               "end of file inside joint " + quote(n.name) + " declared at line " +
                   std::to_string(n.line) + " (missing '}')");
        }
        if (h_.nodes.empty()) fail(file_, lex_.eof_line(), "end of file: HIERARCHY has no ROOT");
        return std::move(h_);  // no MOTION section: a skeleton without a clip
      }
      const std::string_view t = tok->text;
      if (open.empty()) {
        if (iequals(t, "ROOT")) {
          open.push_back(declare(*tok, -1));
        } else if (iequals(t, "MOTION")) {
          if (h_.nodes.empty()) fail(file_, tok->line, "MOTION before any ROOT");
          h_.has_motion = true;
          h_.motion_pos = lex_.pos();
          h_.motion_line = tok->line;
          return std::move(h_);
        } else if (t == "}") {
          fail(file_, tok->line, "'}' without a matching '{'");
        } else {
          fail(file_, tok->line, "expected ROOT or MOTION, found " + quote(t));
        }
        continue;
      }
      const std::size_t current = open.back();
      if (iequals(t, "OFFSET")) {
        read_offset(current, tok->line);
      } else if (iequals(t, "CHANNELS")) {
        read_channels(current, tok->line);
      } else if (iequals(t, "JOINT")) {
        if (h_.nodes[current].end_site) {
          fail(file_, tok->line, "JOINT inside an End Site (End Sites have no children)");
        }
        check_depth(open, tok->line);
        open.push_back(declare(*tok, static_cast<std::int64_t>(current)));
      } else if (iequals(t, "End")) {
        if (h_.nodes[current].end_site) fail(file_, tok->line, "End Site inside an End Site");
        check_depth(open, tok->line);
        const std::optional<Token> site = lex_.next();
        if (!site || !iequals(site->text, "Site")) {
          fail(file_, site ? site->line : lex_.eof_line(),
               "expected 'Site' after 'End', found " + (site ? quote(site->text) : "end of file"));
        }
        open.push_back(add_node(h_.nodes[current].name + "_End", static_cast<std::int64_t>(current),
                                true, tok->line));
        expect_open_brace("End Site of " + quote(h_.nodes[current].name));
      } else if (t == "}") {
        const Node& n = h_.nodes[current];
        if (!n.has_offset) {
          fail(file_, tok->line,
               (n.end_site
                    ? "End Site of " + quote(h_.nodes[static_cast<std::size_t>(n.parent)].name)
                    : "joint " + quote(n.name)) +
                   " (line " + std::to_string(n.line) + ") has no OFFSET");
        }
        open.pop_back();
      } else if (iequals(t, "ROOT") || iequals(t, "MOTION")) {
        fail(file_, tok->line,
             std::string(t) + " inside joint " + quote(h_.nodes[current].name) +
                 " declared at line " + std::to_string(h_.nodes[current].line) + " (missing '}')");
      } else if (t == "{") {
        fail(file_, tok->line, "unexpected '{' inside joint " + quote(h_.nodes[current].name));
      } else {
        fail(file_, tok->line,
             "unexpected " + quote(t) + " inside joint " + quote(h_.nodes[current].name) +
                 " (expected OFFSET, CHANNELS, JOINT, End Site or '}')");
      }
    }
  }

 private:
  std::size_t add_node(std::string name, std::int64_t parent, bool end_site, std::size_t line) {
    if (h_.nodes.size() >= kMaxJoints) {
      fail(file_, line, "more than " + std::to_string(kMaxJoints) + " joints");
    }
    budget_.charge(sizeof(Node) + name.size(),
                   [&] { return file_ + ":" + std::to_string(line) + ": joint " + quote(name); });
    Node n;
    n.name = std::move(name);
    n.parent = parent;
    n.end_site = end_site;
    n.line = line;
    h_.nodes.push_back(std::move(n));
    return h_.nodes.size() - 1;
  }

  // ROOT or JOINT: the name is the rest of the line (names may hold spaces), then '{'.
  std::size_t declare(const Token& keyword, std::int64_t parent) {
    std::string name;
    while (const std::optional<Token> word = lex_.next_on_line()) {
      if (word->text == "{") {
        if (name.empty()) break;
        return add_node(std::move(name), parent, false, keyword.line);
      }
      if (!name.empty()) name += ' ';
      name.append(word->text);
    }
    if (name.empty()) fail(file_, keyword.line, std::string(keyword.text) + " without a name");
    const std::size_t index = add_node(std::move(name), parent, false, keyword.line);
    expect_open_brace(std::string(keyword.text) + " " + quote(h_.nodes[index].name));
    return index;
  }

  void expect_open_brace(const std::string& what) {
    const std::optional<Token> brace = lex_.next();
    if (!brace) fail(file_, lex_.eof_line(), "end of file: expected '{' after " + what);
    if (brace->text != "{") {
      fail(file_, brace->line, "expected '{' after " + what + ", found " + quote(brace->text));
    }
  }

  void read_offset(std::size_t node, std::size_t line) {
    Node& n = h_.nodes[node];
    if (n.has_offset) fail(file_, line, "second OFFSET in joint " + quote(n.name));
    float v[3];
    for (int k = 0; k < 3; ++k) {
      const std::optional<Token> tok = lex_.next();
      if (!tok) fail(file_, lex_.eof_line(), "end of file inside OFFSET");
      const NumberStatus status = parse_float(tok->text, v[k]);
      if (status != NumberStatus::kOk) {
        fail(file_, tok->line,
             "OFFSET of " + quote(n.name) + ": " + quote(tok->text) + " " + number_problem(status) +
                 " (OFFSET takes 3 numbers)");
      }
    }
    n.offset = {v[0], v[1], v[2]};
    n.has_offset = true;
  }

  void read_channels(std::size_t node, std::size_t line) {
    Node& n = h_.nodes[node];
    if (n.end_site) fail(file_, line, "End Site with CHANNELS (End Sites are not animated)");
    if (n.has_channels) fail(file_, line, "second CHANNELS in joint " + quote(n.name));
    n.has_channels = true;
    const std::optional<Token> count_tok = lex_.next();
    if (!count_tok) fail(file_, lex_.eof_line(), "end of file after CHANNELS");
    const std::string_view ct = count_tok->text;
    unsigned count = 0;
    const auto [ptr, ec] = std::from_chars(ct.data(), ct.data() + ct.size(), count);
    if (ec != std::errc() || ptr != ct.data() + ct.size() || count > 6) {
      fail(file_, count_tok->line,
           "CHANNELS count " + quote(ct) + " of joint " + quote(n.name) +
               " must be a whole number from 0 to 6");
    }
    for (unsigned i = 0; i < count; ++i) {
      const std::optional<Token> tok = lex_.next();
      if (!tok || is_keyword(tok->text)) {
        fail(file_, tok ? tok->line : lex_.eof_line(),
             "CHANNELS of joint " + quote(n.name) + " declares " + std::to_string(count) +
                 " channels but names " + std::to_string(i));
      }
      const std::optional<Channel> c = channel_of(tok->text);
      if (!c) {
        fail(file_, tok->line,
             "unknown channel name " + quote(tok->text) + " in joint " + quote(n.name) +
                 " (expected Xposition, Yposition, Zposition, Xrotation, Yrotation or Zrotation)");
      }
      if (std::find(n.channels.begin(), n.channels.end(), *c) != n.channels.end()) {
        fail(file_, tok->line,
             "channel " + quote(tok->text) + " listed twice in joint " + quote(n.name));
      }
      n.channels.push_back(*c);
    }
    n.first_channel = h_.channel_count;
    h_.channel_count += count;
  }

  // A joint declared on `line` with `open` joints above it (ROOT has none).
  void check_depth(const std::vector<std::size_t>& open, std::size_t line) {
    if (open.size() > io::kMaxNestingDepth) {
      fail(file_, line,
           "joint lies " + std::to_string(open.size()) + " joints below its ROOT " +
               quote(h_.nodes[open.front()].name) + "; marrow reads hierarchies at most " +
               std::to_string(io::kMaxNestingDepth) + " levels deep");
    }
  }

  Lexer lex_;
  const std::string& file_;
  io::DocumentBudget& budget_;
  Hierarchy h_;
};

// End Sites are named "<parent>_End"; a name taken by another joint gets a number appended
// ("<parent>_End2", ...). Joint names repeated in the file are kept and reported.
void name_end_sites(std::vector<Node>& nodes, std::vector<std::string>& warnings) {
  std::set<std::string> taken;
  std::unordered_map<std::string, std::size_t> seen;
  for (const Node& n : nodes) {
    if (n.end_site) continue;
    taken.insert(n.name);
    if (++seen[n.name] == 2) {
      warnings.push_back("joint name '" + n.name + "' is used by several joints (line " +
                         std::to_string(n.line) + "); lookups by name find the first");
    }
  }
  for (Node& n : nodes) {
    if (!n.end_site) continue;
    std::string candidate = n.name;
    for (int k = 2; taken.count(candidate); ++k) candidate = n.name + std::to_string(k);
    n.name = candidate;
    taken.insert(candidate);
  }
}

// Rotation of one joint from its Euler channels: R = R(c1) * R(c2) * R(c3) for channels listed
// c1 c2 c3 (column vectors: c3 is applied first). Computed in double.
struct QuatD {
  double x = 0, y = 0, z = 0, w = 1;
};

QuatD mul(const QuatD& a, const QuatD& b) {
  return {
      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

QuatD axis_rotation(int axis, double degrees) {
  constexpr double kPi = 3.14159265358979323846;
  const double half = degrees * (kPi / 360.0);
  QuatD q;
  q.w = std::cos(half);
  const double s = std::sin(half);
  (axis == 0 ? q.x : axis == 1 ? q.y : q.z) = s;
  return q;
}

struct Motion {
  std::uint64_t frames = 0;
  double frame_time = 0;
  std::size_t frame_time_line = 0;
  std::string frame_time_text;  // as written, for messages
  std::vector<float> values;    // frames x channel_count, row by row
};

// "Frames: 12" or "Frame Time: 0.01": the words, a colon, then one number and nothing else.
std::string_view header_value(const io::TextLine& line,
                              std::initializer_list<std::string_view> words,
                              const std::string& file, std::string_view expected) {
  std::string_view s = line.text;
  const auto skip = [&s] {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  };
  for (std::string_view w : words) {
    skip();
    if (s.size() < w.size() || !iequals(s.substr(0, w.size()), w)) {
      fail(file, line.number, "expected '" + std::string(expected) + "', found " + quote(s));
    }
    s.remove_prefix(w.size());
  }
  skip();
  if (s.empty() || s.front() != ':') {
    fail(file, line.number, "expected '" + std::string(expected) + "', found " + quote(line.text));
  }
  s.remove_prefix(1);
  std::string_view value;
  int words_found = 0;
  for_each_word(s, [&](std::string_view w) {
    if (++words_found == 1) value = w;
    return words_found < 2;
  });
  if (words_found != 1) {
    fail(file, line.number, std::string(expected) + " takes one number, found " + quote(s));
  }
  return value;
}

Motion read_motion(std::string_view text, const Hierarchy& h, const std::string& file,
                   io::DocumentBudget& budget, std::vector<std::string>& warnings) {
  // Nothing may follow MOTION on its line.
  io::LineSplitter lines(text, h.motion_pos, h.motion_line);
  if (const std::optional<io::TextLine> rest = lines.next()) {
    if (std::any_of(rest->text.begin(), rest->text.end(), [](char c) { return !is_space(c); })) {
      fail(file, h.motion_line, "unexpected " + quote(rest->text) + " after MOTION");
    }
  }
  Motion m;
  const std::optional<io::TextLine> frames_line = lines.next_nonblank();
  if (!frames_line) fail(file, lines.last_line(), "end of file: expected 'Frames:' after MOTION");
  const std::string_view fv = header_value(*frames_line, {"Frames"}, file, "Frames:");
  const auto [fptr, fec] = std::from_chars(fv.data(), fv.data() + fv.size(), m.frames);
  if (fec != std::errc() || fptr != fv.data() + fv.size()) {
    fail(file, frames_line->number, "Frames: " + quote(fv) + " is not a whole number >= 0");
  }
  const std::optional<io::TextLine> time_line = lines.next_nonblank();
  if (!time_line) {
    fail(file, lines.last_line(), "end of file: expected 'Frame Time:' after Frames");
  }
  const std::string_view tv = header_value(*time_line, {"Frame", "Time"}, file, "Frame Time:");
  m.frame_time_line = time_line->number;
  m.frame_time_text = std::string(tv);
  {
    // Parsed as double: 1 / frame_time is kept as the clip's ticks per second.
    std::string_view s = tv;
    if (s.size() > 1 && s[0] == '+' && s[1] != '-') s.remove_prefix(1);
    const auto [tptr, tec] = io::parse_floating(s.data(), s.data() + s.size(), m.frame_time);
    if (tptr != s.data() + s.size() ||
        (tec != std::errc() && tec != std::errc::result_out_of_range)) {
      fail(file, time_line->number, "Frame Time: " + quote(tv) + " is not a number");
    }
    if (tec != std::errc()) {
      fail(file, time_line->number, "Frame Time: " + quote(tv) + " is out of range");
    }
    if (!std::isfinite(m.frame_time)) {
      fail(file, time_line->number, "Frame Time: " + quote(tv) + " is not finite");
    }
    if (!(m.frame_time > 0) || !std::isfinite(1.0 / m.frame_time)) {
      fail(file, time_line->number, "Frame Time: " + quote(tv) + " must be greater than 0");
    }
  }

  const std::size_t channels = h.channel_count;
  if (channels > 0 && m.frames > 0) {
    // Never trust the claimed count for memory: a frame needs at least two bytes per value.
    const std::uint64_t possible = lines.remaining_bytes() / (2 * channels) + 1;
    const std::uint64_t frames = std::min<std::uint64_t>(m.frames, possible);
    budget.charge(frames * channels, sizeof(float),
                  [&] { return file + ":" + std::to_string(frames_line->number) + ": MOTION"; });
    m.values.reserve(static_cast<std::size_t>(frames) * channels);
    for (std::uint64_t f = 0; f < m.frames; ++f) {
      const std::optional<io::TextLine> line = lines.next_nonblank();
      if (!line) {
        fail(file, lines.last_line(),
             "end of file after " + std::to_string(f) + " of the " + std::to_string(m.frames) +
                 " frames that 'Frames:' (line " + std::to_string(frames_line->number) +
                 ") announces (truncated file?)");
      }
      std::size_t count = 0;
      for_each_word(line->text, [&](std::string_view word) {
        if (++count > channels) {
          fail(file, line->number,
               "frame " + std::to_string(f) + " has more than the " + std::to_string(channels) +
                   " values the hierarchy's CHANNELS declare");
        }
        float v = 0;
        const NumberStatus status = parse_float(word, v);
        if (status != NumberStatus::kOk) {
          fail(file, line->number,
               "frame " + std::to_string(f) + ", value " + std::to_string(count) + ": " +
                   quote(word) + " " + number_problem(status));
        }
        m.values.push_back(v);
        return true;
      });
      if (count < channels) {
        fail(file, line->number,
             "frame " + std::to_string(f) + " has " + std::to_string(count) + " values, but the " +
                 "hierarchy's CHANNELS declare " + std::to_string(channels));
      }
    }
  }
  std::size_t extra = 0, first_extra = 0;
  while (const std::optional<io::TextLine> line = lines.next_nonblank()) {
    if (extra++ == 0) first_extra = line->number;
  }
  if (extra > 0 && channels > 0) {
    warnings.push_back(std::to_string(extra) + " line(s) after the last of the " +
                       std::to_string(m.frames) + " frames ignored (from line " +
                       std::to_string(first_extra) + ")");
  } else if (extra > 0) {
    warnings.push_back(std::to_string(extra) + " line(s) after 'Frame Time:' ignored: the " +
                       "hierarchy declares no channels");
  }
  return m;
}

Clip build_clip(const Hierarchy& h, const Motion& m, const std::vector<JointIndex>& joint_of_node,
                std::size_t joint_count, const std::string& file, const std::string& clip_name,
                io::DocumentBudget& budget) {
  ClipBuilder builder(clip_name);
  std::uint64_t animated = 0;
  for (const Node& n : h.nodes) animated += n.channels.empty() ? 0 : 1;
  // Per frame: a time, and per animated joint up to 3 + 4 values, built and then copied.
  budget.charge(m.values.empty() ? 0 : m.frames, 2 * (1 + 7 * animated) * sizeof(float),
                [&] { return file + ":" + std::to_string(m.frame_time_line) + ": MOTION"; });
  builder.set_ticks_per_second(1.0 / m.frame_time);
  // Frame lines were read only when the hierarchy has channels: then all m.frames are present.
  const std::size_t frames = static_cast<std::size_t>(m.values.empty() ? 0 : m.frames);
  std::vector<float> times(frames);
  for (std::size_t f = 0; f < frames; ++f) {
    const double t = static_cast<double>(f) * m.frame_time;
    if (t > std::numeric_limits<float>::max()) {
      fail(file, m.frame_time_line, "Frames x Frame Time is too long for float seconds");
    }
    times[f] = static_cast<float>(t);
    if (f > 0 && !(times[f] > times[f - 1])) {
      fail(file, m.frame_time_line,
           "Frame Time " + m.frame_time_text + " cannot give " + std::to_string(m.frames) +
               " distinct finite key times in float seconds");
    }
  }
  if (frames == 0) {
    const double duration = m.frames > 0 ? static_cast<double>(m.frames - 1) * m.frame_time : 0.0;
    if (duration > std::numeric_limits<float>::max()) {
      fail(file, m.frame_time_line, "Frames x Frame Time is too long a duration");
    }
    builder.set_duration(static_cast<float>(duration));
  }
  const std::size_t stride = h.channel_count;
  std::vector<float> values;
  for (std::size_t i = 0; i < h.nodes.size() && frames > 0; ++i) {
    const Node& n = h.nodes[i];
    const bool any_position = std::any_of(n.channels.begin(), n.channels.end(), is_position);
    const bool any_rotation = std::any_of(n.channels.begin(), n.channels.end(),
                                          [](Channel c) { return !is_position(c); });
    const std::string where = file + ":" + std::to_string(n.line) + ": joint '" + n.name + "'";
    if (any_position) {
      values.assign(frames * 3, 0.0f);
      for (std::size_t f = 0; f < frames; ++f) {
        float* p = values.data() + f * 3;
        p[0] = n.offset.x, p[1] = n.offset.y, p[2] = n.offset.z;  // axes without a channel
        for (std::size_t c = 0; c < n.channels.size(); ++c) {
          if (is_position(n.channels[c])) {
            p[axis_of(n.channels[c])] = m.values[f * stride + n.first_channel + c];
          }
        }
      }
      const Status st = builder.add_track(joint_of_node[i], n.name, TrackTarget::kTranslation,
                                          Interpolation::kLinear, times, values, where);
      if (!st) throw BvhError(st.error().message);
    }
    if (any_rotation) {
      values.assign(frames * 4, 0.0f);
      QuatD previous;
      for (std::size_t f = 0; f < frames; ++f) {
        QuatD q;
        for (std::size_t c = 0; c < n.channels.size(); ++c) {
          if (!is_position(n.channels[c])) {
            q = mul(q, axis_rotation(axis_of(n.channels[c]),
                                     m.values[f * stride + n.first_channel + c]));
          }
        }
        // Consecutive keys on one hemisphere, so interpolation never takes the long way.
        const double d = q.x * previous.x + q.y * previous.y + q.z * previous.z + q.w * previous.w;
        if (f > 0 && d < 0) q = {-q.x, -q.y, -q.z, -q.w};
        previous = q;
        float* out = values.data() + f * 4;
        out[0] = static_cast<float>(q.x), out[1] = static_cast<float>(q.y);
        out[2] = static_cast<float>(q.z), out[3] = static_cast<float>(q.w);
      }
      const Status st = builder.add_track(joint_of_node[i], n.name, TrackTarget::kRotation,
                                          Interpolation::kLinear, times, values, where);
      if (!st) throw BvhError(st.error().message);
    }
  }
  Result<Clip> clip = builder.build(joint_count, file + ": MOTION");
  if (!clip) throw BvhError(clip.error().message);
  return std::move(clip).value();
}

Asset read_document(std::string_view text, const std::string& file) {
  Asset asset;
  asset.source = file;
  io::DocumentBudget budget(text.size());
  Hierarchy h = HierarchyParser(text, file, budget).parse();
  name_end_sites(h.nodes, asset.warnings);

  std::vector<JointDesc> descs(h.nodes.size());
  for (std::size_t i = 0; i < h.nodes.size(); ++i) {
    descs[i].name = h.nodes[i].name;
    descs[i].parent = h.nodes[i].parent;
    descs[i].rest.translation = h.nodes[i].offset;
  }
  Result<std::vector<JointIndex>> joints =
      io::build_asset_skeleton(asset, descs, file + ": HIERARCHY");
  if (!joints) throw BvhError(joints.error().message);
  const std::vector<JointIndex> joint_of_node = std::move(joints).value();

  if (!h.has_motion) {
    asset.warnings.push_back("no MOTION section: the skeleton has no clip");
    return asset;
  }
  const Motion m = read_motion(text, h, file, budget, asset.warnings);
  if (m.frames == 0) {
    asset.warnings.push_back("MOTION has 0 frames: no clip");
    return asset;
  }
  std::string clip_name = std::filesystem::path(file).stem().string();
  if (clip_name.empty()) clip_name = "motion";
  if (h.channel_count == 0) {
    asset.warnings.push_back("the hierarchy declares no channels: the clip has no tracks");
  }
  asset.clips.push_back(
      build_clip(h, m, joint_of_node, asset.skeleton.size(), file, clip_name, budget));
  return asset;
}

}  // namespace

Result<Asset> read_bvh(std::string_view text, const std::string& name) {
  return io::catch_parse_errors<BvhError>(name, [&] { return read_document(text, name); });
}

Result<Asset> read_bvh(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  return read_bvh(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()),
                  path);
}

}  // namespace marrow
