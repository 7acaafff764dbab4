// The command-line examples of the README and the docs (every indented line that starts
// "build/bin/marrow"), run as written from a scratch folder with build/bin/marrow, ../shared and
// examples/ pointed at the build, the shared assets and the source tree: each succeeds and makes
// what it says, checked by what the output must hold.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include "base/sanitizer_build.h"
#include "run_process.h"

using namespace marrow_test;

namespace {

// The example commands of one page: indented lines starting "build/bin/marrow", continuation
// lines ("\\" at the end) joined, a trailing "# comment" dropped.
std::vector<std::string> examples_of(const std::string& page) {
  std::istringstream text(slurp(fs::path(MARROW_SOURCE_DIR) / page));
  std::vector<std::string> commands;
  std::string pending;
  for (std::string line; std::getline(text, line);) {
    if (pending.empty() && line.rfind("    build/bin/marrow ", 0) != 0) continue;
    line = line.substr(line.find_first_not_of(' '));
    if (const std::size_t hash = line.find(" #"); hash != std::string::npos) line.resize(hash);
    const bool continues = !line.empty() && line.back() == '\\';
    if (continues) line.pop_back();
    pending += line + " ";
    if (!continues) {
      commands.push_back(pending);
      pending.clear();
    }
  }
  return commands;
}

std::string replaced(std::string word, const std::string& from, const std::string& to) {
  if (word.rfind(from, 0) == 0) word = to + word.substr(from.size());
  return word;
}

// What a written file must start with, by its extension.
std::string magic_of(const fs::path& p) {
  const std::string ext = p.extension().string();
  if (ext == ".gif") return "GIF89a";
  if (ext == ".png") return "\x89PNG";
  if (ext == ".glb") return "glTF";
  return "";
}

}  // namespace

TEST(DocExamples, EveryCommandLineExampleSucceedsAndMakesWhatItSays) {
#if defined(MARROW_ADDRESS_SANITIZER)
  GTEST_SKIP() << "run by the Release suite (whole commands; their own tests run sanitized)";
#endif
  const std::string shared = MARROW_SHARED_DIR;
  if (!fs::exists(shared + "/assets/gltf/Soldier.glb")) GTEST_SKIP() << "no shared assets";
  std::vector<std::string> commands;
  for (const char* page :
       {"README.md", "docs/rendering.md", "docs/autoskin.md", "docs/retargeting.md",
        "docs/formats_archive.md", "docs/motion_matching.md"}) {
    const std::vector<std::string> mine = examples_of(page);
    EXPECT_FALSE(mine.empty()) << page << " has no example";
    commands.insert(commands.end(), mine.begin(), mine.end());
  }
  ASSERT_GE(commands.size(), 30u);
  Scratch s("readme");
  // A file name with an extension, not an option, a number or a path elsewhere.
  const std::regex relative_file("[A-Za-z_][A-Za-z0-9_/-]*\\.[A-Za-z]+");
  // What a report on stdout must say, by the example's subcommand and first option.
  const std::map<std::string, std::vector<std::string>> report = {
      {"info", {"clip"}},
      {"pose", {"mixamorig:Hips"}},
      {"play", {"frame 0", "player"}},
      {"check", {"compatible"}},
      {"match", {"frames", "switches", "foot"}},
      {"--version", {"marrow"}},
      {"autoskin", {"method heat", "precision"}}};
  for (const std::string& command : commands) {
    std::istringstream words(command);
    std::vector<std::string> args;
    std::vector<fs::path> outputs;
    std::string word;
    words >> word;
    ASSERT_EQ(word, "build/bin/marrow") << command;
    while (words >> word) {
      if (word.size() > 1 && word.front() == '\'' && word.back() == '\'')
        word = word.substr(1, word.size() - 2);  // a shell-quoted argument
      word = replaced(word, "../shared", shared);
      word = replaced(word, "examples/", std::string(MARROW_SOURCE_DIR) + "/examples/");
      // A relative path is a file the examples write or read back: in the scratch folder.
      if (std::regex_match(word, relative_file) || word == "converted")
        word = (s.dir / word).string();
      const bool output_follows = !args.empty() && (args.back() == "--out" || args.back() == "-o" ||
                                                    (args.size() == 2 && args[0] == "convert"));
      if (output_follows || (args.size() == 2 && args[0] == "convert" && word[0] != '-'))
        outputs.emplace_back(word);
      args.push_back(word);
    }
    const Outcome o = run(s, args);
    ASSERT_EQ(o.exit_code, 0) << command << "\n" << o.err;
    for (const fs::path& out : outputs) {
      ASSERT_TRUE(fs::exists(out)) << command << " did not write " << out;
      if (fs::is_directory(out)) {
        EXPECT_FALSE(fs::is_empty(out)) << command;
        continue;
      }
      const std::string bytes = slurp(out);
      const std::string magic = magic_of(out);
      EXPECT_EQ(bytes.substr(0, magic.size()), magic) << command << ": " << out;
      EXPECT_GT(bytes.size(), 100u) << command << ": " << out;
    }
    if (outputs.empty()) {
      const auto wanted = report.find(args[0]);
      ASSERT_NE(wanted, report.end()) << "no check for " << command;
      for (const std::string& text : wanted->second)
        EXPECT_NE(o.out.find(text), std::string::npos) << command << " did not say " << text;
    }
  }
}
