# Install rules, the exported CMake package, planlayout.pc and CPack (issue 14 item 7).
# A downstream project links the library with either
#   find_package(planlayout REQUIRED)  +  target_link_libraries(app PRIVATE planlayout::core)
#   pkg-config --cflags --libs planlayout
# tests/consumer/ is such a project; tests/consumer/check_consumer.sh builds it against an install.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PLANLAYOUT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/planlayout)

# Libraries (static), the executable, headers. The headers in include/planlayout/ include only each
# other, the standard library, nlohmann/json and Boost.Graph: never src/ nor the generated
# planlayout_embedded_*.hpp (those stay private to src/). version.hpp is generated, installed too.
install(TARGETS planlayout_core planlayout_cli EXPORT planlayoutTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS plan-layout RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime)
install(DIRECTORY include/planlayout DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    COMPONENT Development FILES_MATCHING PATTERN "*.hpp" PATTERN "*.def")
install(FILES ${PLANLAYOUT_GENERATED_INCLUDE}/planlayout/version.hpp
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/planlayout COMPONENT Development)

# Data: the layouts and the diagram style/examples.
install(DIRECTORY layouts viz DESTINATION ${CMAKE_INSTALL_DATADIR}/plan-layout COMPONENT Runtime)
# The man page, written at build time from the CLI's own option definitions.
install(FILES ${PROJECT_BINARY_DIR}/plan-layout.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT Runtime)

# The CMake package: planlayoutTargets.cmake (planlayout::core, planlayout::cli), a config file that
# finds the dependencies first, and a version file.
install(EXPORT planlayoutTargets NAMESPACE planlayout:: DESTINATION ${PLANLAYOUT_CMAKE_DIR}
    COMPONENT Development)
configure_package_config_file(cmake/planlayoutConfig.cmake.in
    ${PROJECT_BINARY_DIR}/planlayoutConfig.cmake INSTALL_DESTINATION ${PLANLAYOUT_CMAKE_DIR})
# 0.x: a minor version may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/planlayoutConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/planlayoutConfig.cmake
    ${PROJECT_BINARY_DIR}/planlayoutConfigVersion.cmake
    DESTINATION ${PLANLAYOUT_CMAKE_DIR} COMPONENT Development)

# planlayout.pc, relocatable: prefix is found from the .pc file's own place (${pcfiledir}), so the
# same file is right under `cmake --install --prefix X` and in the .deb (/usr).
file(RELATIVE_PATH PLANLAYOUT_PC_TO_PREFIX
    /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" PLANLAYOUT_PC_TO_PREFIX "${PLANLAYOUT_PC_TO_PREFIX}")
# The libraries are static: a plain (non --static) `pkg-config --libs` must still name what they
# link against, so the dependencies' link flags (as pkg-config gave them at configure time) are in
# Libs; Requires.private names the same modules for --cflags and --static.
set(PLANLAYOUT_PC_DEP_LIBS "")
foreach(dir IN LISTS hwloc_LIBRARY_DIRS graphviz_LIBRARY_DIRS yaml_LIBRARY_DIRS tomlplusplus_LIBRARY_DIRS)
    if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES AND NOT "-L${dir}" IN_LIST PLANLAYOUT_PC_DEP_LIBS)
        list(APPEND PLANLAYOUT_PC_DEP_LIBS "-L${dir}")
    endif()
endforeach()
foreach(lib IN LISTS hwloc_LIBRARIES graphviz_LIBRARIES yaml_LIBRARIES tomlplusplus_LIBRARIES)
    list(APPEND PLANLAYOUT_PC_DEP_LIBS "-l${lib}")
endforeach()
list(JOIN PLANLAYOUT_PC_DEP_LIBS " " PLANLAYOUT_PC_DEP_LIBS)
configure_file(cmake/planlayout.pc.in ${PROJECT_BINARY_DIR}/planlayout.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/planlayout.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT Development)

# CPack: `make package` (top Makefile) runs cpack in build/ and leaves plan-layout_<ver>_<arch>.deb
# there. One package with everything: the executable and data, and the library's headers, static
# libraries, CMake package and planlayout.pc.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME plan-layout)
set(CPACK_PACKAGE_VENDOR "plan-layout")
set(CPACK_PACKAGE_CONTACT "plan-layout maintainers <plan-layout@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
"plan-layout reads a cluster description and a parallelism layout (TP/PP/EP/DP/CP) and reports
the communication groups, which links each collective crosses, the expected cost and a score.
This package holds the plan-layout command, its example layouts and diagram style, and the
planlayout C++ library (static) with its headers, CMake package (find_package(planlayout))
and pkg-config file (planlayout.pc).")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # plan-layout_0.1.0_amd64.deb; the DEB generator installs under /usr
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
# Runtime Depends: from dpkg-shlibdeps when dpkg-dev is there (exact versions), else the Debian 12
# packages the executable links against.
find_program(PLANLAYOUT_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(PLANLAYOUT_DPKG_SHLIBDEPS)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "libhwloc15 (>= 2.0), libyaml-0-2, libtomlplusplus3, libgvc6, libcgraph6, libcdt5, libstdc++6, libc6")
endif()
# What building against the library needs (the CMake package and planlayout.pc find these).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "libhwloc-dev, libyaml-dev, libtomlplusplus-dev, libgraphviz-dev, libboost-graph-dev, nlohmann-json3-dev, pkg-config, cmake")
# `make package_source` (from build/): a tarball of the source tree, without git and build folders.
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/[.]git/" "/[.]git$" "/build[^/]*/" "/__pycache__/")
include(CPack)
