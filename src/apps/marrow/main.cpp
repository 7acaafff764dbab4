#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "commands.h"
#include "marrow/io/atomic_file.h"

namespace marrow::cli {

void add_load_options(CLI::App* cmd, LoadOptions& options) {
  cmd->add_option("--ticks-per-second", options.ticks_per_second,
                  "Rate of clips whose file gives none (.X without AnimTicksPerSecond: 4800; "
                  "SMD: 30); a rate in the file wins")
      ->check(CLI::PositiveNumber);
}

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
  marrow::cli::add_retarget_command(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  // Ctrl-C or a kill while a command writes leaves no temporary file behind.
  marrow::remove_temporaries_on_signal();
  int status = 1;
  try {
    status = run ? run() : 1;
  } catch (const std::exception& e) {
    return marrow::cli::report_error(e.what());
  }
  // What went to standard output must have arrived (a full disk, a closed pipe): a command whose
  // output was lost fails.
  errno = 0;
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const std::string why = errno != 0 ? std::strerror(errno) : "write error";
    return marrow::cli::report_error("cannot write standard output: " + why);
  }
  return status;
}
