// marrow-import-helper: the child process of marrow's isolated assimp import
// (read_assimp_isolated). Not meant to be run by hand.
#include "marrow/io/assimp_import.h"

#include "base/sanitizer_build.h"

#ifdef MARROW_ADDRESS_SANITIZER
// In the sanitizer build a crash inside assimp must look like the crash it is (a signal), a
// huge allocation must fail as std::bad_alloc, and what assimp leaks dies with the process.
extern "C" const char* __asan_default_options() {
  return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:detect_leaks=0:"
         "allocator_may_return_null=1";
}
#endif

int main(int argc, char** argv) {
  return marrow::run_import_helper(argc, argv);
}
