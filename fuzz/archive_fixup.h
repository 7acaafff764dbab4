// Makes an archive's declared payload length and its two CRC-32s (docs/formats_archive.md,
// "Header") agree with its bytes, so a mutated archive gets past the checksums to the section
// parsers. Inputs shorter than the header are left as they are.
#pragma once

#include <cstdint>
#include <vector>

namespace marrow::fuzz {

void fix_archive_checksums(std::vector<std::uint8_t>& bytes);

}  // namespace marrow::fuzz
