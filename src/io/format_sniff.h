// What a file's first bytes say it is, whatever its name. load_asset reads a file whose content
// does not fit its extension as what the content is, with a note, and names the content in its
// error when marrow cannot read it (docs/formats.md, "Which reader").
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace marrow::io {

enum class FileKind : std::uint8_t {
  kUnknown,
  kGltfJson,
  kGlb,
  kArchive,
  kBvh,
  kXText,
  kXBinary,
  kXCompressed,
  kCollada,
  kFbxBinary,
  kFbxAscii,
  kObj,
  kMd5Mesh,
  kMd5Anim,
  kSmd,
  kOtherJson,  // JSON, but nothing in its head a glTF document has
  kOtherXml,   // XML, but no <COLLADA> element in its head
};

// How many leading bytes sniff_file_kind looks at.
inline constexpr std::size_t kSniffBytes = 4096;

// The kind of file `head` (a file's first bytes, up to kSniffBytes) begins.
FileKind sniff_file_kind(std::span<const std::uint8_t> head);

// The kind a file extension (lower case, with the dot) names; kUnknown for others. ".x" names
// kXText, ".fbx" kFbxBinary: fits() accepts their other encodings.
FileKind kind_of_extension(const std::string& extension);

// Whether content of kind `content` is what a file named for `named` may hold: the same format
// (.X text, binary or compressed; FBX binary or ASCII; glTF JSON or GLB), or content too
// generic to contradict the name (JSON for .gltf, XML for .dae).
bool fits(FileKind content, FileKind named);

// Whether load_asset has a reader for this kind.
bool is_readable_kind(FileKind kind);

// Words for the kind in messages: "BVH text", "a binary glTF (GLB)", ...
const char* describe_kind(FileKind kind);

}  // namespace marrow::io
