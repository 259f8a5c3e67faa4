# End-to-end check of a run that must fail: runs
#   [MPIEXEC NP_FLAG RANKS PRE_FLAGS] EXE SUBCOMMAND DECK [--set S]... [ARGS...]
# in the working directory ctest gives, and requires
#   (a) a non-zero exit that is not a crash, a signal or a timeout,
#   (b) stdout+stderr matching the regex EXPECT (typically the file, line and key at fault),
#   (c) no thermo row: the run stopped before any step (unless AFTER_START: a run that stops
#       during its steps, with the step-0 row printed),
#   (d) the message printed once: one "error:" line on stdout whatever the rank count, and at
#       most one on stderr,
#   (e) with MAX_OUTPUT, at most that many characters of output (nothing echoed whole),
#   (f) with EXIT, exactly that exit status,
#   (g) with NO_FILES=<dir>: the run is given a trajectory, a checkpoint and a data file to write
#       in <dir> (emptied first; output.checkpoint_every = 1) and writes none of them.
# Usage: cmake -DEXE= -DDECK= -DEXPECT= [-DSUBCOMMAND=run|model] [-DSET=k=v[;k=v...] or k=v|k=v]
#              [-DARGS=a;b] [-DAFTER_START=1] [-DMAX_OUTPUT=n] [-DEXIT=n] [-DNO_FILES=dir]
#              [-DMPIEXEC= -DNP_FLAG= -DRANKS= "-DPRE_FLAGS="] -P expect_run_error.cmake
foreach(var EXE DECK EXPECT)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "expect_run_error.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED SUBCOMMAND OR SUBCOMMAND STREQUAL "")
  set(SUBCOMMAND run)
endif()

set(cmd "${EXE}" ${SUBCOMMAND} "${DECK}")
# No log file (log.scanmd) in the working directory, which may be the source tree.
if(SUBCOMMAND STREQUAL "run")
  list(APPEND cmd --set "output.log=\"\"")
endif()
if(DEFINED SET AND NOT SET STREQUAL "")
  string(REPLACE "|" ";" SET "${SET}")  # k=v|k=v: several --set through add_test in one argument
  foreach(_s IN LISTS SET)
    list(APPEND cmd --set "${_s}")
  endforeach()
endif()
if(DEFINED ARGS AND NOT ARGS STREQUAL "")
  list(APPEND cmd ${ARGS})
endif()
if(DEFINED NO_FILES AND NOT NO_FILES STREQUAL "")
  file(REMOVE_RECURSE "${NO_FILES}")
  file(MAKE_DIRECTORY "${NO_FILES}")
  list(APPEND cmd --set "output.trajectory=\"${NO_FILES}/traj.h5\""
                  --set "output.checkpoint=\"${NO_FILES}/ckpt.h5\""
                  --set "output.data_file=\"${NO_FILES}/out.data\""
                  --set "output.checkpoint_every=1")
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
if(NOT AFTER_START AND all MATCHES "step +temp +pe")
  message(FATAL_ERROR "`${_shown}` printed thermo before failing:\n${all}")
endif()
# Lines that report an error: "error: ..." (rank 0, stderr) or "[rank N/P] error: ..." (others).
set(_line "(^|\n)(\\[rank [0-9]+/[0-9]+\\] )?error:")
string(REGEX MATCHALL "${_line}" _out_errors "${out}")
string(REGEX MATCHALL "${_line}" _err_errors "${err}")
list(LENGTH _out_errors _n_out)
list(LENGTH _err_errors _n_err)
if(SUBCOMMAND STREQUAL "run" AND (NOT _n_out EQUAL 1 OR _n_err GREATER 1))
  message(FATAL_ERROR "`${_shown}` printed its error ${_n_out} times on stdout and ${_n_err} "
                      "times on stderr, expected once:\n${all}")
endif()
if(DEFINED MAX_OUTPUT)
  string(LENGTH "${all}" _len)
  if(_len GREATER MAX_OUTPUT)
    message(FATAL_ERROR "`${_shown}` printed ${_len} characters, more than ${MAX_OUTPUT}")
  endif()
endif()
if(DEFINED EXIT AND NOT rc EQUAL EXIT)
  message(FATAL_ERROR "`${_shown}` exited ${rc}, expected ${EXIT}:\n${all}")
endif()
if(DEFINED NO_FILES AND NOT NO_FILES STREQUAL "")
  file(GLOB _written "${NO_FILES}/*")
  if(_written)
    message(FATAL_ERROR "`${_shown}` failed but wrote ${_written}")
  endif()
endif()
message(STATUS "ok: exit ${rc}, output matches '${EXPECT}'")
