// `marrow convert IN OUT [--embed]`: reads anything marrow reads, writes .glb, .gltf or .marrow
// (by OUT's extension). A failure leaves no output file behind.
#include <iostream>

#include "commands.h"
#include "marrow/io/asset.h"
#include "marrow/io/gltf_export.h"
#include "marrow/io/save.h"

namespace marrow::cli {
namespace {

struct ConvertOptions {
  std::string input;
  std::string output;
  bool embed = false;
  bool quiet = false;
  LoadOptions load;
};

int run_convert(const ConvertOptions& o) {
  Result<Asset> asset = load_asset(o.input, o.load);
  if (!asset) return report_error(asset.error().message);
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

}  // namespace

void add_convert_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert", "Convert a file to .glb, .gltf (+ .bin) or .marrow, chosen by OUT's extension");
  cmd->add_option("input", options->input, "Any file marrow reads")->required();
  add_load_options(cmd, options->load);
  cmd->add_option("output", options->output, "The file to write (.glb, .gltf or .marrow)")
      ->required();
  cmd->add_flag("--embed", options->embed,
                "For .gltf: embed the buffer as a data URI instead of writing a side .bin");
  cmd->add_flag("--quiet", options->quiet, "Print nothing on success");
  cmd->callback([options, &run] { run = [options] { return run_convert(*options); }; });
}

}  // namespace marrow::cli
