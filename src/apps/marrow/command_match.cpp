// `marrow match FILE... --root J --left-foot J --right-foot J [--course COURSE.json] ...`: builds a
// motion-matching database from the files' clips (one skeleton: the first file's) and runs a
// course through it, printing the database and the course's figures (docs/motion_matching.md).
// `--save DB.marrow` keeps the database; `marrow match --database DB.marrow` runs courses on it.
#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "marrow/control/motion_course.h"
#include "marrow/io/motion_course_json.h"
#include "marrow/io/motion_database_archive.h"
#include "marrow/io/motion_database_assets.h"

namespace marrow::cli {
namespace {

struct MatchOptions {
  std::vector<std::string> files;
  std::string root, left_foot, right_foot, course, format = "text", save, database;
  float trajectory_weight = 4, search_interval = 0.1f, exclude_start = 0;
  float walk_speed = 0, jog_speed = 0;
  bool foot_locking = false, mirror = false;
  LoadOptions load;
};

Result<std::vector<MotionCourseStep>> read_course(const MatchOptions& o, const MotionDatabase& db) {
  if (o.course.empty()) {
    const float walk = o.walk_speed > 0 ? o.walk_speed : db.mean_speed();
    return standard_motion_course(db, walk, o.jog_speed > 0 ? o.jog_speed : 2 * walk);
  }
  std::ifstream in(o.course, std::ios::binary);
  if (!in) return make_error(o.course, "cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return parse_motion_course(text.str(), db, o.course);
}

nlohmann::json report_json(const MotionDatabase& db, double build_ms, const MotionCourseReport& r) {
  return {
      {"database",
       {{"frames", db.frame_count()},
        {"searchable", db.searchable_count()},
        {"floats", db.dims()},
        {"mean_speed", db.mean_speed()},
        {"build_ms", build_ms}}},
      {"course",
       {{"duration", r.duration},
        {"searches", r.searches},
        {"switches", r.switches},
        {"switches_per_second", r.switches_per_second},
        {"position_error", {{"mean", r.mean_position_error}, {"worst", r.worst_position_error}}},
        {"facing_error_degrees", {{"mean", r.mean_facing_error}, {"worst", r.worst_facing_error}}},
        {"contacts", r.contacts},
        {"foot_slide", {{"mean", r.mean_foot_slide}, {"worst", r.worst_foot_slide}}}}}};
}

// The files' clips made into a database; `build_ms` is the build's time (the files' loading not
// counted: the clips' sampling, features and index).
Result<std::shared_ptr<const MotionDatabase>> build_database(const MatchOptions& o,
                                                             double& build_ms) {
  if (o.files.empty() || o.root.empty() || o.left_foot.empty() || o.right_foot.empty())
    return make_error("match",
                      "give the files and --root, --left-foot and --right-foot, or a "
                      "saved --database");
  std::vector<Asset> assets;
  for (const std::string& file : o.files) {
    Result<Asset> asset = load_input(file, o.load);
    if (!asset) return asset.error();
    assets.push_back(std::move(*asset));
  }
  std::vector<const Asset*> files;
  for (const Asset& a : assets) files.push_back(&a);
  MotionDatabaseRecipe recipe{o.root, o.left_foot, o.right_foot};
  recipe.exclude_start = o.exclude_start;
  recipe.trajectory_weight = o.trajectory_weight;
  recipe.mirror = o.mirror;
  const auto start = std::chrono::steady_clock::now();
  Result<std::shared_ptr<const MotionDatabase>> db = build_motion_database(files, recipe);
  build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return db;
}

int run_match(const MatchOptions& o) {
  double build_ms = 0;
  const auto start = std::chrono::steady_clock::now();
  Result<std::shared_ptr<const MotionDatabase>> db =
      o.database.empty() ? build_database(o, build_ms) : read_motion_database(o.database);
  if (!db) return report_error(db.error().message);
  if (!o.database.empty())  // the archive's reading, its checks and the index's rebuild
    build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!o.save.empty()) {
    if (Status saved = write_motion_database(**db, o.save); !saved)
      return report_error(saved.error().message);
  }
  Result<std::vector<MotionCourseStep>> course = read_course(o, **db);
  if (!course) return report_error(course.error().message);
  MotionCourseOptions options;
  options.matcher.search_interval = o.search_interval;
  options.foot_locking = o.foot_locking;
  Result<MotionCourseReport> report = run_motion_course(*db, *course, options);
  if (!report) return report_error(report.error().message);
  if (o.format == "json") {
    nlohmann::json out = report_json(**db, build_ms, *report);
    out["database"]["loaded"] = !o.database.empty();
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  const MotionDatabase& d = **db;
  const MotionCourseReport& r = *report;
  std::cout << "database: " << d.frame_count() << " frames from " << d.clip_set().clip_count()
            << " clips" << (d.schema().mirror.empty() ? "" : " (half of them mirrored)") << " ("
            << d.searchable_count() << " searchable), " << d.dims() << " floats, mean speed "
            << d.mean_speed() << " units/s, " << (o.database.empty() ? "built" : "loaded") << " in "
            << build_ms << " ms" << (o.save.empty() ? "" : ", saved to " + o.save) << "\n"
            << "course: " << r.duration << " s, " << r.searches << " searches, " << r.switches
            << " switches (" << r.switches_per_second << "/s)\n"
            << "  position error: mean " << r.mean_position_error << ", worst "
            << r.worst_position_error << " units\n"
            << "  facing error: mean " << r.mean_facing_error << ", worst " << r.worst_facing_error
            << " degrees\n"
            << "  foot slide per contact: mean " << r.mean_foot_slide << ", worst "
            << r.worst_foot_slide << " units over " << r.contacts << " contacts"
            << (o.foot_locking ? " (feet locked)" : "") << "\n";
  return 0;
}

}  // namespace

void add_match_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<MatchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "match",
      "Motion matching: build a database from the files' clips (the first file's skeleton) and "
      "run a course of stick inputs through it; prints how closely the character followed "
      "(docs/motion_matching.md)");
  CLI::Option* files =
      cmd->add_option("files", options->files, "Files whose clips form the database");
  CLI::Option* root =
      cmd->add_option("--root", options->root, "The joint that carries the motion (the hips)");
  CLI::Option* left = cmd->add_option("--left-foot", options->left_foot, "The left ankle joint");
  CLI::Option* right =
      cmd->add_option("--right-foot", options->right_foot, "The right ankle joint");
  CLI::Option* saved = cmd->add_option(
      "--database", options->database,
      "A database saved with --save (.marrow): run the course on it instead of building one");
  for (CLI::Option* building : {files, root, left, right}) saved->excludes(building);
  cmd->add_option("--save", options->save,
                  "Save the database to this .marrow archive (docs/formats_archive.md)");
  cmd->add_option("--course", options->course,
                  "A course as JSON (docs/motion_matching.md); default: the standard course "
                  "(straight, quarter turns, a U-turn, a stop, a start, a jog)");
  cmd->add_option("--walk-speed", options->walk_speed,
                  "The standard course's walking speed, units/s (default: the database's mean)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--jog-speed", options->jog_speed,
                  "The standard course's jogging speed (default: twice the walk)")
      ->check(CLI::NonNegativeNumber);
  saved->excludes(cmd->add_option("--trajectory-weight", options->trajectory_weight,
                                  "Weight of the trajectory features (default 4)")
                      ->check(CLI::NonNegativeNumber));
  cmd->add_option("--search-interval", options->search_interval,
                  "Seconds between searches (default 0.1)")
      ->check(CLI::PositiveNumber);
  saved->excludes(
      cmd->add_option("--exclude-start", options->exclude_start,
                      "Leave each clip's first seconds out of the search (a T-pose frame)")
          ->check(CLI::NonNegativeNumber));
  cmd->add_flag("--foot-locking", options->foot_locking, "Hold planted feet where they land");
  CLI::Option* mirror = cmd->add_flag(
      "--mirror", options->mirror,
      "Also add every clip mirrored left to right (the sides from the humanoid match)");
  saved->excludes(mirror);
  cmd->add_option("--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  add_load_options(cmd, options->load);
  set_example(*cmd,
              "marrow match 002_01.bvh 007_01.bvh 006_10.bvh --root CC_Base_Hip --left-foot "
              "CC_Base_L_Foot --right-foot CC_Base_R_Foot --exclude-start 0.05");
  cmd->callback([options, &run] { run = [options] { return run_match(*options); }; });
}

}  // namespace marrow::cli
