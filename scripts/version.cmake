# Writes OUT with the git describe of SRC, only when it changed (so only its user recompiles).
# Run at every build, so results always carry the version of the code that produced them.
execute_process(COMMAND git describe --always --dirty --tags
                WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT version)
  set(version "unknown")
endif()
set(content "#define DLSIM_VERSION \"${version}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUT} "${content}")
endif()
