// tinyobjloader's implementation, for the WebAssembly build: Debian's libtinyobjloader-dev ships
// it compiled for the host only, and its header holds the implementation behind this macro.
#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>
