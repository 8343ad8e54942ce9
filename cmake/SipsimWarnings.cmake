add_library(sipsim_warnings INTERFACE)
target_compile_options(sipsim_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion)
if(SIPSIM_WERROR)
  target_compile_options(sipsim_warnings INTERFACE -Werror)
endif()
# GCC 12 reports false -Wrestrict positives inside libstdc++'s std::string
# concatenation at -O2 (GCC bug 105329); the warning stays on for other compilers.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(sipsim_warnings INTERFACE -Wno-restrict)
endif()
