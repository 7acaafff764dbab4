#include "collada/collada_document.h"
#include "io/common/float_chars.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "common/reader_support.h"
#include "common/text_lines.h"

namespace marrow::collada {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Calls f(token) for every whitespace-separated token of `text`.
template <typename F>
void for_each_token(const char* text, F&& f) {
  const char* p = text;
  while (*p) {
    while (*p && is_space(*p)) ++p;
    const char* begin = p;
    while (*p && !is_space(*p)) ++p;
    if (p > begin) f(std::string_view(begin, static_cast<std::size_t>(p - begin)));
  }
}

// Upper bound of the tokens in `text`, for reserving without trusting a count attribute.
std::size_t token_bound(const char* text) {
  return std::strlen(text) / 2 + 1;
}

}  // namespace

std::string_view fragment(std::string_view url) {
  return !url.empty() && url[0] == '#' ? url.substr(1) : url;
}

std::string display_name(pugi::xml_node node, const std::string& fallback) {
  for (const char* a : {"name", "id", "sid"}) {
    const char* v = node.attribute(a).as_string();
    if (*v) return v;
  }
  return fallback;
}

Document::Document(std::span<const std::uint8_t> bytes, std::string name)
    : name_(std::move(name)), text_(bytes.begin(), bytes.end()) {
  line_starts_.push_back(0);
  const std::string_view view(reinterpret_cast<const char*>(text_.data()), text_.size());
  for (std::size_t i = 0; i < view.size(); ++i) {
    if (io::closes_line(view, i)) line_starts_.push_back(i + 1);  // LF, CRLF, lone CR
  }
  const pugi::xml_parse_result result =
      xml_.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_auto);
  if (!result) {
    const auto offset = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, result.offset));
    const auto line = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const std::size_t l = static_cast<std::size_t>(line - line_starts_.begin());
    const std::size_t col = offset - line_starts_[l - 1] + 1;
    throw ColladaError(name_ + ":" + std::to_string(l) + ":" + std::to_string(col) +
                       ": malformed XML: " + result.description());
  }
  root_ = xml_.child("COLLADA");
  if (!root_) throw ColladaError(name_ + ": not a Collada document (no <COLLADA> root element)");
  // Every id, in document order; the first of a duplicated id wins. An explicit stack: the
  // nesting of a hostile file must not become recursion.
  std::vector<pugi::xml_node> stack{root_};
  while (!stack.empty()) {
    const pugi::xml_node n = stack.back();
    stack.pop_back();
    if (const char* id = n.attribute("id").as_string(); *id) ids_.emplace(id, n);
    std::size_t first = stack.size();
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_element) stack.push_back(c);
    }
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first), stack.end());
  }
}

std::string Document::place(pugi::xml_node node) const {
  const std::ptrdiff_t offset = node ? node.offset_debug() : -1;
  if (offset < 0) return name_;
  const auto line =
      std::upper_bound(line_starts_.begin(), line_starts_.end(), static_cast<std::size_t>(offset));
  return name_ + ":" + std::to_string(line - line_starts_.begin());
}

std::string Document::where(pugi::xml_node node) const {
  std::string s = place(node) + ": <" + node.name();
  for (const char* a : {"id", "sid", "name"}) {
    if (const char* v = node.attribute(a).as_string(); *v) {
      s += std::string(" ") + a + "=" + io::quote_token(v);
      break;
    }
  }
  return s + ">";
}

void Document::fail(pugi::xml_node at, const std::string& what) const {
  throw ColladaError(where(at) + ": " + what);
}

pugi::xml_node Document::by_id(std::string_view id) const {
  const auto it = ids_.find(std::string(id));
  return it == ids_.end() ? pugi::xml_node() : it->second;
}

pugi::xml_node Document::resolve(pugi::xml_node from, std::string_view url,
                                 const char* what) const {
  if (url.empty() || url[0] != '#')
    fail(from, std::string(what) + " " + io::quote_token(url) +
                   " is not a reference into this document (#id); external references are not "
                   "supported");
  const pugi::xml_node n = by_id(fragment(url));
  if (!n) fail(from, std::string(what) + " " + io::quote_token(url) + " names no element");
  return n;
}

std::vector<float> Document::floats(pugi::xml_node array, bool counted) const {
  const char* text = array.child_value();
  std::vector<float> out;
  out.reserve(std::min<std::size_t>(token_bound(text), 1u << 20));
  std::size_t index = 0;
  for_each_token(text, [&](std::string_view t) {
    float v = 0;
    const auto [ptr, ec] = io::parse_floating(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(v))
      fail(array,
           "value " + std::to_string(index) + " " + io::quote_token(t) + " is not a finite number");
    out.push_back(v);
    ++index;
  });
  if (counted && array.attribute("count")) {
    const unsigned long long count = array.attribute("count").as_ullong();
    if (count != out.size())
      fail(array, "count=\"" + std::string(array.attribute("count").as_string()) + "\" but " +
                      std::to_string(out.size()) + " numbers");
  }
  return out;
}

std::vector<std::uint32_t> Document::uints(pugi::xml_node element) const {
  const char* text = element.child_value();
  std::vector<std::uint32_t> out;
  out.reserve(std::min<std::size_t>(token_bound(text), 1u << 20));
  for_each_token(text, [&](std::string_view t) {
    std::uint32_t v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size())
      fail(element, "index " + std::to_string(out.size()) + " " + io::quote_token(t) +
                        " is not a non-negative integer");
    out.push_back(v);
  });
  return out;
}

std::vector<std::int64_t> Document::ints(pugi::xml_node element) const {
  const char* text = element.child_value();
  std::vector<std::int64_t> out;
  out.reserve(std::min<std::size_t>(token_bound(text), 1u << 20));
  for_each_token(text, [&](std::string_view t) {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size() || v < -1 || v > 0xFFFFFFFFll)
      fail(element, "index " + std::to_string(out.size()) + " " + io::quote_token(t) +
                        " is not an integer of -1 or more");
    out.push_back(v);
  });
  return out;
}

std::vector<std::string> Document::tokens(pugi::xml_node element) const {
  std::vector<std::string> out;
  for_each_token(element.child_value(), [&](std::string_view t) { out.emplace_back(t); });
  return out;
}

const Source& Document::source(pugi::xml_node element) const {
  auto& slot = sources_[element.internal_object()];
  if (slot) return *slot;
  auto s = std::make_unique<Source>();
  s->element = element;
  if (std::strcmp(element.name(), "source") != 0)
    fail(element, "is referenced as a <source> but is a <" + std::string(element.name()) + ">");
  const pugi::xml_node accessor = element.child("technique_common").child("accessor");
  pugi::xml_node array;
  for (const char* kind : {"float_array", "Name_array", "IDREF_array", "int_array"}) {
    if ((array = element.child(kind))) break;
  }
  if (!array) fail(element, "has no float_array, Name_array or IDREF_array");
  const bool numeric =
      std::strcmp(array.name(), "float_array") == 0 || std::strcmp(array.name(), "int_array") == 0;
  std::vector<float> values;
  std::vector<std::string> names;
  if (numeric)
    values = floats(array);
  else
    names = tokens(array);
  const std::size_t available = numeric ? values.size() : names.size();
  std::size_t count = available, stride = 1, offset = 0;
  if (accessor) {
    count = accessor.attribute("count").as_ullong();
    stride = accessor.attribute("stride").as_ullong(1);
    offset = accessor.attribute("offset").as_ullong(0);
    if (stride == 0) fail(accessor, "stride is 0");
    if (const char* src = accessor.attribute("source").as_string();
        *src && fragment(src) != array.attribute("id").as_string())
      fail(accessor, "source " + io::quote_token(src) + " is not the array of its <source>");
    // count * stride + offset must fit in the array (checked without overflow).
    if (offset > available || count > (available - offset) / stride)
      fail(accessor, std::to_string(count) + " elements of stride " + std::to_string(stride) +
                         " from offset " + std::to_string(offset) + " need more than the " +
                         std::to_string(available) + " values of its array");
  }
  s->count = count;
  s->stride = stride;
  if (numeric)
    s->floats.assign(values.begin() + static_cast<std::ptrdiff_t>(offset),
                     values.begin() + static_cast<std::ptrdiff_t>(offset + count * stride));
  else
    s->names.assign(names.begin() + static_cast<std::ptrdiff_t>(offset),
                    names.begin() + static_cast<std::ptrdiff_t>(offset + count * stride));
  slot = std::move(s);
  return *slot;
}

const Source& Document::source_at(pugi::xml_node from, std::string_view url) const {
  return source(resolve(from, url, "source"));
}

}  // namespace marrow::collada
