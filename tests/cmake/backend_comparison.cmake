# tests/cmake/backend_comparison.cmake — one registration for every "`scanmd run DECK` on the
# host and with --backend cuda give the same thermo rows and state hash" test
# (tests/gpu/compare_backends.cmake), on a GPU (tests/gpu, label gpu) or on the CPU emulator
# (tests/emu, label emu):
#
#   scanmd_backend_comparison(NAME <test> LABEL <gpu|emu> EXE <scanmd> PROBE <gpu_probe>
#     RANKS <n> DECK <deck> [METHOD <decomposition.method>] [SET <key=value>...]
#     [ENV <VAR=value>...] [WORKING_DIRECTORY <dir>] [TIMEOUT <s>])
#
# Beyond one rank the test runs under mpiexec (--oversubscribe) and gets label mpi too.
function(scanmd_backend_comparison)
  cmake_parse_arguments(PARSE_ARGV 0 A "" "NAME;LABEL;EXE;PROBE;RANKS;DECK;METHOD;WORKING_DIRECTORY;TIMEOUT"
                        "SET;ENV")
  foreach(_required NAME LABEL EXE PROBE RANKS DECK)
    if(NOT A_${_required})
      message(FATAL_ERROR "scanmd_backend_comparison: ${_required} is required")
    endif()
  endforeach()
  string(JOIN " " _pre ${MPIEXEC_PREFLAGS} --oversubscribe)
  set(_method "")
  if(A_METHOD)
    set(_method -DMETHOD=${A_METHOD})
  endif()
  if(NOT A_WORKING_DIRECTORY)
    set(A_WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  add_test(NAME ${A_NAME}
    COMMAND ${CMAKE_COMMAND} -DEXE=${A_EXE} -DPROBE=${A_PROBE}
            -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP_FLAG=${MPIEXEC_NUMPROC_FLAG}
            "-DPRE_FLAGS=${_pre}" -DRANKS=${A_RANKS} ${_method} -DDECK=${A_DECK} "-DSET=${A_SET}"
            -P ${PROJECT_SOURCE_DIR}/tests/gpu/compare_backends.cmake
    WORKING_DIRECTORY ${A_WORKING_DIRECTORY})
  set(_labels ${A_LABEL})
  if(A_RANKS GREATER 1)
    list(APPEND _labels mpi)
  endif()
  set(_processors ${A_RANKS})
  if(_processors GREATER 2)
    set(_processors 2)
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 600)
  endif()
  set_tests_properties(${A_NAME} PROPERTIES LABELS "${_labels}" PROCESSORS ${_processors}
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;${A_ENV}"
    TIMEOUT ${A_TIMEOUT})
endfunction()
