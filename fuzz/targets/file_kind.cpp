// The content sniffer (io/format_sniff.h) that load_asset asks what a file holds when its content
// does not fit its name. Any bytes give one kind, decided by the first kSniffBytes alone (more
// bytes after them change nothing), with words for messages; a readable kind fits the extension
// that names its family, and unknown content contradicts no name.
#include <algorithm>
#include <cstring>
#include <string>

#include "fuzz_target.h"
#include "io/format_sniff.h"

MARROW_FUZZ_TARGET(file_kind) {
  using marrow::io::FileKind;
  namespace io = marrow::io;
  const std::span<const std::uint8_t> all(data, size);
  const std::size_t head_size = std::min(size, io::kSniffBytes);
  const FileKind kind = io::sniff_file_kind(all.first(head_size));
  MARROW_FUZZ_CHECK(io::sniff_file_kind(all) == kind,
                    "bytes after the first kSniffBytes changed the kind");
  const char* words = io::describe_kind(kind);
  MARROW_FUZZ_CHECK(words != nullptr && std::strlen(words) > 0, "a kind without words");
  MARROW_FUZZ_CHECK(io::fits(FileKind::kUnknown, kind), "unknown content contradicted a name");
  if (io::is_readable_kind(kind)) {
    bool named = false;  // some extension names this kind's family
    for (const char* ext : {".gltf", ".glb", ".marrow", ".bvh", ".x", ".dae", ".fbx", ".obj",
                            ".md5mesh", ".md5anim", ".smd"}) {
      named = named || io::fits(kind, io::kind_of_extension(ext));
    }
    MARROW_FUZZ_CHECK(named, std::string("no extension fits ") + words);
  }
  return 0;
}
