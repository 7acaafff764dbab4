// Options `marrow render` and `marrow demo` share.
#pragma once

#include <string>

#include "marrow/base/error.h"

namespace marrow::cli {

struct ImageSize {
  int width = 0;
  int height = 0;
};

// "WIDTHxHEIGHT", each from 8 to 8192 pixels, at most 4096 x 4096 pixels in all (a frame and
// its depth, previous frame and palette indices then stay within about 300 MB).
Result<ImageSize> parse_image_size(const std::string& text);

// An error when the folder `path` would be written in does not exist (checked before any work).
Status check_output_folder(const std::string& path);

}  // namespace marrow::cli
