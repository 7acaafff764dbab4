// Images of materials: their bytes, wherever they are kept, and what encoding they hold.
#include <fstream>

#include "marrow/io/material.h"

namespace marrow {

Result<std::vector<std::uint8_t>> image_bytes(const MaterialImage& image) {
  if (!image.bytes.empty()) return image.bytes;
  if (image.path.empty()) return Error{"image '" + image.name + "': no data"};
  std::ifstream in(image.path, std::ios::binary | std::ios::ate);
  if (!in) return Error{"cannot open " + image.path};
  const std::streamoff size = in.tellg();
  if (size <= 0 || size > (std::streamoff{1} << 28))
    return Error{image.path + ": empty or over 256 MiB"};
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size))
    return Error{"cannot read " + image.path};
  return bytes;
}

std::string image_mime_type(std::span<const std::uint8_t> bytes) {
  static constexpr std::uint8_t kPng[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() >= sizeof kPng && std::equal(std::begin(kPng), std::end(kPng), bytes.begin()))
    return "image/png";
  if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF)
    return "image/jpeg";
  return "";
}

}  // namespace marrow
