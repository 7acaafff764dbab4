// The `marrow` subcommands. Each registers its options on the CLI11 app and returns the exit
// code when run.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "marrow/io/asset.h"

namespace marrow::cli {

// Registers a subcommand; `run` is set to the function that executes it when chosen.
void add_info_command(CLI::App& app, std::function<int()>& run);
void add_pose_command(CLI::App& app, std::function<int()>& run);
void add_demo_command(CLI::App& app, std::function<int()>& run);
void add_check_command(CLI::App& app, std::function<int()>& run);
void add_convert_command(CLI::App& app, std::function<int()>& run);
void add_render_command(CLI::App& app, std::function<int()>& run);
void add_autoskin_command(CLI::App& app, std::function<int()>& run);
void add_retarget_command(CLI::App& app, std::function<int()>& run);
void add_play_command(CLI::App& app, std::function<int()>& run);
void add_compile_command(CLI::App& app, std::function<int()>& run);
void add_match_command(CLI::App& app, std::function<int()>& run);

// The options of every command that loads files: --ticks-per-second N, the rate of clips whose
// file gives none (.X without AnimTicksPerSecond, SMD), and --quiet (no reader notes). FBX and
// Collada are always imported in an isolated child process (LoadOptions' default).
// A command with a --quiet of its own (no progress, nothing on success) passes its flag and help
// as `quiet` and `quiet_help`: one --quiet sets both.
void add_load_options(CLI::App* cmd, LoadOptions& options, bool* quiet = nullptr,
                      const std::string& quiet_help = "");

// load_asset, then what the reader noticed (Asset::warnings, the notes `marrow info` lists) on
// stderr as "marrow: note: FILE: NOTE", once per file and unless --quiet was given. Every
// command reads its input files through this; `info` prints the notes in its own listing.
Result<Asset> load_input(const std::string& path, const LoadOptions& options);

// Ends a subcommand's --help with one worked example.
void set_example(CLI::App& command, const std::string& example);

// Prints "marrow: message" to stderr and returns the failure exit code.
int report_error(const std::string& message);

}  // namespace marrow::cli
