#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls this):
#   1. Release build (CUDA backend too when nvcc is found) and every ctest test;
#      `gpu` tests skip with a visible reason where there is no GPU.
#   2. The deck and data file readers under libFuzzer, 30 s each (both at once: scripts/fuzz.sh).
#   3. The unit tests again, built by clang with AddressSanitizer + UndefinedBehaviorSanitizer.
#   4. The manual (docs/) built with Sphinx, warnings as errors, into build/docs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
jobs=$(nproc)
# Each phase's heading says how long the run has taken so far (CI's budget is 35 minutes).
phase() { echo "== [$((SECONDS / 60))m$((SECONDS % 60))s] $*"; }

phase "Release build"
# The test programs themselves at -O1 (SCANMD_TEST_PROGRAM_FLAGS, tests/CMakeLists.txt): the
# libraries, scanmd and the benchmarks keep Release's -O3; the tests' run time is in those.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSCANMD_TEST_PROGRAM_FLAGS=-O1
cmake --build build -j"$jobs"
phase "Tests (Release)"
# Twice as many tests at once as cores: a third of the cores sat idle with one test per core
# (mpiexec start-up and teardown, singleton MPI_Init, processes waiting on each other; measured
# on 2 cores: 130 % CPU of 200 over 896 s). PROCESSORS properties count a test on P ranks as
# min(P, cores) slots (tests/cmake/processors_per_host.cmake).
# Label `bench`: the slow rest of some matrices and statistical checks (ctest -L bench), not CI's.
ctest --test-dir build --output-on-failure -LE bench -j"$((2 * jobs))"

phase "Fuzzing the deck and data file readers (libFuzzer, 30 s each)"
bash scripts/fuzz.sh 30

phase "Unit tests with AddressSanitizer + UndefinedBehaviorSanitizer (clang)"
# Built with Debian's clang (the Release pass is GCC's): its -fsanitize=undefined also checks
# float-to-int conversions. The libraries and the emulated CUDA sources at -O1 -g1 (line tables
# only: reports still name file and line); the test programs themselves at -O0
# (SCANMD_TEST_PROGRAM_FLAGS: their run time is in the code they call). Together ~1 140 CPU-s of
# compiling on a Zen 3 core where GCC at -O1 throughout took 1 914.
# The test programs only `mpi` tests start are not built (SCANMD_TEST_MPI_PROGRAMS=OFF): this pass
# leaves that label out.
# A build-sanitize/ that another compiler configured (GCC did before) starts afresh: CMake would
# delete its cache on the change of compiler and the options below with it (no sanitizers).
if [[ -f build-sanitize/CMakeCache.txt ]] &&
   ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++$' build-sanitize/CMakeCache.txt; then
  rm -rf build-sanitize
fi
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCANMD_SANITIZE=ON \
      -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DSCANMD_BUILD_BENCH=OFF -DSCANMD_TEST_MPI_PROGRAMS=OFF -DSCANMD_TEST_PROGRAM_FLAGS=-O0 \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
cmake --build build-sanitize -j"$jobs"
# Open MPI's own allocations are not ours to chase: leak checking off, everything else fatal.
# The comparisons with LAMMPS (label `lammps`) ran in the Release pass; under the sanitizers they
# would spend most of their time in LAMMPS and in start-up, not in code the Release pass left out.
# SCANMD_TEST_SMALL=1: the CUDA time step's comparisons on the emulator (tests/gpu/
# test_cuda_backend.cpp, label `emu`) run every configuration at 256 atoms instead of 864 (half the
# time): the sanitizers watch every kernel and path, the Release pass compared the bits
# at full size.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
SCANMD_TEST_SMALL=1 ctest --test-dir build-sanitize --output-on-failure -LE "mpi|bench|lammps" \
  -j"$((2 * jobs))"

phase "The manual (Sphinx, warnings as errors)"
sphinx-build -W -E -q -b html docs build/docs
phase "Done"
