// One MSZIP block's raw deflate data inflated in the WebAssembly build (x_mszip.h): zlib is not
// built for WebAssembly among Debian's packages, so the block goes to the inflate web/marrow.mjs
// gives the module (Debian's node-pako, a JavaScript port of zlib's), synchronously.
#include <emscripten/emscripten.h>

#include <cstdint>

#include "x_mszip.h"

// Returns the bytes written to `out`, or -1 with the reason written to `error` (NUL-terminated).
// JavaScript inside: clang-format would reformat it as C++ ("!==" into "!= =").
// clang-format off
EM_JS(int, marrow_inflate_raw,
      (const std::uint8_t* input, int in_size, const std::uint8_t* dictionary,
       int dictionary_size, std::uint8_t* out, int out_size, char* error, int error_size), {
  const fail = function(text) {
    stringToUTF8(text, error, error_size);
    return -1;
  };
  if (typeof Module['marrowInflateRaw'] !== 'function')
    return fail('no inflate was given to the module (load it through marrow.mjs)');
  const result = Module['marrowInflateRaw'](
      HEAPU8.subarray(input, input + in_size),
      HEAPU8.subarray(dictionary, dictionary + dictionary_size), out_size);
  if (result.error !== undefined) return fail(result.error);
  HEAPU8.set(result.bytes.subarray(0, out_size), out);
  return Math.min(result.bytes.length, out_size);
});
// clang-format on

namespace marrow::xfile {

BlockInflate inflate_raw_block(std::span<const std::uint8_t> in,
                               std::span<const std::uint8_t> dictionary,
                               std::span<std::uint8_t> out) {
  char error[256] = {};
  const int produced =
      marrow_inflate_raw(in.data(), static_cast<int>(in.size()), dictionary.data(),
                         static_cast<int>(dictionary.size()), out.data(),
                         static_cast<int>(out.size()), error, static_cast<int>(sizeof(error)));
  if (produced < 0) return {0, error};
  return {static_cast<std::size_t>(produced), {}};
}

}  // namespace marrow::xfile
