# End-to-end check of a run that must succeed: runs
#   [MPIEXEC NP_FLAG RANKS PRE_FLAGS] EXE run DECK [--set S]...
# and requires exit status 0 and stdout+stderr matching the regex EXPECT.
# Usage: cmake -DEXE= -DDECK= -DEXPECT= [-DSET=k=v[;k=v...]]
#              [-DMPIEXEC= -DNP_FLAG= -DRANKS= "-DPRE_FLAGS="] -P expect_run_ok.cmake
foreach(var EXE DECK EXPECT)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "expect_run_ok.cmake: -D${var}=... is required")
  endif()
endforeach()
set(cmd "${EXE}" run "${DECK}")
foreach(_s IN LISTS SET)
  list(APPEND cmd --set "${_s}")
endforeach()
if(DEFINED MPIEXEC AND NOT MPIEXEC STREQUAL "")
  separate_arguments(_pre UNIX_COMMAND "${PRE_FLAGS}")
  set(cmd "${MPIEXEC}" ${NP_FLAG} ${RANKS} ${_pre} ${cmd})
endif()
string(REPLACE ";" " " _shown "${cmd}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "`${_shown}` exited ${rc}, expected 0; output:\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "`${_shown}` output does not match\n  ${EXPECT}\noutput:\n${out}${err}")
endif()
message(STATUS "ok: exit 0, output matches '${EXPECT}'")
