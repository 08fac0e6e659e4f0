# planlayout_set_warnings(<target>): the warning set every target of ours builds with.
option(PLANLAYOUT_WERROR "Treat compiler warnings as errors" OFF)

function(planlayout_set_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion)
    if(PLANLAYOUT_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
endfunction()
