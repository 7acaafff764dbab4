// `marrow convert IN OUT [--clip NAME|INDEX]... [--embed] [--quiet]`: reads anything marrow reads,
// writes .glb, .gltf or .marrow (by OUT's extension). `marrow convert DIR OUT_DIR --to glb|marrow`:
// every file under DIR that marrow reads, converted in parallel on the machine's cores into the
// same layout under OUT_DIR, with a summary; one bad file does not stop the rest, and the exit code
// says whether any failed. A failure never leaves an output file behind.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "commands.h"
#include "marrow/io/asset.h"
#include "marrow/io/gltf_export.h"
#include "marrow/io/save.h"
#include "progress.h"

namespace marrow::cli {
namespace {

namespace fs = std::filesystem;

struct ConvertOptions {
  std::string input;
  std::string output;
  std::string to;                  // folders: "glb" or "marrow"
  std::vector<std::string> clips;  // keep only these (names or indices); empty: all
  bool embed = false;
  bool quiet = false;
  unsigned threads = 0;  // 0: one per core
  LoadOptions load;
};

int run_convert_file(const ConvertOptions& o) {
  if (!o.to.empty()) {
    return report_error("--to is for converting a folder; " + o.input +
                        " is a file (the output's extension picks the format)");
  }
  Result<Asset> asset = load_input(o.input, o.load);
  if (!asset) return report_error(asset.error().message);
  if (!o.clips.empty()) {
    Result<std::vector<std::size_t>> kept = asset->require_clips(o.clips);
    if (!kept) return report_error(kept.error().message);
    asset->keep_clips(*kept);
  }
  std::vector<std::string> notes;
  Status st;
  if (o.embed) {
    GltfExportOptions options;
    options.embed_buffer = true;
    st = write_gltf(*asset, o.output, options, &notes);
  } else {
    st = save_asset(*asset, o.output, &notes);
  }
  if (!st) return report_error(st.error().message);
  if (!o.quiet) {
    for (const std::string& n : notes)
      std::cerr << "marrow: note: " << o.output << ": " << n << "\n";
    std::cout << o.input << " -> " << o.output << ": " << asset->skeleton.size() << " joints, "
              << asset->clips.size() << " clips, " << asset->skins.size() << " skins, "
              << asset->meshes.size() << " meshes\n";
  }
  return 0;
}

// One file of a folder conversion and what became of it.
struct Job {
  fs::path input, output;
  std::string error;               // empty: converted
  std::vector<std::string> notes;  // the writer's
  bool read_notes = false;         // the reader noted something (printed as it read)
};

// Every file under `root` that marrow reads (not descending into `skip`, the output folder when
// it lies inside), in a stable order, each with the output path it maps to. Two inputs that
// would map to one output (walk.gltf and walk.glb) keep their full names (walk.gltf.glb).
std::vector<Job> plan_jobs(const fs::path& root, const fs::path& out_root, const fs::path& skip,
                           const std::string& extension) {
  std::vector<Job> jobs;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(
           root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_directory(ec) && fs::equivalent(it->path(), skip, ec)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec) || !is_readable_extension(it->path().string())) continue;
    Job job;
    job.input = it->path();
    job.output = out_root / fs::relative(it->path(), root, ec);
    job.output.replace_extension(extension);
    jobs.push_back(std::move(job));
  }
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.input < b.input; });
  std::map<fs::path, int> uses;
  for (const Job& j : jobs) ++uses[j.output];
  for (Job& j : jobs) {
    if (uses[j.output] > 1) j.output.replace_filename(j.input.filename().string() + extension);
  }
  return jobs;
}

void convert_one(Job& job, const LoadOptions& load) {
  Result<Asset> asset = load_input(job.input.string(), load);
  if (!asset) {
    job.error = asset.error().message;
    return;
  }
  job.read_notes = !asset->warnings.empty();
  std::error_code ec;
  fs::create_directories(job.output.parent_path(), ec);
  if (Status st = save_asset(*asset, job.output.string(), &job.notes); !st) {
    job.error = st.error().message;
  }
}

int run_convert_folder(const ConvertOptions& o) {
  if (o.to != "glb" && o.to != "marrow") {
    return report_error(o.input + " is a folder: say what to write with --to glb or --to marrow");
  }
  if (o.embed) return report_error("--embed is for one .gltf file, not a folder");
  if (!o.clips.empty()) return report_error("--clip is for one file, not a folder");
  const fs::path root(o.input), out_root(o.output);
  std::error_code ec;
  if (fs::exists(out_root, ec) && !fs::is_directory(out_root, ec)) {
    return report_error(o.output + ": exists and is not a folder");
  }
  fs::create_directories(out_root, ec);
  if (ec) return report_error(o.output + ": cannot create the folder (" + ec.message() + ")");
  std::vector<Job> jobs = plan_jobs(root, out_root, out_root, "." + o.to);
  if (jobs.empty()) return report_error(o.input + ": no file marrow reads in this folder");

  const auto start = std::chrono::steady_clock::now();
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const unsigned workers =
      static_cast<unsigned>(std::min<std::size_t>(o.threads ? o.threads : cores, jobs.size()));
  ProgressBar progress("converting", jobs.size(), "files", !o.quiet);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      convert_one(jobs[i], o.load);
      progress.advance();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  progress.clear();

  std::size_t failed = 0, noted = 0;
  for (const Job& job : jobs) {
    if (!job.error.empty()) {
      ++failed;
      std::cerr << "marrow: failed: " << job.error << "\n";
    } else if (!job.notes.empty() || job.read_notes) {
      ++noted;
      if (!o.quiet) {
        for (const std::string& n : job.notes)
          std::cerr << "marrow: note: " << job.output.string() << ": " << n << "\n";
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!o.quiet || failed) {
    std::cout << "converted " << jobs.size() - failed << " of " << jobs.size() << " files from "
              << o.input << " into " << o.output << " (." << o.to << "): " << noted
              << " with notes, " << failed << " failed, in " << std::fixed << std::setprecision(2)
              << seconds << " s on " << workers << (workers == 1 ? " thread" : " threads") << "\n";
  }
  return failed ? 1 : 0;
}

int run_convert(const ConvertOptions& o) {
  std::error_code ec;
  return fs::is_directory(o.input, ec) ? run_convert_folder(o) : run_convert_file(o);
}

}  // namespace

void add_convert_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "Convert a file to .glb, .gltf (+ .bin) or .marrow, chosen by OUT's extension; or every "
      "file of a folder, in parallel, with --to");
  cmd->add_option("input", options->input, "Any file marrow reads, or a folder of them")
      ->required();
  add_load_options(cmd, options->load, &options->quiet,
                   "Print nothing on success, reader notes included");
  cmd->add_option("output", options->output,
                  "The file to write (.glb, .gltf or .marrow), or the folder for a folder")
      ->required();
  cmd->add_option("--to", options->to, "For a folder: glb or marrow")
      ->check(CLI::IsMember({"glb", "marrow"}));
  cmd->add_flag("--embed", options->embed,
                "For .gltf: embed the buffer as a data URI instead of writing a side .bin");
  cmd->add_option("--clip", options->clips,
                  "Write only this clip (name or index; repeatable, in the order given)");
  cmd->add_option("--threads", options->threads,
                  "For a folder: files converted at once (default: one per core)");
  set_example(*cmd, "marrow convert assets/ converted/ --to glb");
  cmd->callback([options, &run] { run = [options] { return run_convert(*options); }; });
}

}  // namespace marrow::cli
