// kernels/cuda/block_scan.cuh — block-wide exclusive scan built from warp scans (CUB layer 2).
//
// One value per thread.  Each warp scans its 32 values (warp_scan.cuh), lane 31 writes the warp
// total to shared memory, and after one barrier every thread folds the totals of the warps before
// it (at most 32 of them, broadcast reads) to get its warp's prefix:
//   8 warps of ones → warp totals 32 ×8 → thread t gets exclusive prefix t, aggregate 256
// Contains one __syncthreads(); callers must not reuse TempStorage before the next barrier.
#pragma once

#include "kernels/cuda/warp_scan.cuh"

namespace scanmd::kernels::cuda::detail {

template <class T, int kBlockThreads>
struct BlockScan {
  static_assert(kBlockThreads % kWarpThreads == 0);
  static constexpr int kWarps = kBlockThreads / kWarpThreads;
  struct TempStorage {
    T warp_total[kWarps];
  };

  // exclusive ← v_0 ⊕ ... ⊕ v_{t-1} (identity for thread 0); aggregate ← all threads.
  template <class Op>
  __device__ __forceinline__ static void exclusive_scan(TempStorage& tmp, T v, T& exclusive,
                                                        T& aggregate, Op op) {
    const unsigned lane = lane_id();
    const unsigned warp = threadIdx.x / kWarpThreads;
    const T inclusive = warp_inclusive_scan(v, op);
    if (lane == kWarpThreads - 1) tmp.warp_total[warp] = inclusive;
    __syncthreads();
    T warp_prefix = Op::identity();
    T total = Op::identity();
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      if (w == static_cast<int>(warp)) warp_prefix = total;
      total = op(total, tmp.warp_total[w]);
    }
    const T lane_exclusive = shuffle<Shfl::Up>(inclusive, 1);
    exclusive = lane == 0 ? warp_prefix : op(warp_prefix, lane_exclusive);
    aggregate = total;
  }
};

}  // namespace scanmd::kernels::cuda::detail
