// Running the `marrow` command as a process: with stdout and stderr in files, or under a
// pseudo-terminal (util-linux `script`) so that stderr is a terminal.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include "../common/whole_file.h"

namespace marrow_test {

namespace fs = std::filesystem;

inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string slurp(const fs::path& p) {
  return marrow::test::whole_file<std::string>(p);
}

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

// A fresh folder, removed at the end.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name)
      : dir(fs::temp_directory_path() / ("marrow_apps_" + name + "_" + std::to_string(getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
};

inline std::string command_line(const std::vector<std::string>& args) {
  std::string command = quote(MARROW_BIN);
  for (const std::string& a : args) command += " " + quote(a);
  return command;
}

inline int exit_code_of(int status) {
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// stdout and stderr to files (not terminals).
inline Outcome run(const Scratch& s, const std::vector<std::string>& args) {
  const std::string command = command_line(args) + " >" + quote((s.dir / "stdout").string()) +
                              " 2>" + quote((s.dir / "stderr").string()) + " </dev/null";
  Outcome o;
  o.exit_code = exit_code_of(std::system(command.c_str()));
  o.out = slurp(s.dir / "stdout");
  o.err = slurp(s.dir / "stderr");
  return o;
}

// Under a pseudo-terminal: stdout and stderr both go to the terminal, whose output `script`
// writes to a file (returned in `out`).
inline Outcome run_on_terminal(const Scratch& s, const std::vector<std::string>& args) {
  const std::string inner = command_line(args);
  const std::string command = "script -q -e -c " + quote(inner) + " " +
                              quote((s.dir / "typescript").string()) +
                              " >/dev/null 2>&1 </dev/null";
  Outcome o;
  o.exit_code = exit_code_of(std::system(command.c_str()));
  // `script` frames the session with "Script started ..." and "Script done ..." lines.
  std::string text = slurp(s.dir / "typescript");
  if (text.rfind("Script started", 0) == 0) text.erase(0, text.find('\n') + 1);
  if (const std::size_t done = text.rfind("\nScript done"); done != std::string::npos)
    text.erase(done + 1);
  o.out = text;
  return o;
}

}  // namespace marrow_test
