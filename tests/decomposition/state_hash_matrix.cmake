# State-hash equality of `scanmd run` across rank counts and decomposition methods (DESIGN.md §5).
# Runs the deck once on one rank (half-shell: the reference), then on RANKS ranks with each of
# half-shell, neutral-territory, full-shell, eighth-shell and midpoint, and requires every
# `state hash:` to equal the reference. One ctest entry per rank count; together they cover the whole matrix (all hashes
# equal the same one-rank hash). Also checks the `import:` line names the method and a grid
# whose product is the rank count.
# Usage: cmake -DEXE=<scanmd> -DMPIEXEC=<mpiexec> -DNP_FLAG=-n "-DPRE_FLAGS=--oversubscribe ..."
#              -DDECK=<deck.toml> -DRANKS=<P> -P state_hash_matrix.cmake
# Optional: "-DMETHODS=half-shell;full-shell" (the methods on RANKS ranks; default all five) and
# "-DSETS=key=value;..." (--set overrides of every run, e.g. a data file's absolute path).
foreach(var EXE MPIEXEC NP_FLAG DECK RANKS)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "state_hash_matrix.cmake: -D${var}=... is required")
  endif()
endforeach()
separate_arguments(_pre UNIX_COMMAND "${PRE_FLAGS}")
if(NOT DEFINED METHODS OR "${METHODS}" STREQUAL "")
  set(METHODS half-shell neutral-territory full-shell eighth-shell midpoint)
endif()
set(_sets "")
foreach(s IN LISTS SETS)
  list(APPEND _sets --set "${s}")
endforeach()

function(scanmd_hash np method out_var)
  execute_process(
    COMMAND "${MPIEXEC}" ${NP_FLAG} ${np} ${_pre} "${EXE}" run "${DECK}"
            --set decomposition.method=${method} ${_sets}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 200)
  set(all "${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${method} on ${np} ranks: exit ${rc}\n${all}")
  endif()
  if(NOT out MATCHES "state hash: ([0-9a-f]+)[ \t\r]*\n?$")
    message(FATAL_ERROR "${method} on ${np} ranks: no `state hash:` line at the end\n${all}")
  endif()
  set(hash "${CMAKE_MATCH_1}")
  string(LENGTH "${hash}" len)
  if(NOT len EQUAL 16)
    message(FATAL_ERROR "${method} on ${np} ranks: state hash '${hash}' is not 16 hex digits")
  endif()
  if(NOT all MATCHES "import: method=([a-z-]+) ranks=([0-9]+) grid=([0-9]+)x([0-9]+)x([0-9]+) ")
    message(FATAL_ERROR "${method} on ${np} ranks: no `import:` line\n${all}")
  endif()
  math(EXPR prod "${CMAKE_MATCH_3} * ${CMAKE_MATCH_4} * ${CMAKE_MATCH_5}")
  if(NOT CMAKE_MATCH_1 STREQUAL method OR NOT CMAKE_MATCH_2 EQUAL np OR NOT prod EQUAL np)
    message(FATAL_ERROR "${method} on ${np} ranks: import line says method=${CMAKE_MATCH_1} "
                        "ranks=${CMAKE_MATCH_2} grid product ${prod}")
  endif()
  set(${out_var} "${hash}" PARENT_SCOPE)
  message(STATUS "${method} ranks=${np} grid=${CMAKE_MATCH_3}x${CMAKE_MATCH_4}x${CMAKE_MATCH_5} hash ${hash}")
endfunction()

scanmd_hash(1 half-shell reference)
set(bad "")
foreach(method IN LISTS METHODS)
  if(RANKS EQUAL 1 AND method STREQUAL "half-shell")
    continue()
  endif()
  scanmd_hash(${RANKS} ${method} h)
  if(NOT h STREQUAL reference)
    string(APPEND bad "  ${method} on ${RANKS} ranks: ${h} (one-rank reference ${reference})\n")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "state hashes differ:\n${bad}")
endif()
message(STATUS "all state hashes equal ${reference}")
