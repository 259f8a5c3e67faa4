// engine/cuda/device_math.cuh — integer atomics and reductions of the CUDA time step (nvcc only).
//
//   atomic_add_fixed     int64 fixed-point add on the unsigned bit pattern (two's complement:
//                        the same bits as a signed add, without signed-overflow UB)
//   atomic_add_checked   the same, reporting whether this add overflowed the int64 range
//                        (old and new differ in sign from the addend and the sum)
//   atomic_add_wide      128-bit add as two 64-bit atomics: lo first, then hi + carry, where
//                        carry = (old_lo + lo overflowed 2^64). Each add's carry is exact for
//                        the running low word it saw, so the final (hi, lo) is the exact sum
//                        mod 2^128 whatever the order of the adds.
//   warp_sum_u64, block_sum_wide   shuffle reductions; every thread of the block must call
//                        block_sum_wide (it has barriers); the result is valid in thread 0.
//   atomic_min_index     lowest offending index of an error flag.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace scanmd::cuda_step {

inline constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ void atomic_add_fixed(std::int64_t* p, std::int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

__device__ __forceinline__ bool atomic_add_checked(std::int64_t* p, std::int64_t v) {
  const unsigned long long add = static_cast<unsigned long long>(v);
  const unsigned long long old = atomicAdd(reinterpret_cast<unsigned long long*>(p), add);
  const unsigned long long now = old + add;
  return static_cast<long long>((old ^ now) & (add ^ now)) < 0;
}

__device__ __forceinline__ void atomic_add_wide(unsigned long long* lohi, __int128 v) {
  const unsigned __int128 u = static_cast<unsigned __int128>(v);
  const unsigned long long lo = static_cast<unsigned long long>(u);
  const unsigned long long hi = static_cast<unsigned long long>(u >> 64);
  const unsigned long long old = atomicAdd(lohi, lo);
  const unsigned long long carry = old + lo < old ? 1ull : 0ull;
  atomicAdd(lohi + 1, hi + carry);
}

__device__ __forceinline__ void atomic_min_index(unsigned long long* flag, unsigned long long i) {
  atomicMin(flag, i);
}

__device__ __forceinline__ unsigned long long warp_sum_u64(unsigned long long v) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(kFullMask, v, d);
  return v;  // lane 0
}

template <class Wide128>
__device__ __forceinline__ Wide128 shfl_down_wide(Wide128 v, int delta) {
  const unsigned __int128 u = static_cast<unsigned __int128>(v);
  const unsigned long long lo =
      __shfl_down_sync(kFullMask, static_cast<unsigned long long>(u), delta);
  const unsigned long long hi =
      __shfl_down_sync(kFullMask, static_cast<unsigned long long>(u >> 64), delta);
  return static_cast<Wide128>((static_cast<unsigned __int128>(hi) << 64) | lo);
}

// Sum over the block (blockDim.x == kThreads, a multiple of 32); valid in thread 0. Starts with
// a barrier so that consecutive calls may reuse the shared slots. Wide128: __int128, or
// unsigned __int128 for sums that may wrap (the census).
template <int kThreads, class Wide128 = __int128>
__device__ __forceinline__ Wide128 block_sum_wide(Wide128 v) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024);
  constexpr int kWarps = kThreads / 32;
  __shared__ Wide128 s_warp[kWarps];
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int warp = static_cast<int>(threadIdx.x >> 5);
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v += shfl_down_wide(v, d);
  __syncthreads();
  if (lane == 0) s_warp[warp] = v;
  __syncthreads();
  Wide128 total = 0;
  if (warp == 0) {
    total = lane < kWarps ? s_warp[lane] : static_cast<Wide128>(0);
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) total += shfl_down_wide(total, d);
  }
  return total;
}

}  // namespace scanmd::cuda_step
