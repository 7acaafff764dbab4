// Forced inlining for the per-frame kernels: their small lane operations must fold into one loop
// body to be fast. The sanitizer and fuzz builds define MARROW_NO_FORCE_INLINE and leave inlining
// to the compiler: clang's instrumentation of the fully inlined 8-lane kernels takes minutes per
// file, and those builds are about finding faults, not speed. x86-64 builds define it for the
// portable scalar level's files alone (src/CMakeLists.txt): there that level is a test reference
// that no processor is given by default, and force-inlined it was the slowest compile of the tree.
#pragma once

#if defined(MARROW_NO_FORCE_INLINE)
#define MARROW_FORCE_INLINE inline
#else
#define MARROW_FORCE_INLINE [[gnu::always_inline]] inline
#endif
