// Re-encodings for seeds and tests: the binary token stream of a DirectX .X text file and MSZIP
// compression ('tzip', 'bzip'), written from the format's description (the DirectX "Binary
// Format" token values and the MSZIP block layout, docs/formats_x.md); and an asset's meshes as
// OBJ text with a material library (marrow has no OBJ writer of its own).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "marrow/io/asset.h"

namespace marrow::fuzz {

// The binary .X file ("xof 0303bin 0032" or "...0064" with 64-bit floats) holding the same
// tokens as the text file `text` (header included): names, strings, GUIDs, braces, template
// keywords, and each run of numbers as an INTEGER_LIST or FLOAT_LIST token, with the ',' and ';'
// between numbers dropped as binary writers do. Empty when the text cannot be tokenized (an
// unterminated string or GUID) or has no text header.
std::optional<std::vector<std::uint8_t>> x_text_to_binary(std::string_view text, bool float64);

// A whole .X file (16-byte header and body) compressed with MSZIP: the header's format becomes
// 'tzip' or 'bzip', then the file's size as a DWORD, then blocks of at most `block` (<= 32768)
// uncompressed bytes, each a WORD uncompressed size, a WORD compressed size counting the 'CK'
// signature, 'CK' and raw deflate data whose dictionary is the 32 KiB before it.
std::vector<std::uint8_t> x_mszip(const std::vector<std::uint8_t>& file, std::size_t block = 32768);

// The asset's meshes in their stored (bind) positions as OBJ text, one object each with
// positions, UVs (v flipped back to OBJ's convention) and normals, naming material library
// `mtl_name`; and that library, a material per mesh with colours and a texture map.
std::pair<std::string, std::string> obj_and_mtl(const Asset& asset, const std::string& mtl_name);

}  // namespace marrow::fuzz
