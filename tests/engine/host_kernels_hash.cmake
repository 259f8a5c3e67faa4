# State-hash equality of `scanmd run` across the host pair kernels and thread counts
# (engine/pair_kernel.hpp, engine/lj_force.hpp): the deck on RANKS ranks with the scalar kernel on one
# thread is the reference; every kernel this CPU runs (scalar, avx2, avx512, cluster) on 1, 2 and 3
# threads (OMP_NUM_THREADS) must give its hash; avx512 and cluster read the neighbours' positions
# by transposed loads on 1 and 3 threads and by gathers on 2 (SCANMD_POSITION_LOADS). A kernel the CPU cannot run is reported and
# skipped (the run must then fail with the "cannot run" error, not silently fall back).
# The thermo rows too (step, pe, press to 17 digits, every 10 steps): the energy steps' pair
# passes run the vector kernels as well, and must give the scalar loop's energy and virial.
# With -DOVERFLOW_SET=key=value (a time step that blows the run up), every kernel on 2 threads
# must also stop with the scalar loop's error, naming the same two particles.
# Usage: cmake -DEXE=<scanmd> -DMPIEXEC=<mpiexec> -DNP_FLAG=-n "-DPRE_FLAGS=..." -DDECK=<deck>
#              -DRANKS=<P> -P host_kernels_hash.cmake
# -DKERNELS="..." narrows the kernels compared (default: all of them; the EAM decks leave out
# the cluster kernel, which EAM does not use: it runs its instruction set's rows then).
if(NOT DEFINED KERNELS OR KERNELS STREQUAL "")
  set(KERNELS scalar avx2 avx512 cluster)
endif()
separate_arguments(KERNELS)
foreach(var EXE MPIEXEC NP_FLAG DECK RANKS)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "host_kernels_hash.cmake: -D${var}=... is required")
  endif()
endforeach()
separate_arguments(_pre UNIX_COMMAND "${PRE_FLAGS}")
# -DSETS=k=v|k=v...: --set overrides of every run (run.precision="mixed", another style).
set(_sets "")
if(DEFINED SETS AND NOT SETS STREQUAL "")
  string(REPLACE "|" ";" _set_list "${SETS}")
  foreach(_s IN LISTS _set_list)
    list(APPEND _sets --set "${_s}")
  endforeach()
endif()

# Runs the deck with SCANMD_PAIR_KERNEL=kernel and OMP_NUM_THREADS=threads ("" = unset);
# sets out_var to the hash, or to "cannot-run" when the CPU lacks the kernel.
function(kernel_hash kernel threads out_var)
  set(extra ${ARGN})
  # Threads past the cores each rank may use (mpiexec binds a rank to one core): allowed here,
  # the thread splits must give the same hash whatever the machine (issue 31 caps them else).
  set(env SCANMD_PAIR_KERNEL=${kernel} SCANMD_THREADS_PAST_CORES=1)
  if(threads STREQUAL "2")
    list(APPEND env SCANMD_POSITION_LOADS=gather)
  else()
    list(APPEND env SCANMD_POSITION_LOADS=transpose)
  endif()
  if(threads STREQUAL "")
    set(unset --unset=OMP_NUM_THREADS)
  else()
    list(APPEND env OMP_NUM_THREADS=${threads})
    set(unset "")
  endif()
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env ${unset} ${env}
            "${MPIEXEC}" ${NP_FLAG} ${RANKS} ${_pre} "${EXE}" run "${DECK}" --set run.backend=host
            --set output.thermo_every=10 --set "output.thermo=[\"step\", \"pe\", \"press\"]"
            --set output.thermo_digits=17 ${_sets} ${extra}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 200)
  set(all "${out}${err}")
  if(NOT rc EQUAL 0)
    if(all MATCHES "cannot run the ${kernel} pair kernel")
      set(${out_var} "cannot-run" PARENT_SCOPE)
      return()
    endif()
    if(extra AND all MATCHES "error: ((step [0-9]+: )?force or energy overflow between particles [0-9]+ and [0-9]+)")
      set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
      message(STATUS "${kernel}, threads '${threads}', ${RANKS} ranks: ${CMAKE_MATCH_1}")
      return()
    endif()
    message(FATAL_ERROR "${kernel} x ${threads} threads: exit ${rc}\n${all}")
  endif()
  set(want_threads "${threads}")
  if(want_threads STREQUAL "")
    set(want_threads 1)
  endif()
  if(NOT all MATCHES "host: ${kernel} pair kernel, ${want_threads} threads? per rank")
    message(FATAL_ERROR "${kernel} x ${threads} threads: the log does not say "
                        "'host: ${kernel} pair kernel, ${want_threads} thread(s) per rank'\n${all}")
  endif()
  if(NOT out MATCHES "state hash: ([0-9a-f]+)[ \t\r]*\n?$")
    message(FATAL_ERROR "${kernel} x ${threads} threads: no `state hash:` line\n${all}")
  endif()
  set(hash "${CMAKE_MATCH_1}")
  set(${out_var} "${hash}" PARENT_SCOPE)
  # The thermo rows: a step number, then numbers (not the header, nor "4000 particles, ...").
  string(REGEX MATCHALL "\n *[0-9]+ +-?[0-9][^\n]*" rows "${out}")
  list(LENGTH rows n_rows)
  if(n_rows LESS 2)
    message(FATAL_ERROR "${kernel} x ${threads} threads: no thermo rows\n${all}")
  endif()
  set(${out_var}_thermo "${rows}" PARENT_SCOPE)
  set(loads "")
  if(all MATCHES "neighbour positions by (gathers|transposed loads)")
    set(loads ", positions by ${CMAKE_MATCH_1}")
  endif()
  message(STATUS "${kernel}, threads '${threads}'${loads}, ${RANKS} ranks: ${hash}, ${n_rows} thermo rows")
endfunction()

kernel_hash(scalar "" reference)
set(bad "")
set(vector_runs 0)
foreach(kernel ${KERNELS})
  foreach(threads 1 2 3)
    kernel_hash(${kernel} ${threads} h)
    if(h STREQUAL "cannot-run")
      message(STATUS "skipped: this CPU cannot run the ${kernel} pair kernel")
      break()
    endif()
    if(NOT kernel STREQUAL "scalar")
      math(EXPR vector_runs "${vector_runs} + 1")
    endif()
    if(NOT h STREQUAL reference)
      string(APPEND bad "  ${kernel} on ${threads} threads: ${h} (scalar, one thread: ${reference})\n")
    elseif(NOT h_thermo STREQUAL reference_thermo)
      string(APPEND bad "  ${kernel} on ${threads} threads: thermo rows\n${h_thermo}\n"
                        "  (scalar, one thread:\n${reference_thermo})\n")
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "state hashes or thermo rows differ:\n${bad}")
endif()
if(vector_runs EQUAL 0)
  message(STATUS "no vector pair kernel runs on this CPU: only threads were compared")
endif()
message(STATUS "all state hashes equal ${reference}")

if(DEFINED OVERFLOW_SET AND NOT OVERFLOW_SET STREQUAL "")
  kernel_hash(scalar "" want --set ${OVERFLOW_SET})
  if(NOT want MATCHES "force or energy overflow")
    message(FATAL_ERROR "--set ${OVERFLOW_SET} did not overflow (got ${want})")
  endif()
  foreach(kernel ${KERNELS})
    kernel_hash(${kernel} 2 got --set ${OVERFLOW_SET})
    if(got STREQUAL "cannot-run")
      continue()
    endif()
    if(NOT got STREQUAL want)
      message(FATAL_ERROR "${kernel} on 2 threads: '${got}', the scalar loop: '${want}'")
    endif()
  endforeach()
  message(STATUS "every kernel names the pair the scalar loop names")
endif()
