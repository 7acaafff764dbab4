// The Collada document as the reader sees it: the parsed XML (pugixml), elements by id, URL and
// sid lookups, numeric arrays and <source>/<accessor> data checked against their counts, and
// errors that name the file, the line and the element ("walk.dae:120: <float_array
// id="x-array">: ..."). Failures throw ColladaError, turned into an Error at the reader's
// boundary. Private to src/io/collada.
#pragma once

#include <pugixml.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace marrow::collada {

class ColladaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Limits on what one document may make the reader do (docs/formats_collada.md).
inline constexpr std::size_t kMaxNodeDepth = 1024;      // nested <node>s
inline constexpr std::size_t kMaxAnimationDepth = 256;  // nested <animation>s
inline constexpr std::size_t kMaxControllerChain = 8;   // skin of a morph of ...
// Scene nodes (instance_node copies included): this many, plus one per two bytes of the file.
inline constexpr std::size_t kNodesBase = 1024;

// <source> data through its <accessor>: `count` elements of `stride` values (floats or names).
struct Source {
  pugi::xml_node element;
  std::size_t count = 0;
  std::size_t stride = 1;
  std::vector<float> floats;       // count * stride, when the array is a float_array
  std::vector<std::string> names;  // count * stride, for Name_array / IDREF_array
};

class Document {
 public:
  // Parses the XML and indexes ids. Throws ColladaError on malformed XML or a root that is not
  // <COLLADA>.
  Document(std::span<const std::uint8_t> bytes, std::string name);

  const std::string& name() const { return name_; }
  std::size_t size() const { return text_.size(); }
  pugi::xml_node root() const { return root_; }

  // "file:line" of an element (or the file alone when unknown).
  std::string place(pugi::xml_node node) const;
  // "file:line: <tag id="...">" for messages about an element.
  std::string where(pugi::xml_node node) const;
  [[noreturn]] void fail(pugi::xml_node at, const std::string& what) const;

  // The element with this id, or an empty node.
  pugi::xml_node by_id(std::string_view id) const;
  // A "#id" URL (as in url="#x", source="#x") resolved, or an error naming `from`.
  pugi::xml_node resolve(pugi::xml_node from, std::string_view url, const char* what) const;

  // The numbers of an array element's text, checked against its count attribute when
  // `counted`, every one finite.
  std::vector<float> floats(pugi::xml_node array, bool counted = true) const;
  // Non-negative integers (<p>, <v>, <vcount>, <int_array>).
  std::vector<std::uint32_t> uints(pugi::xml_node element) const;
  // Integers that may be -1 (a skin's joint index of the bind shape).
  std::vector<std::int64_t> ints(pugi::xml_node element) const;
  // Whitespace-separated tokens (Name_array, IDREF_array, INTERPOLATION names).
  std::vector<std::string> tokens(pugi::xml_node element) const;

  // A <source> read through its technique_common accessor (count, stride, offset), cached.
  const Source& source(pugi::xml_node source) const;
  const Source& source_at(pugi::xml_node from, std::string_view url) const;

 private:
  std::string name_;
  std::vector<std::uint8_t> text_;  // the bytes, for line numbers
  pugi::xml_document xml_;
  pugi::xml_node root_;
  std::vector<std::size_t> line_starts_;
  std::unordered_map<std::string, pugi::xml_node> ids_;
  mutable std::unordered_map<const void*, std::unique_ptr<Source>> sources_;
};

// The `name`, else `id`, else `sid` of an element, else `fallback`: the name a user sees.
std::string display_name(pugi::xml_node node, const std::string& fallback);

// Strips a leading '#'.
std::string_view fragment(std::string_view url);

}  // namespace marrow::collada
