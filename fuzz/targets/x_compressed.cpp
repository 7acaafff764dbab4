// DirectX .X compressed with MSZIP ('tzip', 'bzip'). The input is a selector byte (bit 0:
// binary, bit 1: 64-bit floats) and everything after the 16-byte header: the declared size and
// the CK blocks. Decompression bombs and damaged blocks land here; the inflated body then goes
// through the text or binary parser.
#include <algorithm>
#include <vector>

#include "load_and_play.h"
#include "marrow/io/x_file.h"

MARROW_FUZZ_TARGET(x_compressed) {
  if (size == 0) return 0;
  std::string header = "xof 0303";
  header += (data[0] & 1) ? "bzip" : "tzip";
  header += (data[0] & 2) ? "0064" : "0032";
  std::vector<std::uint8_t> file(16 + size - 1);
  std::copy(header.begin(), header.end(), file.begin());
  std::copy(data + 1, data + size, file.begin() + 16);
  return marrow::fuzz::load_and_play(size, "fuzz.x", "read_x",
                                     [&] { return marrow::read_x(file, "fuzz.x"); });
}
