#include "format_sniff.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>
#include <utility>

#include "marrow/io/archive.h"

namespace marrow::io {
namespace {

std::string_view as_text(std::span<const std::uint8_t> head) {
  std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte-order mark
  return text;
}

std::string_view skip_space(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? std::string_view() : text.substr(first);
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool contains(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

FileKind sniff_x(std::string_view text) {
  if (text.size() < 16) return FileKind::kUnknown;
  const std::string_view format = text.substr(8, 4);
  if (format == "txt ") return FileKind::kXText;
  if (format == "bin ") return FileKind::kXBinary;
  if (format == "tzip" || format == "bzip") return FileKind::kXCompressed;
  return FileKind::kUnknown;
}

FileKind sniff_json(std::string_view text) {
  // Properties every glTF document has, or nearly every one; "asset" is required.
  for (std::string_view key :
       {"\"asset\"", "\"accessors\"", "\"bufferViews\"", "\"nodes\"", "\"meshes\"", "\"scenes\""})
    if (contains(text, key)) return FileKind::kGltfJson;
  return FileKind::kOtherJson;
}

// An OBJ file is lines of keywords: every complete line in the head is a comment, blank, or
// starts with one of OBJ's statements, and at least one is a vertex.
FileKind sniff_obj(std::string_view text) {
  static constexpr std::string_view kStatements[] = {
      "v",        "vt",   "vn",         "vp",        "f",      "l",      "p",
      "o",        "g",    "s",          "mg",        "usemtl", "mtllib", "cstype",
      "deg",      "curv", "surf",       "parm",      "end",    "bevel",  "c_interp",
      "d_interp", "lod",  "shadow_obj", "trace_obj", "maplib", "usemap"};
  const std::size_t last_newline = text.rfind('\n');
  if (last_newline == std::string_view::npos) return FileKind::kUnknown;
  text = text.substr(0, last_newline);  // the last line may be cut short
  bool vertex = false;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = skip_space(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.empty() || line[0] == '#') continue;
    const std::string_view word = line.substr(0, line.find_first_of(" \t\r"));
    if (std::find(std::begin(kStatements), std::end(kStatements), word) == std::end(kStatements))
      return FileKind::kUnknown;
    vertex = vertex || word == "v";
  }
  return vertex ? FileKind::kObj : FileKind::kUnknown;
}

FileKind sniff_text(std::string_view text) {
  const std::string_view start = skip_space(text);
  if (starts_with(start, "HIERARCHY")) return FileKind::kBvh;
  if (starts_with(start, "MD5Version"))
    return contains(text, "numFrames") ? FileKind::kMd5Anim : FileKind::kMd5Mesh;
  if (starts_with(start, "; FBX")) return FileKind::kFbxAscii;
  if (starts_with(start, "{")) return sniff_json(start);
  if (starts_with(start, "<"))
    return contains(start, "<COLLADA") ? FileKind::kCollada : FileKind::kOtherXml;
  if (starts_with(start, "version")) {
    const std::string_view rest = skip_space(start.substr(7));
    if (starts_with(rest, "1") &&
        (rest.size() == 1 || std::isspace(static_cast<unsigned char>(rest[1]))))
      return FileKind::kSmd;
  }
  return sniff_obj(start);
}

}  // namespace

FileKind sniff_file_kind(std::span<const std::uint8_t> head) {
  head = head.first(std::min(head.size(), kSniffBytes));
  const std::string_view bytes(reinterpret_cast<const char*>(head.data()), head.size());
  if (starts_with(bytes, "glTF")) return FileKind::kGlb;
  if (head.size() >= 8 && has_archive_magic(head.first(8))) return FileKind::kArchive;
  if (starts_with(bytes, "Kaydara FBX Binary")) return FileKind::kFbxBinary;
  if (starts_with(bytes, "xof ")) return sniff_x(bytes);
  // Text formats: no NUL in the head.
  if (bytes.find('\0') != std::string_view::npos) return FileKind::kUnknown;
  return sniff_text(as_text(head));
}

FileKind kind_of_extension(const std::string& extension) {
  static constexpr std::pair<std::string_view, FileKind> kExtensions[] = {
      {".gltf", FileKind::kGltfJson},   {".glb", FileKind::kGlb}, {".marrow", FileKind::kArchive},
      {".bvh", FileKind::kBvh},         {".x", FileKind::kXText}, {".dae", FileKind::kCollada},
      {".fbx", FileKind::kFbxBinary},   {".obj", FileKind::kObj}, {".md5mesh", FileKind::kMd5Mesh},
      {".md5anim", FileKind::kMd5Anim}, {".smd", FileKind::kSmd}};
  for (const auto& [ext, kind] : kExtensions)
    if (ext == extension) return kind;
  return FileKind::kUnknown;
}

namespace {

FileKind family(FileKind kind) {
  switch (kind) {
    case FileKind::kGlb:
    case FileKind::kOtherJson:
      return FileKind::kGltfJson;
    case FileKind::kXBinary:
    case FileKind::kXCompressed:
      return FileKind::kXText;
    case FileKind::kFbxAscii:
      return FileKind::kFbxBinary;
    case FileKind::kOtherXml:
      return FileKind::kCollada;
    default:
      return kind;
  }
}

}  // namespace

bool fits(FileKind content, FileKind named) {
  if (content == FileKind::kUnknown) return true;  // nothing to contradict the name
  if (named == FileKind::kUnknown) return false;
  // Generic JSON or XML only fits the name it might be (glTF, Collada) read in full.
  if (content == FileKind::kOtherJson)
    return named == FileKind::kGltfJson || named == FileKind::kGlb;
  if (content == FileKind::kOtherXml) return named == FileKind::kCollada;
  return family(content) == family(named);
}

bool is_readable_kind(FileKind kind) {
  return kind != FileKind::kUnknown && kind != FileKind::kOtherJson && kind != FileKind::kOtherXml;
}

const char* describe_kind(FileKind kind) {
  switch (kind) {
    case FileKind::kGltfJson:
      return "glTF JSON";
    case FileKind::kGlb:
      return "a binary glTF (GLB)";
    case FileKind::kArchive:
      return "a marrow archive";
    case FileKind::kBvh:
      return "BVH text";
    case FileKind::kXText:
      return "a DirectX .X text file";
    case FileKind::kXBinary:
      return "a DirectX .X binary file";
    case FileKind::kXCompressed:
      return "a compressed DirectX .X file";
    case FileKind::kCollada:
      return "Collada XML";
    case FileKind::kFbxBinary:
      return "a binary FBX file";
    case FileKind::kFbxAscii:
      return "an ASCII FBX file";
    case FileKind::kObj:
      return "Wavefront OBJ text";
    case FileKind::kMd5Mesh:
      return "an MD5 mesh (.md5mesh)";
    case FileKind::kMd5Anim:
      return "an MD5 animation (.md5anim)";
    case FileKind::kSmd:
      return "Valve SMD text";
    case FileKind::kOtherJson:
      return "JSON that is not glTF";
    case FileKind::kOtherXml:
      return "XML that is not Collada";
    case FileKind::kUnknown:
      break;
  }
  return "no format marrow knows";
}

}  // namespace marrow::io
