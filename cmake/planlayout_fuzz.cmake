# PLANLAYOUT_FUZZ=ON builds one libFuzzer target per reader (fuzz/*.cpp); clang only.
# Use a separate build folder so the normal gcc build is untouched:
#   make fuzz (Makefile: HARDEN_CMAKE, the same clang build folder, build-asan/, as make sanitize)
# `make fuzz FUZZ_SECONDS=60` builds them and runs each for that long (docs/hardening.md).
option(PLANLAYOUT_FUZZ "Build the libFuzzer targets under fuzz/ (needs clang)" OFF)
if(PLANLAYOUT_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR "PLANLAYOUT_FUZZ=ON needs clang (libFuzzer): configure with "
                            "-DCMAKE_CXX_COMPILER=clang++ in its own build folder (make fuzz uses build-asan/)")
    endif()
    set(PLANLAYOUT_FUZZ_SANITIZERS address,undefined)
    # The libraries under test get coverage instrumentation and the sanitizers, not libFuzzer's main.
    foreach(lib planlayout_core planlayout_cli)
        target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link,${PLANLAYOUT_FUZZ_SANITIZERS}
                               -fno-sanitize-recover=all -fno-omit-frame-pointer)
    endforeach()
    set(PLANLAYOUT_FUZZ_TARGETS
        fuzz_cluster_json fuzz_hwloc_xml fuzz_nvidia_smi_topo fuzz_nccl_topo_xml fuzz_slurm_topology
        fuzz_slurm_topology_yaml fuzz_k8s_nodes
        fuzz_nccl_log fuzz_nccl_tests fuzz_step_log fuzz_megatron_args fuzz_hf_config fuzz_torchtitan_toml)
    foreach(t ${PLANLAYOUT_FUZZ_TARGETS})
        add_executable(${t} fuzz/${t}.cpp)
        target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/cli)
        target_link_libraries(${t} PRIVATE planlayout_cli)
        target_compile_options(${t} PRIVATE -fsanitize=fuzzer,${PLANLAYOUT_FUZZ_SANITIZERS}
                               -fno-sanitize-recover=all -fno-omit-frame-pointer)
        target_link_options(${t} PRIVATE -fsanitize=fuzzer,${PLANLAYOUT_FUZZ_SANITIZERS})
        planlayout_set_warnings(${t})
    endforeach()
    add_custom_target(fuzz_all DEPENDS ${PLANLAYOUT_FUZZ_TARGETS})
endif()
