# PLANLAYOUT_UNITY=ON (the default) compiles the libraries' sources as unity builds: CMake joins
# PLANLAYOUT_UNITY_BATCH sources into one translation unit (unity_N_cxx.cxx under the target's
# CMakeFiles/), so the heavy headers (nlohmann/json, Boost.Graph, the standard library) are parsed
# and their templates instantiated once per batch instead of once per source. It roughly halves
# `make run`'s compile time (docs/development.md#build-time). Every source must therefore also
# compile next to the others of its batch: no two files may define the same file-local name
# (anonymous namespace or static); name helpers after what they do, and share the common ones
# (src/text_format.hpp, svg::num in src/emit/svg_writer.hpp). -DPLANLAYOUT_UNITY=OFF builds each
# source alone (make tidy's own build folder does, so that clang-tidy sees every source).
option(PLANLAYOUT_UNITY "Compile the libraries as unity builds (faster full builds)" ON)
set(PLANLAYOUT_UNITY_BATCH 16 CACHE STRING "Sources per unity translation unit (PLANLAYOUT_UNITY=ON)")

# planlayout_set_unity(<target>): the unity build for one of the libraries, when switched on.
function(planlayout_set_unity target)
    if(PLANLAYOUT_UNITY)
        set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                              UNITY_BUILD_BATCH_SIZE ${PLANLAYOUT_UNITY_BATCH})
    endif()
endfunction()
