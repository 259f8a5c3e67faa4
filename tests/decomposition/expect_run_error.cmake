# Runs `MPIEXEC NP_FLAG RANKS PRE_FLAGS EXE run DECK --set SET` and requires a non-zero exit that is
# not a crash or a timeout, with stdout+stderr matching the regex EXPECT.
# Usage: cmake -DEXE= -DMPIEXEC= -DNP_FLAG= -DRANKS= "-DPRE_FLAGS=..." -DDECK= -DSET= -DEXPECT= -P ...
foreach(var EXE MPIEXEC NP_FLAG RANKS DECK SET EXPECT)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "expect_run_error.cmake: -D${var}=... is required")
  endif()
endforeach()
separate_arguments(_pre UNIX_COMMAND "${PRE_FLAGS}")
execute_process(
  COMMAND "${MPIEXEC}" ${NP_FLAG} ${RANKS} ${_pre} "${EXE}" run "${DECK}" --set "${SET}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
set(all "${out}${err}")
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "did not exit normally (${rc}):\n${all}")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "exited 0, expected an error:\n${all}")
endif()
if(NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "exit ${rc} but the output does not match '${EXPECT}':\n${all}")
endif()
message(STATUS "ok: exit ${rc}, output matches '${EXPECT}'")
