// DirectX .X → Asset, as data flows: the 16-byte header picks the encoding; an MSZIP body is
// inflated (x_mszip); the tokenizer turns text or binary into one token stream (x_tokenizer);
// the parser reads tokens into records, checking every value where it is read (x_parser,
// x_parse_mesh); the assembler turns records into the skeleton, meshes and clips
// (x_assemble_mesh, x_assemble_clips). Failures are thrown as XError (or io::BudgetExceeded)
// and become a marrow::Error here; every message names the file and the line (text) or byte
// offset (binary).
#include <span>
#include <string>
#include <vector>

#include "common/budget.h"
#include "common/reader_support.h"
#include "marrow/io/x_file.h"
#include "x_assembler.h"
#include "x_mszip.h"
#include "x_parser.h"
#include "x_tokenizer.h"

namespace marrow {
namespace {

using xfile::XError;

constexpr std::size_t kHeaderSize = 16;

Asset read_document(std::span<const std::uint8_t> bytes, const std::string& name,
                    const LoadOptions& options) {
  auto fail_at = [&](std::size_t byte, const std::string& what) -> void {
    throw XError(name + ": byte " + std::to_string(byte) + ": " + what);
  };
  if (bytes.size() < kHeaderSize) {
    fail_at(0, "too short for the 16-byte .X header");
  }
  const std::string_view head(reinterpret_cast<const char*>(bytes.data()), kHeaderSize);
  if (head.substr(0, 4) != "xof ") fail_at(0, "not a DirectX .X file (no 'xof ' magic)");
  const std::string_view format = head.substr(8, 4);
  const std::string_view float_size = head.substr(12, 4);
  const bool binary = format == "bin " || format == "bzip";
  const bool compressed = format == "tzip" || format == "bzip";
  if (!binary && !compressed && format != "txt ") {
    fail_at(8, "unknown .X format '" + std::string(format) +
                   "' (expected 'txt ', 'bin ', 'tzip' or 'bzip')");
  }
  if (binary && float_size != "0032" && float_size != "0064") {
    fail_at(12, "unknown float size '" + std::string(float_size) + "' (expected 0032 or 0064)");
  }
  io::DocumentBudget budget(bytes.size());
  Asset asset;
  asset.source = name;
  std::span<const std::uint8_t> body = bytes.subspan(kHeaderSize);
  xfile::Inflated inflated;
  std::string note;
  std::size_t body_offset = kHeaderSize;
  if (compressed) {
    inflated = xfile::inflate_mszip(body, name, budget);
    const std::size_t got = inflated.bytes.size();
    if (inflated.declared_size != got && inflated.declared_size != got + kHeaderSize) {
      asset.warnings.push_back(name + ": the compressed file declares " +
                               std::to_string(inflated.declared_size) +
                               " bytes uncompressed but holds " + std::to_string(got));
    }
    body = inflated.bytes;
    note = " (decompressed)";
    body_offset = 0;
  }
  xfile::XTokenizer tokens(body, binary, float_size == "0064", name, body_offset, note);
  xfile::Parser parser(tokens, asset.warnings, budget);
  parser.parse_file();
  xfile::Assembler(parser.records(), tokens, asset, name, budget, options).run();
  return asset;
}

}  // namespace

Result<Asset> read_x(std::span<const std::uint8_t> bytes, const std::string& name,
                     const LoadOptions& options) {
  return io::catch_parse_errors<XError>(name, [&] { return read_document(bytes, name, options); });
}

Result<Asset> read_x(const std::string& path, const LoadOptions& options) {
  Result<std::vector<std::uint8_t>> bytes = io::read_file_bytes(path);
  if (!bytes) return bytes.error();
  return read_x(*bytes, path, options);
}

}  // namespace marrow
