// kernels/cuda/warp_scan.cuh — warp-level scan and reduce with register shuffles (CUB layer 1).
//
// Kogge–Stone inside a warp: log2(32) = 5 steps; at step d every lane combines the value d lanes
// below it (scan) or above it (reduce).  Operands are combined in lane order, so any associative
// Op works (Segmented<Op> included).  Values of any trivially copyable type whose size is a
// multiple of 4 bytes are shuffled word by word (Flagged<double> is 4 words).
//   lanes 1 1 1 1 ... → warp_inclusive_scan 1 2 3 4 ...   warp_reduce (lane 0) 32
// Requires all 32 lanes of the warp to be active (full mask).  nvcc only.
#pragma once

#include <cstdint>
#include <cstring>

namespace scanmd::kernels::cuda::detail {

inline constexpr unsigned kFullMask = 0xffffffffu;
inline constexpr int kWarpThreads = 32;

enum class Shfl { Up, Down, Idx };

template <Shfl kind, class T>
__device__ __forceinline__ T shuffle(T v, int arg) {
  static_assert(sizeof(T) % 4 == 0, "shuffled types must be a multiple of 4 bytes");
  constexpr int kWords = sizeof(T) / 4;
  unsigned w[kWords];
  std::memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < kWords; ++k) {
    if constexpr (kind == Shfl::Up)
      w[k] = __shfl_up_sync(kFullMask, w[k], arg);
    else if constexpr (kind == Shfl::Down)
      w[k] = __shfl_down_sync(kFullMask, w[k], arg);
    else
      w[k] = __shfl_sync(kFullMask, w[k], arg);
  }
  std::memcpy(&v, w, sizeof(T));
  return v;
}

__device__ __forceinline__ unsigned lane_id() {
  return threadIdx.x & (kWarpThreads - 1);
}

// Inclusive scan across the warp: lane i gets v_0 ⊕ ... ⊕ v_i.
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T v, Op op) {
  const unsigned lane = lane_id();
#pragma unroll
  for (int d = 1; d < kWarpThreads; d <<= 1) {
    const T lower = shuffle<Shfl::Up>(v, d);
    if (lane >= static_cast<unsigned>(d)) v = op(lower, v);
  }
  return v;
}

// Ordered reduction: lane 0 gets v_0 ⊕ ... ⊕ v_31 (other lanes hold partial results).
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
  const unsigned lane = lane_id();
#pragma unroll
  for (int d = 1; d < kWarpThreads; d <<= 1) {
    const T upper = shuffle<Shfl::Down>(v, d);
    if (lane + d < kWarpThreads) v = op(v, upper);
  }
  return v;
}

}  // namespace scanmd::kernels::cuda::detail
