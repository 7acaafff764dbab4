// The `marrow` subcommands. Each registers its options on the CLI11 app and returns the exit
// code when run.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace marrow::cli {

// Registers a subcommand; `run` is set to the function that executes it when chosen.
void add_info_command(CLI::App& app, std::function<int()>& run);
void add_pose_command(CLI::App& app, std::function<int()>& run);
void add_demo_command(CLI::App& app, std::function<int()>& run);
void add_check_command(CLI::App& app, std::function<int()>& run);
void add_convert_command(CLI::App& app, std::function<int()>& run);
void add_render_command(CLI::App& app, std::function<int()>& run);
void add_autoskin_command(CLI::App& app, std::function<int()>& run);
void add_play_command(CLI::App& app, std::function<int()>& run);

// Prints "marrow: message" to stderr and returns the failure exit code.
int report_error(const std::string& message);

}  // namespace marrow::cli
