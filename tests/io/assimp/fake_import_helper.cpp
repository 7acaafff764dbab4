// A stand-in for marrow-import-helper that misbehaves on purpose, so the tests can show what the
// parent side of the isolated import does with a child that hangs, crashes, eats memory or
// answers nonsense. The behaviour is chosen by the file name it is given ("hang.fbx", ...).
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "base/sanitizer_build.h"

#if defined(MARROW_ADDRESS_SANITIZER)
// As the real helper: under AddressSanitizer a SIGSEGV must stay the plain signal.
extern "C" const char* __asan_default_options() {
  return "handle_segv=0:handle_abort=0:detect_leaks=0";
}
#endif

int main(int argc, char** argv) {
  const std::string file = argc > 1 ? argv[argc - 1] : "";
  auto is = [&](const char* what) { return file.find(what) != std::string::npos; };
  if (is("hang")) {
    for (;;) ::pause();
  }
  if (is("segv")) {
    std::signal(SIGSEGV, SIG_DFL);  // not a sanitizer's report: the plain signal
    std::raise(SIGSEGV);
  }
  if (is("hog")) {
    // 1 GiB touched page by page, then wait to be stopped.
    std::vector<char*> blocks;
    for (int i = 0; i < 64; ++i) {
      char* block = new char[16 << 20];
      std::memset(block, 1, 16 << 20);
      blocks.push_back(block);
    }
    for (;;) ::pause();
  }
  if (is("garbage")) {
    const char text[] = "this is not what the parent expects";
    return ::write(3, text, sizeof text) == sizeof text ? 0 : 1;
  }
  if (is("badarchive")) {
    // A well-formed frame (no clips), then bytes that are not an archive.
    const unsigned char frame[] = {'M', 'R', 'W', 'C', 'H', 'L', 'D', '1', 0,   0,   0,  0,
                                   'n', 'o', 't', ' ', 'a', 'n', ' ', 'a', 'r', 'c', 'h'};
    return ::write(3, frame, sizeof frame) == sizeof frame ? 0 : 1;
  }
  if (is("flood")) {
    std::vector<char> block(1 << 20, 'x');
    for (;;) {
      if (::write(3, block.data(), block.size()) < 0) return 1;
    }
  }
  if (is("talk")) {
    const char text[] = "t.fbx: assimp: something the importer said\n";
    (void)!::write(2, text, sizeof text - 1);
    return 2;
  }
  return 9;
}
