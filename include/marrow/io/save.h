/// @file
/// Writing an Asset to any format marrow writes, chosen by the extension: .glb, .gltf (with a
/// side .bin) or .marrow. Output goes to temporary files renamed into place: a failure leaves no
/// partial file.
#pragma once

#include <string>
#include <vector>

#include "marrow/io/asset.h"

namespace marrow {

/// `notes` receives what the target format could not hold or what was adjusted to satisfy it.
Status save_asset(const Asset& asset, const std::string& path,
                  std::vector<std::string>* notes = nullptr);

}  // namespace marrow
