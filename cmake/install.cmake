# `cmake --install build --prefix P`: headers, libraries, the `marrow` command, a CMake package
# (marrowConfig.cmake, one component per library) and pkg-config files; `cpack` makes a Debian
# package of the same. Headers are installed by directory, so a module's new headers (and a
# library's new sources) need no change here.
include(CMakePackageConfigHelpers)

set(MARROW_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/marrow)

# Components: what each library needs found before its targets can be imported. The runtime
# needs nothing but the C++ standard library.
set(MARROW_COMPONENTS runtime io autoskin render)
set_target_properties(marrow_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(marrow_io PROPERTIES EXPORT_NAME io)
set_target_properties(marrow_autoskin PROPERTIES EXPORT_NAME autoskin)
set_target_properties(marrow_render PROPERTIES EXPORT_NAME render)
foreach(component IN LISTS MARROW_COMPONENTS)
  install(TARGETS marrow_${component} EXPORT marrow-${component}-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT marrow-${component}-targets NAMESPACE marrow:: DESTINATION ${MARROW_CMAKE_DIR}
          COMPONENT development)
endforeach()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/marrow ${PROJECT_BINARY_DIR}/include/marrow
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development FILES_MATCHING
        PATTERN "*.h")
# The command and the child process it imports FBX in (found beside the command).
install(TARGETS marrow marrow-import-helper RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/marrowConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/marrowConfig.cmake
                              INSTALL_DESTINATION ${MARROW_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/marrowConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/marrowConfig.cmake
              ${PROJECT_BINARY_DIR}/marrowConfigVersion.cmake
        DESTINATION ${MARROW_CMAKE_DIR} COMPONENT development)

# pkg-config: marrow-runtime (the runtime alone) and marrow (everything, static).
foreach(pc marrow marrow-runtime)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT development)
endforeach()

# cpack: one Debian package with the command, the libraries and the headers.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME marrow)
set(CPACK_PACKAGE_VENDOR "marrow")
set(CPACK_PACKAGE_CONTACT "marrow maintainers <marrow@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Skeletal animation: load, sample, blend and skin characters; the marrow command line")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The command's shared libraries, found by dpkg-shlibdeps; the static libraries' link-time
# dependencies for users who link marrow::io, autoskin or render.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libassimp-dev, libtinyobjloader-dev, zlib1g-dev, libpugixml-dev, \
nlohmann-json3-dev, libeigen3-dev, libembree-dev, libstb-dev, libjpeg62-turbo-dev, pkg-config")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "ffmpeg")
set(CPACK_PACKAGE_FILE_NAME "marrow_${PROJECT_VERSION}_amd64")
include(CPack)
