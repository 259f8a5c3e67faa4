# app.memory_estimate (issue 15, item 2): the memory estimate a run logs for rank 0 before it
# allocates anything ("memory: about X MiB estimated for rank 0") must match the peak resident
# memory the same run measures at its end ("Peak memory per rank: min / avg / max MiB"): within
# [0.95, 1.35] of the largest rank's peak. The estimate is what refuses impossible sizes, so it
# must neither miss memory (a run that does not fit would start) nor refuse runs that fit.
# Usage: cmake -DEXE= -DDECK= [-DSET=k=v;...] [-DMPIEXEC= -DNP_FLAG= -DRANKS= "-DPRE_FLAGS="]
#              -P check_memory_estimate.cmake
set(cmd "${EXE}" run "${DECK}")
foreach(_s IN LISTS SET)
  list(APPEND cmd --set "${_s}")
endforeach()
if(DEFINED MPIEXEC AND NOT MPIEXEC STREQUAL "")
  separate_arguments(_pre UNIX_COMMAND "${PRE_FLAGS}")
  set(cmd "${MPIEXEC}" ${NP_FLAG} ${RANKS} ${_pre} ${cmd})
endif()
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit ${rc}:\n${out}${err}")
endif()
if(NOT out MATCHES "memory: about ([0-9.]+) (KiB|MiB|GiB) estimated for rank 0")
  message(FATAL_ERROR "no memory estimate in the log:\n${out}")
endif()
set(_estimate "${CMAKE_MATCH_1}")
set(_unit "${CMAKE_MATCH_2}")
if(NOT out MATCHES "Peak memory per rank: [0-9.]+ / [0-9.]+ / ([0-9.]+) MiB")
  message(FATAL_ERROR "no peak memory in the log:\n${out}")
endif()
set(_peak "${CMAKE_MATCH_1}")
# CMake's math() is integers only: the ratio by Python.
execute_process(COMMAND /usr/bin/python3 -c
  "e = ${_estimate} * {'KiB': 1 / 1024, 'MiB': 1, 'GiB': 1024}['${_unit}']; r = e / ${_peak}; print(f'{r:.3f}'); raise SystemExit(0 if 0.95 <= r <= 1.35 else 1)"
  RESULT_VARIABLE _ok OUTPUT_VARIABLE _ratio OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _ok EQUAL 0)
  message(FATAL_ERROR "estimate ${_estimate} ${_unit} vs peak ${_peak} MiB: ratio ${_ratio} outside [0.95, 1.35]")
endif()
message(STATUS "ok: estimate ${_estimate} ${_unit}, peak ${_peak} MiB, ratio ${_ratio}")
