/// @file
/// What a loaded file holds, as a JSON document: `marrow info --format json` prints it and the
/// Python module's Asset.info() returns it parsed. The schema is versioned; docs/info_json.md
/// describes every member.
#pragma once

#include <string>

#include "marrow/io/asset.h"

namespace marrow {

/// The schema version asset_info_json writes. A member added keeps the version; a member
/// removed, renamed or changed in meaning raises it.
inline constexpr int kAssetInfoSchemaVersion = 1;

/// Which parts the document holds: all of them, or only the clips (`marrow info --clips`).
enum class AssetInfoParts { kAll, kClipsOnly };

/// The document, indented by `indent` spaces per level (a negative indent writes one line).
std::string asset_info_json(const Asset& asset, AssetInfoParts parts = AssetInfoParts::kAll,
                            int indent = 2);

}  // namespace marrow
