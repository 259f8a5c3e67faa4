// tests/engine/test_host_backend.cpp — the host backend's force-kernel trial (ForceKernelTrial,
// engine/host_backend.hpp): which kernel it picks from the passes' times, and when.
// Oracle: the times fed in (the fastest pass of each candidate wins; a clear lead decides after
// kEarlyRounds rounds, anything closer after kRounds).
#include <gtest/gtest.h>

#include <vector>

#include "engine/host_backend.hpp"

namespace scanmd {
namespace {

// Feeds passes until the trial decides (or 100 passes): time_of(kernel, round) per pass.
// Returns the number of rounds the scalar loop ran.
template <class TimeOf>
int run_trial(ForceKernelTrial& trial, TimeOf time_of) {
  int scalar_rounds = 0;
  std::vector<int> rounds(2, 0);
  for (int pass = 0; pass < 100 && !trial.decided(); ++pass) {
    const PairKernel k = trial.next();
    const bool scalar = k == PairKernel::Scalar;
    const int r = pass < ForceKernelTrial::kSkip ? -1 : rounds[scalar]++;
    scalar_rounds += scalar;
    trial.record(time_of(k, r), [](PairKernel) { return 0.0; });
  }
  return scalar_rounds;
}

TEST(ForceKernelTrial, ClearLeadDecidesAfterThreeRounds) {
  ForceKernelTrial trial({PairKernel::Avx512, PairKernel::Scalar});
  const int scalar = run_trial(trial, [](PairKernel k, int r) {
    // The vector kernel 1 ms with one slow pass (1.2 ms), the scalar loop 3 ms.
    return k == PairKernel::Scalar ? 3e-3 : (r == 1 ? 1.2e-3 : 1e-3);
  });
  ASSERT_TRUE(trial.decided());
  EXPECT_EQ(trial.chosen(), PairKernel::Avx512);
  EXPECT_EQ(scalar, static_cast<int>(ForceKernelTrial::kEarlyRounds));
  EXPECT_NE(trial.summary().find("the fastest of 3 alternate force passes"), std::string::npos)
      << trial.summary();
}

TEST(ForceKernelTrial, CloseRaceRunsEveryRound) {
  ForceKernelTrial trial({PairKernel::Avx512, PairKernel::Scalar});
  const int scalar =
      run_trial(trial, [](PairKernel k, int) { return k == PairKernel::Scalar ? 1.2e-3 : 1e-3; });
  ASSERT_TRUE(trial.decided());
  EXPECT_EQ(trial.chosen(), PairKernel::Avx512);
  EXPECT_EQ(scalar, static_cast<int>(ForceKernelTrial::kRounds));
}

TEST(ForceKernelTrial, ScalarWinsOnlyAfterEveryRound) {
  // The scalar loop clearly faster (a WCA lattice): never decided early (only the first
  // candidate is), then chosen on its fastest pass.
  ForceKernelTrial trial({PairKernel::Avx512, PairKernel::Scalar});
  const int scalar =
      run_trial(trial, [](PairKernel k, int) { return k == PairKernel::Scalar ? 1e-3 : 3e-3; });
  ASSERT_TRUE(trial.decided());
  EXPECT_EQ(trial.chosen(), PairKernel::Scalar);
  EXPECT_EQ(scalar, static_cast<int>(ForceKernelTrial::kRounds));
}

TEST(ForceKernelTrial, ALoadedSlowPassDelaysTheDecision) {
  // One vector pass hit by another process (5 ms): its slowest pass no longer leads clearly,
  // so the trial runs every round, and still picks the vector kernel on its fastest pass.
  ForceKernelTrial trial({PairKernel::Avx512, PairKernel::Scalar});
  const int scalar = run_trial(trial, [](PairKernel k, int r) {
    return k == PairKernel::Scalar ? 3e-3 : (r == 0 ? 5e-3 : 1e-3);
  });
  EXPECT_EQ(trial.chosen(), PairKernel::Avx512);
  EXPECT_EQ(scalar, static_cast<int>(ForceKernelTrial::kRounds));
}

}  // namespace
}  // namespace scanmd
