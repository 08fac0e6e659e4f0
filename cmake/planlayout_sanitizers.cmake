# PLANLAYOUT_SANITIZE=ON builds every target with AddressSanitizer and UndefinedBehaviorSanitizer.
option(PLANLAYOUT_SANITIZE "Build with -fsanitize=address,undefined" OFF)
if(PLANLAYOUT_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=address,undefined)
endif()
