#include <iostream>

#include "commands.h"

namespace marrow::cli {

int report_error(const std::string& message) {
  std::cerr << "marrow: " << message << "\n";
  return 1;
}

}  // namespace marrow::cli

int main(int argc, char** argv) {
  CLI::App app{"marrow: skeletal animation: inspect, sample and blend clips from glTF files"};
  app.require_subcommand(1);
  std::function<int()> run;
  marrow::cli::add_info_command(app, run);
  marrow::cli::add_pose_command(app, run);
  marrow::cli::add_demo_command(app, run);
  marrow::cli::add_check_command(app, run);
  marrow::cli::add_convert_command(app, run);
  marrow::cli::add_render_command(app, run);
  marrow::cli::add_autoskin_command(app, run);
  marrow::cli::add_play_command(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return run ? run() : 1;
  } catch (const std::exception& e) {
    return marrow::cli::report_error(e.what());
  }
}
