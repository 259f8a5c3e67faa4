// tests/engine/mpi_gtest_main.cpp — GoogleTest main for tests that need MPI (a Communicator).
//
// Used by the engine tests (one process: Open MPI singleton init, no mpiexec needed) and by the
// decomposition MPI tests (under mpiexec -n P). Rank 0 prints the usual GoogleTest output; the
// other ranks print only their failed assertions, prefixed with the rank. The exit code is the
// same on every rank: failure if any rank failed. Under mpiexec, a test that throws aborts the
// job (non-zero exit) instead of leaving the other ranks blocked in a collective.
// `--gtest_list_tests` (test discovery at build time) runs without MPI.
#include <mpi.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <string_view>

namespace {

// Prints a rank's failed assertions (ranks > 0, whose default printer is removed), and stops
// the whole job when a test body throws: the throwing rank has left the sequence of collectives
// the other ranks are in, so they would otherwise wait forever.
class RankFailureListener : public ::testing::EmptyTestEventListener {
 public:
  RankFailureListener(int rank, bool print) : rank_(rank), print_(print) {}
  // The test's name is taken here: current_test_info() cannot be called from OnTestPartResult
  // (GoogleTest holds its mutex there).
  void OnTestStart(const ::testing::TestInfo& t) override {
    test_ = std::string(t.test_suite_name()) + "." + t.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    if (print_) {
      std::fprintf(stderr, "[rank %d] %s: %s:%d: failure\n%s\n", rank_, test_.c_str(),
                   r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
      std::fflush(stderr);
    }
    if (std::string_view(r.message()).find("C++ exception") != std::string_view::npos) {
      std::fprintf(stderr, "[rank %d] %s threw: aborting all ranks\n", rank_, test_.c_str());
      std::fflush(stderr);
      std::fflush(stdout);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }

 private:
  int rank_;
  bool print_;
  std::string test_;
};

}  // namespace

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--gtest_list_tests") listing = true;
  ::testing::InitGoogleTest(&argc, argv);
  if (listing) return RUN_ALL_TESTS();

  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  if (size > 1) listeners.Append(new RankFailureListener(rank, rank != 0));
  const int local = RUN_ALL_TESTS();
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return global;
}
