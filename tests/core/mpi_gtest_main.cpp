// tests/core/mpi_gtest_main.cpp — GoogleTest main for tests that need MPI (a Communicator).
//
// Used by the core tests (one process: Open MPI singleton init, no mpiexec needed) and by the
// decomposition MPI tests (under mpiexec -n P). Rank 0 prints the usual GoogleTest output; the
// other ranks print only their failed assertions, prefixed with the rank. The exit code is the
// same on every rank: failure if any rank failed. `--gtest_list_tests` (test discovery at build
// time) runs without MPI.
#include <mpi.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <string_view>

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    std::fprintf(stderr, "[rank %d] %s.%s: %s:%d: failure\n%s\n", rank_,
                 t ? t->test_suite_name() : "?", t ? t->name() : "?",
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
    std::fflush(stderr);
  }

 private:
  int rank_;
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
  if (rank != 0) {
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  const int local = RUN_ALL_TESTS();
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return global;
}
