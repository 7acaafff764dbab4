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

// The options of every command that loads files: --ticks-per-second N, the rate of clips whose
// file gives none (.X without AnimTicksPerSecond, SMD). FBX and Collada are always imported in
// an isolated child process (LoadOptions' default).
void add_load_options(CLI::App* cmd, LoadOptions& options);

// Ends a subcommand's --help with one worked example.
void set_example(CLI::App& command, const std::string& example);

// Prints "marrow: message" to stderr and returns the failure exit code.
int report_error(const std::string& message);

}  // namespace marrow::cli
