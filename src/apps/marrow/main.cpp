#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include "commands.h"
#include "marrow/io/asset.h"
#include "marrow/io/atomic_file.h"
#include "marrow/math/simd.h"
#include "marrow/render/output.h"
#include "marrow/version.h"

namespace marrow::cli {

namespace {

// --quiet: what the readers noticed is not printed. One flag for the whole run, whichever
// command took it.
bool g_quiet_notes = false;

}  // namespace

void add_load_options(CLI::App* cmd, LoadOptions& options, bool* quiet,
                      const std::string& quiet_help) {
  cmd->add_option("--ticks-per-second", options.ticks_per_second,
                  "Rate of clips whose file gives none (.X without AnimTicksPerSecond: 4800; "
                  "SMD: 30); a rate in the file wins")
      ->check(CLI::PositiveNumber);
  cmd->add_flag_callback(
      "--quiet",
      [quiet] {
        g_quiet_notes = true;
        if (quiet) *quiet = true;
      },
      quiet_help.empty() ? "Do not print what the readers noticed in the input files (the notes "
                           "`marrow info` lists)"
                         : quiet_help);
}

Result<Asset> load_input(const std::string& path, const LoadOptions& options) {
  Result<Asset> asset = load_asset(path, options);
  // Once per file, though a command may read a file twice (a clip file given for two layers);
  // `convert` of a folder reads from several threads.
  static std::mutex mutex;
  static std::set<std::string> noted;
  const std::lock_guard<std::mutex> lock(mutex);
  if (asset && !g_quiet_notes && noted.insert(path).second) {
    // Readers that name the place already start with the file ("FILE:12: ..."): once is enough.
    for (const std::string& note : asset->warnings) {
      const bool named = note.rfind(path + ":", 0) == 0;
      std::cerr << "marrow: note: " << (named ? "" : path + ": ") << note << "\n";
    }
  }
  return asset;
}

int report_error(const std::string& message) {
  std::cerr << "marrow: " << message << "\n";
  return 1;
}

void set_example(CLI::App& command, const std::string& example) {
  command.footer("Example:\n  " + example);
}

namespace {

std::string version_text() {
  std::ostringstream out;
  out << "marrow " << kVersion << "\nreads:";
  for (std::string_view ext : readable_extensions()) out << " " << ext;
  out << "\nwrites: .glb .gltf .marrow\nrenders: .png .gif .mp4 ("
      << (render::find_on_path("ffmpeg") ? "ffmpeg found" : "needs ffmpeg: apt-get install ffmpeg")
      << ")\nsimd: " << to_string(active_simd_level())
      << " (sampling, blending, hierarchy, skinning, morph and controller kernels; detected "
      << to_string(detected_simd_level()) << ", MARROW_SIMD may lower it)";
  return out.str();
}

// The first word that is not an option names the subcommand. CLI11 would answer `marrow
// retarget --help` with the main help and exit 0; a command that does not exist is an error.
int check_subcommand_name(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == argv[i]) return 0;
    }
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    return report_error("unknown command '" + std::string(argv[i]) + "' (the commands are " +
                        names + "; see marrow --help)");
  }
  return 0;
}

}  // namespace

// --help and --version print and succeed as CLI11 does; a usage error becomes the one
// "marrow: ..." line with exit code 1 that every other failure gives, naming the command.
int report_parse_error(CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
  std::string command = "marrow";
  for (const CLI::App* sub : app.get_subcommands()) command += " " + sub->get_name();
  std::string what = e.what();
  if (!what.empty()) what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
  for (char& c : what)
    if (c == '\n') c = ' ';
  const std::string prefix = command == "marrow" ? "" : command.substr(7) + ": ";
  return report_error(prefix + what + " (see " + command + " --help)");
}

}  // namespace marrow::cli

int main(int argc, char** argv) {
  // Named here, so usage lines say `marrow` rather than the path the binary was run by.
  CLI::App app{
      "marrow: skeletal animation from the files artists export (glTF, .X, BVH, FBX, Collada, "
      "MD5, SMD, OBJ, .marrow): inspect, sample, blend, render, convert and bind meshes to "
      "skeletons",
      "marrow"};
  app.require_subcommand(1);
  app.set_version_flag("--version", marrow::cli::version_text,
                       "Print the version, the formats and the SIMD level, then exit");
  app.footer(
      "Example:\n  marrow render Soldier.glb --clip Run --out run.gif\n"
      "Each command's --help ends with an example of its own (marrow render --help).");
  std::function<int()> run;
  marrow::cli::add_info_command(app, run);
  marrow::cli::add_pose_command(app, run);
  marrow::cli::add_demo_command(app, run);
  marrow::cli::add_check_command(app, run);
  marrow::cli::add_convert_command(app, run);
  marrow::cli::add_render_command(app, run);
  marrow::cli::add_autoskin_command(app, run);
  marrow::cli::add_retarget_command(app, run);
  marrow::cli::add_play_command(app, run);
  marrow::cli::add_compile_command(app, run);
  marrow::cli::add_match_command(app, run);
  if (const int rc = marrow::cli::check_subcommand_name(app, argc, argv); rc != 0) return rc;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return marrow::cli::report_parse_error(app, e);
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
