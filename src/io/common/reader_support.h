// What the hand-written importers share: the whole file in memory, case-blind keywords, tokens
// shown in error messages, the nesting check on joint hierarchies, and the boundary that turns
// parse exceptions (and a spent DocumentBudget) into errors.
#pragma once

#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/budget.h"
#include "marrow/base/error.h"
#include "marrow/io/asset.h"
#include "marrow/skeleton/skeleton.h"

namespace marrow::io {

// Files larger than this are refused before anything is allocated.
inline constexpr std::uint64_t kMaxInputFileBytes = 1ull << 31;

// The file's bytes; errors name the file ("cannot open (reason)", "larger than 2 GiB").
Result<std::vector<std::uint8_t>> read_file_bytes(const std::string& path);

// ASCII case-insensitive equality (.X templates and BVH keywords are case-blind).
bool iequals(std::string_view a, std::string_view b);
// `s` with A-Z made a-z (iequals' rule), for keys of case-insensitive lookups.
std::string ascii_lower(std::string_view s);

// A token as it appears in a message: quoted, control bytes escaped as \xNN, long tokens cut
// to 40 bytes followed by "...".
std::string quote_token(std::string_view token);

// A colour component as an authoring tool shows it (sRGB-encoded: .X, Collada and FBX colours),
// clamped to [0, 1] and made linear, as materials keep it.
float linear_from_display(float v);

// The file an image reference of `document` names, beside the document: a relative path inside
// the document's folder as written; a path that is absolute, carries a scheme or climbs out of the
// folder is looked for by its file name in the folder instead, with a note in `warnings` (`where`
// names the reference). Backslashes read as slashes, "file://" is dropped; nothing is fetched.
std::string image_path_beside(const std::string& document, std::string reference,
                              const std::string& where, std::vector<std::string>& warnings);

// The first joint (in skeleton order) that lies more than kMaxNestingDepth joints below its
// root, if any.
std::optional<JointIndex> joint_nested_too_deep(const Skeleton& skeleton);

// Builds asset.skeleton from `descs`, in the file's order (Skeleton::build puts parents first),
// and asset.source_index (each joint's index in `descs`). Returns the joint of each desc, or the
// build's error, which names `where`.
Result<std::vector<JointIndex>> build_asset_skeleton(Asset& asset,
                                                     const std::vector<JointDesc>& descs,
                                                     const std::string& where);

// Runs a parser that reports failures by throwing ParseError (whose what() is the whole
// message, file and place included) and turns that, a spent DocumentBudget, and running out of
// memory on a hostile count, into an Error naming the file.
template <typename ParseError, typename Parse>
auto catch_parse_errors(const std::string& name, Parse parse) -> Result<decltype(parse())> {
  try {
    return parse();
  } catch (const ParseError& e) {
    return Error{e.what()};
  } catch (const BudgetExceeded& e) {
    return Error{e.what()};
  } catch (const std::bad_alloc&) {
    return Error{name + ": out of memory"};
  } catch (const std::length_error&) {
    return Error{name + ": out of memory"};
  }
}

}  // namespace marrow::io
