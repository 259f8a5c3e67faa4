# tests/cmake/ompi_session_per_test.cmake — every test gets its own Open MPI session directory.
#
# Open MPI 4.1 (Debian 12) keeps the session directories of every job of a user on a host under
# one top directory, $TMPDIR/ompi.<host>.<uid>, and a job that ends removes it when it looks
# empty. Two jobs that start and end at once (`ctest -j`: an mpiexec in one test, a singleton
# MPI_Init in another) can race on it, and one of them then dies in orte_init with "A call to
# mkdir was unable to create the desired directory" (open-mpi/ompi#8510) — a failure that has
# nothing to do with the test. Pointing each test at a base directory of its own
# (OMPI_MCA_orte_tmpdir_base, which Open MPI creates when missing) removes the shared directory.
#
# CTest reads this file (the tests directory's TEST_INCLUDE_FILES) before the subdirectories'
# test files, so the add_test below replaces CTest's for every test, those gtest_discover_tests
# adds at test time included: it registers the test exactly as given (each argument passed
# through bracket quoting, so a ';' inside one stays inside it) and then sets the variable with
# ENVIRONMENT_MODIFICATION, which leaves the test's own ENVIRONMENT property alone. The
# directory is short (Unix socket paths under it must stay within 108 characters) and named by
# a hash of the build's test directory and the test's name.
function(add_test)
  set(_args "")
  math(EXPR _last "${ARGC} - 1")
  foreach(_i RANGE ${_last})
    string(APPEND _args " [==[${ARGV${_i}}]==]")
  endforeach()
  cmake_language(EVAL CODE "_add_test(${_args})")
  string(MD5 _hash "${CMAKE_CURRENT_LIST_DIR}/${ARGV0}")
  string(SUBSTRING "${_hash}" 0 16 _hash)
  set_tests_properties("${ARGV0}" PROPERTIES ENVIRONMENT_MODIFICATION
                       "OMPI_MCA_orte_tmpdir_base=set:/tmp/scanmd-ctest/${_hash}")
endfunction()
