// DirectX .X binary token stream. The input is a selector byte (bit 0: 64-bit floats) and the
// body; the target writes the 16-byte header, so every mutation lands in the token stream.
#include <algorithm>
#include <vector>

#include "load_and_play.h"
#include "marrow/io/x_file.h"

MARROW_FUZZ_TARGET(x_binary) {
  if (size == 0) return 0;
  const char* header = (data[0] & 1) ? "xof 0303bin 0064" : "xof 0303bin 0032";
  std::vector<std::uint8_t> file(16 + size - 1);
  std::copy(header, header + 16, file.begin());
  std::copy(data + 1, data + size, file.begin() + 16);
  return marrow::fuzz::load_and_play(size, "fuzz.x", "read_x",
                                     [&] { return marrow::read_x(file, "fuzz.x"); });
}
