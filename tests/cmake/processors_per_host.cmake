# tests/cmake/processors_per_host.cmake — no test claims more processors than the machine has.
#
# A test on P ranks declares PROCESSORS P, and `ctest -jN` then holds min(P, N) of its N slots
# for it. Where P is above the core count (CI has 2 cores; the decomposition matrices run up to
# 8 ranks, oversubscribed) the test can use no more than every core, yet with N above the cores
# (scripts/test.sh runs twice as many tests as cores, to use the seconds MPI start-up and
# teardown leave idle) it held more slots than that: it waited until no other test ran, and the
# 3-, 4-, 6- and 8-rank tests ran one after another at the end of the run, about half idle
# (measured on 2 cores: the last ~150 s of a 760 s Release pass). Clamped to the core count, such
# a test leaves the remaining slots to others, as a 2-rank test does.
#
# CTest reads this file (the tests directory's TEST_INCLUDE_FILES) before the subdirectories'
# test files; the set_tests_properties below replaces CTest's for all of them and passes every
# argument through unchanged (bracket quoting keeps a ';' inside a value), but a PROCESSORS value
# above the core count of the machine ctest runs on.
cmake_host_system_information(RESULT _scanmd_host_cores QUERY NUMBER_OF_LOGICAL_CORES)
function(set_tests_properties)
  set(_args "")
  set(_position "name")  # the test names, then after PROPERTIES: key, value, key, value, ...
  set(_previous "")
  math(EXPR _last "${ARGC} - 1")
  foreach(_i RANGE ${_last})
    set(_arg "${ARGV${_i}}")
    if(_position STREQUAL "value" AND _previous STREQUAL "PROCESSORS" AND
       _arg MATCHES "^[0-9]+$" AND _arg GREATER _scanmd_host_cores)
      set(_arg ${_scanmd_host_cores})
    endif()
    if(_position STREQUAL "name" AND _arg STREQUAL "PROPERTIES")
      set(_position "key")  # (the next argument is a key)
    elseif(_position STREQUAL "key")
      set(_position "value")
    elseif(_position STREQUAL "value")
      set(_position "key")
    endif()
    set(_previous "${_arg}")
    string(APPEND _args " [==[${_arg}]==]")
  endforeach()
  cmake_language(EVAL CODE "_set_tests_properties(${_args})")
endfunction()
