# End-to-end check of a run that must fail: runs
#   [MPIEXEC NP_FLAG RANKS PRE_FLAGS] EXE run DECK [--set SET]
# in the working directory ctest gives, and requires
#   (a) a non-zero exit that is not a crash, a signal or a timeout,
#   (b) stdout+stderr matching the regex EXPECT (typically the file, line and key at fault),
#   (c) no thermo row: the run stopped before any step.
# Usage: cmake -DEXE= -DDECK= -DEXPECT= [-DSET=] [-DMPIEXEC= -DNP_FLAG= -DRANKS= "-DPRE_FLAGS="]
#              -P expect_run_error.cmake
foreach(var EXE DECK EXPECT)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "expect_run_error.cmake: -D${var}=... is required")
  endif()
endforeach()

set(cmd "${EXE}" run "${DECK}")
if(DEFINED SET AND NOT SET STREQUAL "")
  list(APPEND cmd --set "${SET}")
endif()
if(DEFINED MPIEXEC AND NOT MPIEXEC STREQUAL "")
  separate_arguments(_pre UNIX_COMMAND "${PRE_FLAGS}")
  set(cmd "${MPIEXEC}" ${NP_FLAG} ${RANKS} ${_pre} ${cmd})
endif()
string(REPLACE ";" " " _shown "${cmd}")

execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 60)
set(all "${out}${err}")

if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "`${_shown}` did not exit normally (${rc}); output:\n${all}")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "`${_shown}` exited 0, expected an error; output:\n${all}")
endif()
if(NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR
    "`${_shown}` exited ${rc} but its output does not match\n  ${EXPECT}\noutput:\n${all}")
endif()
if(all MATCHES "step +temp +pe")
  message(FATAL_ERROR "`${_shown}` printed thermo before failing:\n${all}")
endif()
message(STATUS "ok: exit ${rc}, output matches '${EXPECT}'")
