/// @file
/// FBX import through assimp (Debian's libassimp), the format marrow does not read itself
/// (Collada .dae too when called directly; load_asset reads .dae with marrow's own reader,
/// marrow/io/collada.h). load_asset runs assimp in a child process by default
/// (read_assimp_isolated), so a crash, hang or runaway allocation inside assimp becomes an error
/// instead of taking the caller down. See docs/formats_assimp.md for what assimp loses or bends,
/// what this layer corrects, and how the isolated import works.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "marrow/io/asset.h"

namespace marrow {

/// Reads `path` with assimp in this process. Every aiNode becomes a joint; errors name the file
/// and carry assimp's own message. Of `options`, ticks_per_second is used (an animation whose
/// rate assimp reports as 0).
Result<Asset> read_assimp(const std::string& path, const LoadOptions& options = {});
/// From memory: `name` is used in messages and its extension tells assimp the format.
Result<Asset> read_assimp(std::span<const std::uint8_t> bytes, const std::string& name,
                          const LoadOptions& options = {});

/// Reads `path` with assimp in a child process (the helper executable marrow-import-helper)
/// limited to options.importer_memory_bytes and options.importer_seconds. The child sends the
/// asset back as a .marrow archive, which is loaded with the archive's own checks. A crash
/// ("the FBX importer crashed on walk.fbx (signal 11, SIGSEGV)"), a hang or a runaway
/// allocation is an error naming the file. Safe to call from several threads.
Result<Asset> read_assimp_isolated(const std::string& path, const LoadOptions& options = {});

/// The parent's reading of the child's answer (the bytes it wrote to its descriptor 3), which
/// read_assimp_isolated uses once the child has finished: the frame, then the archive with the
/// archive's own checks. `path` names the imported file in messages. Takes outside bytes: a
/// fuzz target's entry point for the isolated import.
Result<Asset> read_import_answer(std::span<const std::uint8_t> answer, const std::string& path);

/// The helper read_assimp_isolated runs: options.importer_helper, else $MARROW_IMPORT_HELPER,
/// else marrow-import-helper beside the running executable, else the one in the build tree marrow
/// was built in. An error lists where it looked.
Result<std::string> find_import_helper(const LoadOptions& options = {});

/// The helper's side: marrow-import-helper's main. Applies the limits to itself, reads the file
/// with read_assimp and writes the result to file descriptor 3 in the form
/// read_assimp_isolated expects. Returns the process's exit status.
int run_import_helper(int argc, char** argv);

/// True for the extensions assimp is used for (.fbx, and .dae when asked directly), any case.
bool is_assimp_extension(const std::string& lower_extension);

}  // namespace marrow
