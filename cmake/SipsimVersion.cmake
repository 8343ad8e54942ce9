# The git revision is recorded in every run file (/meta git_revision).
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
                OUTPUT_VARIABLE SIPSIM_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE _git_rc)
if(NOT _git_rc EQUAL 0 OR SIPSIM_GIT_REVISION STREQUAL "")
  set(SIPSIM_GIT_REVISION "unknown")
endif()
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/version.hpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/sipsim/version.hpp @ONLY)
