#include "render_options.h"

#include <filesystem>

namespace marrow::cli {

Result<ImageSize> parse_image_size(const std::string& text) {
  const auto bad = [&] {
    return make_error("--size '" + text + "'",
                      "expected WIDTHxHEIGHT with each from 8 to 8192 pixels and at most "
                      "16,777,216 pixels in all (e.g. 480x360)");
  };
  const std::size_t x = text.find_first_of("xX");
  if (x == std::string::npos || x == 0 || x + 1 >= text.size()) return bad();
  ImageSize size;
  try {
    std::size_t used = 0;
    const std::string w = text.substr(0, x), h = text.substr(x + 1);
    if (w.find_first_not_of("0123456789") != std::string::npos ||
        h.find_first_not_of("0123456789") != std::string::npos || w.size() > 5 || h.size() > 5)
      return bad();
    size.width = std::stoi(w, &used);
    size.height = std::stoi(h, &used);
  } catch (const std::exception&) {
    return bad();
  }
  if (size.width < 8 || size.height < 8 || size.width > 8192 || size.height > 8192 ||
      static_cast<long>(size.width) * size.height > 16777216L)
    return bad();
  return size;
}

Status check_output_folder(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  fs::path folder = target.parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    return make_error(path, "folder '" + folder.string() + "' does not exist");
  }
  return {};
}

}  // namespace marrow::cli
