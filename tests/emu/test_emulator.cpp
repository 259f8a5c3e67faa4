// tests/emu/test_emulator.cpp — the CPU emulator itself (cuda_emu.hpp, runtime.cpp): what it
// promises about barriers and warp collectives, and that it stops with the kernel, block and
// thread named on the mistakes it exists to find. The oracles are plain loops over the same
// inputs and the documented CUDA semantics.
//
// Kernels are written here as plain functions and launched the way tests/emu/translate.py
// rewrites `k<<<grid, block>>>(args)`.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace {

template <class Kernel>
void launch(unsigned blocks, unsigned threads, Kernel&& k) {
  ::scanmd_emu::run_grid(::scanmd_emu::config(dim3(blocks), dim3(threads)), "test_kernel",
                         [&] { k(); });
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
}

// Block sum through shared memory: each thread writes, a barrier, thread 0 reads every write.
TEST(Emulator, BarrierOrdersSharedMemory) {
  constexpr unsigned kThreads = 96;  // three warps, the last one full
  std::vector<int> out(4, -1);
  launch(4, kThreads, [&] {
    __shared__ int cell[kThreads];
    cell[threadIdx.x] = static_cast<int>(blockIdx.x * 1000 + threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) {
      int s = 0;
      for (unsigned t = 0; t < kThreads; ++t) s += cell[t];
      out[blockIdx.x] = s;
    }
  });
  for (int b = 0; b < 4; ++b) EXPECT_EQ(out[b], b * 1000 * 96 + 95 * 96 / 2) << "block " << b;
}

// A warp reduction by __shfl_down_sync over a block with a partial last warp (40 threads: lanes
// 8..31 of warp 1 do not exist), each warp with the mask of its existing lanes and that many
// lanes as the shuffle's width (a source beyond it gives the caller's own value).
TEST(Emulator, ShuffleReductionOverExistingLanes) {
  constexpr unsigned kThreads = 40;
  std::vector<unsigned> sums(2, 0);
  launch(1, kThreads, [&] {
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const unsigned lanes = warp == 0 ? 32u : kThreads - 32u;
    const unsigned mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
    unsigned v = threadIdx.x;
    for (unsigned d = lanes / 2; d > 0; d /= 2) v += __shfl_down_sync(mask, v, d, int(lanes));
    if (lane == 0) sums[warp] = v;
  });
  EXPECT_EQ(sums[0], 31u * 32u / 2u);
  EXPECT_EQ(sums[1], (32u + 39u) * 8u / 2u);
}

// __ballot_sync sees every lane's predicate; threads that exited before a barrier no longer
// hold it up (the block's other warps go on).
TEST(Emulator, BallotAndBarrierAfterExits) {
  constexpr unsigned kThreads = 64;
  std::vector<unsigned> ballots(2, 0);
  unsigned after_barrier = 0;
  launch(1, kThreads, [&] {
    const unsigned b = __ballot_sync(0xffffffffu, threadIdx.x % 3 == 0);
    if (threadIdx.x % 32 == 0) ballots[threadIdx.x / 32] = b;
    if (threadIdx.x >= 32) return;  // warp 1 exits
    __syncthreads();
    atomicAdd(&after_barrier, 1u);
  });
  unsigned want0 = 0, want1 = 0;
  for (unsigned l = 0; l < 32; ++l) {
    if (l % 3 == 0) want0 |= 1u << l;
    if ((32 + l) % 3 == 0) want1 |= 1u << l;
  }
  EXPECT_EQ(ballots[0], want0);
  EXPECT_EQ(ballots[1], want1);
  EXPECT_EQ(after_barrier, 32u);
}

// ---- the mistakes it must stop on (death tests: the emulator aborts, naming the place) --------

TEST(EmulatorDeathTest, MaskNamingAMissingLaneAborts) {
  // 16 threads, but the full-warp mask names lanes 16..31.
  EXPECT_DEATH(launch(1, 16, [] { (void)__shfl_sync(0xffffffffu, 1, 0); }),
               "exited or does not exist.*kernel test_kernel, block \\(0,0,0\\)");
}

TEST(EmulatorDeathTest, MaskNamingAnExitedLaneAborts) {
  EXPECT_DEATH(launch(1, 32,
                      [] {
                        if (threadIdx.x == 5) return;
                        (void)__ballot_sync(0xffffffffu, 1);
                      }),
               "exited or does not exist.*kernel test_kernel");
}

TEST(EmulatorDeathTest, CallerOutsideItsMaskAborts) {
  EXPECT_DEATH(launch(1, 32, [] { (void)__shfl_sync(1u << (threadIdx.x ^ 1u), 1, 0); }),
               "calling lane is not in the mask");
}

TEST(EmulatorDeathTest, BarrierThatCannotCompleteIsADeadlock) {
  // Lanes 0..15 of warp 1 wait in a collective for lanes 16..31, which wait at the block's
  // barrier with warp 0; the barrier waits for lanes 0..15: every live thread waits.
  EXPECT_DEATH(launch(1, 64,
                      [] {
                        if (threadIdx.x >= 32 && threadIdx.x < 48)
                          __syncwarp(0xffffffffu);
                        else
                          __syncthreads();
                      }),
               "deadlock in kernel test_kernel, block \\(0,0,0\\): 64 live threads");
}

}  // namespace
