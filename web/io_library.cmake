# The readers and writers of the WebAssembly build (included from src/CMakeLists.txt, so paths are
# src/'s): MARROW_IO_SOURCES, with one clear error for each reader left out
# (io/web_unavailable.cpp, docs/web.md). Debian's header-only libraries live in /usr/include,
# which emscripten's sysroot does not search, and beside glibc's headers, which it must not see:
# they are reached through links in the build tree.
set(MARROW_WEB_HEADERS ${PROJECT_BINARY_DIR}/web_headers)
file(MAKE_DIRECTORY ${MARROW_WEB_HEADERS})
foreach(header nlohmann tiny_obj_loader.h)
  if(NOT EXISTS /usr/include/${header})
    message(FATAL_ERROR "/usr/include/${header} is missing: run `make deps` (nlohmann-json3-dev, "
                        "libtinyobjloader-dev)")
  endif()
  file(CREATE_LINK /usr/include/${header} ${MARROW_WEB_HEADERS}/${header} SYMBOLIC)
endforeach()
add_library(marrow_io STATIC ${MARROW_IO_SOURCES} io/web_unavailable.cpp io/x/x_inflate_web.cpp
                             io/obj/tiny_obj_loader_implementation.cpp)
target_include_directories(marrow_io SYSTEM PRIVATE ${MARROW_WEB_HEADERS})
target_include_directories(marrow_io PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/io ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(marrow_io PRIVATE MARROW_NO_ZLIB)
# The readers run once per file, not per frame: compiled for size, which keeps the module within
# its 2 MiB goal (docs/web.md has the sizes).
target_compile_options(marrow_io PRIVATE -Os)
target_link_libraries(marrow_io PUBLIC marrow_runtime PRIVATE marrow_warnings)
