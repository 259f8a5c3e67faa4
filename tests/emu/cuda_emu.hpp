// tests/emu/cuda_emu.hpp — runs scanmd's CUDA kernels, unchanged, on the CPU (test builds only).
//
// Why: a GPU is lent to some sessions only, so the CUDA backend must be checkable without one.
// The .cu sources are translated (tests/emu/translate.py: `k<<<g, b, s, st>>>(args)` becomes
// `::scanmd_emu::run_grid(::scanmd_emu::config(g, b, s, st), "k", [&] { k(args); })`), compiled
// by the host
// C++ compiler with this header forced in first, and linked against tests/emu/runtime.cpp, which
// defines the CUDA runtime API calls the project uses (declared by the real CUDA headers).
//
// Execution model, chosen to be strict rather than fast:
//   * blocks run one after the other in blockIdx order (x fastest); every thread of a block is a
//     fiber; a fiber runs until it waits at a barrier or a warp collective, then the next runs,
//     in ascending thread order in even blocks and descending in odd ones (SCANMD_EMU_SEED=<n>:
//     random orders of blocks and of threads instead);
//   * __syncthreads waits for every thread of the block that has not exited;
//   * warp collectives (__shfl*_sync, __ballot_sync, __any_sync, __match_any_sync,
//     __reduce_*_sync, __syncwarp) wait for every lane named in the mask; a mask that names an
//     exited or missing lane, or omits the caller, aborts with the kernel's block and thread;
//   * a block in which every live thread waits for a barrier that cannot complete aborts
//     (deadlock) instead of hanging;
//   * atomics are plain read-modify-writes (fibers never run at the same time), fences no-ops.
// So the emulator finds logic errors (indexing, a missing __syncthreads between a write to
// shared memory and another thread's read, wrong masks, warp-synchronous code without
// __syncwarp) and checks results bit for bit against the host; it cannot find data races that
// need true concurrency or say anything about speed: that stays the GPU's (tests label `gpu`).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

// The real headers define these for nvcc; here they are plain C++.
#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#undef __constant__
#undef __forceinline__
#undef __noinline__
#undef __launch_bounds__
#define __global__
#define __device__
#define __host__
#define __constant__
#define __shared__ static
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)

namespace scanmd_emu {

// ---- the running thread ------------------------------------------------------------------------
struct ThreadState {
  uint3 idx;        // threadIdx
  unsigned linear;  // x + y·Dx + z·Dx·Dy
  unsigned lane() const { return linear % 32u; }
  unsigned warp() const { return linear / 32u; }
};
extern ThreadState* g_thread;
extern uint3 g_block_idx;
extern dim3 g_block_dim;
extern dim3 g_grid_dim;

[[noreturn]] void fail(const char* what);  // names the kernel, block and thread, then aborts

// ---- block and warp synchronisation (runtime.cpp) ------------------------------------------
void syncthreads();
// All lanes of `mask` deposit `value` and wait for each other; returns the 32 deposited values.
const std::uint64_t* warp_exchange(unsigned mask, std::uint64_t value);

template <class T>
std::uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>);
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
T from_bits(std::uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}
inline void check_width(int width) {
  if (width <= 0 || width > 32 || (width & (width - 1)) != 0)
    fail("warp shuffle: width must be a power of two in [1, 32]");
}

// ---- launch ----------------------------------------------------------------------------------
struct Config {
  dim3 grid, block;
  std::size_t shared_bytes;
  cudaStream_t stream;
};
inline Config config(dim3 grid, dim3 block, std::size_t shared_bytes = 0,
                     cudaStream_t stream = nullptr) {
  return {grid, block, shared_bytes, stream};
}
// Runs `body` (the kernel call, arguments evaluated by each thread from the launching scope,
// which outlives the launch) for every thread of the grid; an invalid configuration sets the
// error cudaGetLastError() returns, as a failed launch does.
void run_grid(const Config& c, const char* kernel, const std::function<void()>& body);

// What the program asked of the device so far (tests count the operations of a time step):
// kernel launches, memsets and copies (cudaMemset*, cudaMemcpy*).
struct OpCounts {
  unsigned long long launches = 0, memsets = 0, copies = 0;
};
OpCounts op_counts();

}  // namespace scanmd_emu

#define threadIdx (::scanmd_emu::g_thread->idx)
#define blockIdx (::scanmd_emu::g_block_idx)
#define blockDim (::scanmd_emu::g_block_dim)
#define gridDim (::scanmd_emu::g_grid_dim)

// ---- intrinsics ------------------------------------------------------------------------------
inline void __syncthreads() {
  scanmd_emu::syncthreads();
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  scanmd_emu::warp_exchange(mask, 0);
}
inline void __threadfence() {}
inline void __threadfence_block() {}
inline void __threadfence_system() {}
inline void __nanosleep(unsigned) {}

template <class T>
T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
  scanmd_emu::check_width(width);
  const std::uint64_t* all = scanmd_emu::warp_exchange(mask, scanmd_emu::to_bits(v));
  const unsigned lane = scanmd_emu::g_thread->lane();
  const unsigned from = (lane & ~unsigned(width - 1)) + (unsigned(src) & unsigned(width - 1));
  if (!(mask >> from & 1u)) scanmd_emu::fail("__shfl_sync: source lane not in the mask");
  return scanmd_emu::from_bits<T>(all[from]);
}
template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  scanmd_emu::check_width(width);
  const std::uint64_t* all = scanmd_emu::warp_exchange(mask, scanmd_emu::to_bits(v));
  const unsigned lane = scanmd_emu::g_thread->lane();
  const unsigned seg = lane & ~unsigned(width - 1);
  if (lane < seg + delta) return v;
  if (!(mask >> (lane - delta) & 1u)) scanmd_emu::fail("__shfl_up_sync: source lane not in mask");
  return scanmd_emu::from_bits<T>(all[lane - delta]);
}
template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  scanmd_emu::check_width(width);
  const std::uint64_t* all = scanmd_emu::warp_exchange(mask, scanmd_emu::to_bits(v));
  const unsigned lane = scanmd_emu::g_thread->lane();
  const unsigned seg_end = (lane & ~unsigned(width - 1)) + unsigned(width);
  if (lane + delta >= seg_end) return v;
  if (!(mask >> (lane + delta) & 1u))
    scanmd_emu::fail("__shfl_down_sync: source lane not in the mask");
  return scanmd_emu::from_bits<T>(all[lane + delta]);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  scanmd_emu::check_width(width);
  const std::uint64_t* all = scanmd_emu::warp_exchange(mask, scanmd_emu::to_bits(v));
  const unsigned lane = scanmd_emu::g_thread->lane();
  const unsigned from = lane ^ unsigned(lane_mask);
  if (from >= ((lane & ~unsigned(width - 1)) + unsigned(width))) return v;
  if (!(mask >> from & 1u)) scanmd_emu::fail("__shfl_xor_sync: source lane not in the mask");
  return scanmd_emu::from_bits<T>(all[from]);
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
  const std::uint64_t* all = scanmd_emu::warp_exchange(mask, pred != 0);
  unsigned bits = 0;
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l & 1u) && all[l]) bits |= 1u << l;
  return bits;
}
inline int __any_sync(unsigned mask, int pred) {
  return __ballot_sync(mask, pred) != 0;
}
inline int __all_sync(unsigned mask, int pred) {
  return __ballot_sync(mask, pred) == mask;
}
template <class T>
unsigned __match_any_sync(unsigned mask, T v) {
  const std::uint64_t mine = scanmd_emu::to_bits(v);
  const std::uint64_t* all = scanmd_emu::warp_exchange(mask, mine);
  unsigned bits = 0;
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l & 1u) && all[l] == mine) bits |= 1u << l;
  return bits;
}
#define SCANMD_EMU_REDUCE(name, T, init, combine)                  \
  inline T name(unsigned mask, T v) {                              \
    const std::uint64_t* all = scanmd_emu::warp_exchange(mask, v); \
    T r = init;                                                    \
    for (unsigned l = 0; l < 32; ++l)                              \
      if (mask >> l & 1u) {                                        \
        const T x = static_cast<T>(all[l]);                        \
        r = combine;                                               \
      }                                                            \
    return r;                                                      \
  }
SCANMD_EMU_REDUCE(__reduce_max_sync, unsigned, 0u, (x > r ? x : r))
SCANMD_EMU_REDUCE(__reduce_min_sync, unsigned, 0xffffffffu, (x < r ? x : r))
SCANMD_EMU_REDUCE(__reduce_add_sync, unsigned, 0u, r + x)
SCANMD_EMU_REDUCE(__reduce_or_sync, unsigned, 0u, r | x)
#undef SCANMD_EMU_REDUCE
inline int __reduce_max_sync(unsigned mask, int v) {
  const std::uint64_t* all = scanmd_emu::warp_exchange(mask, static_cast<std::uint32_t>(v));
  int r = INT32_MIN;
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u) {
      const int x = static_cast<int>(static_cast<std::uint32_t>(all[l]));
      r = x > r ? x : r;
    }
  return r;
}

inline int __popc(unsigned x) {
  return __builtin_popcount(x);
}
inline int __popcll(unsigned long long x) {
  return __builtin_popcountll(x);
}
inline int __ffs(int x) {
  return __builtin_ffs(x);
}
inline int __ffsll(long long x) {
  return __builtin_ffsll(x);
}
inline int __clz(int x) {
  return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x));
}
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int k = 0; k < 32; ++k) r |= ((x >> k) & 1u) << (31 - k);
  return r;
}

// Atomics: fibers never run at the same time, so a read-modify-write is atomic already.
#define SCANMD_EMU_ATOMIC(name, update)     \
  template <class T>                        \
  T name(T* p, std::type_identity_t<T> v) { \
    const T old = *p;                       \
    *p = (update);                          \
    return old;                             \
  }
SCANMD_EMU_ATOMIC(atomicAdd, old + v)
SCANMD_EMU_ATOMIC(atomicSub, old - v)
SCANMD_EMU_ATOMIC(atomicMin, v < old ? v : old)
SCANMD_EMU_ATOMIC(atomicMax, v > old ? v : old)
SCANMD_EMU_ATOMIC(atomicOr, old | v)
SCANMD_EMU_ATOMIC(atomicAnd, old& v)
SCANMD_EMU_ATOMIC(atomicXor, old ^ v)
SCANMD_EMU_ATOMIC(atomicExch, v)
#undef SCANMD_EMU_ATOMIC
template <class T>
T atomicCAS(T* p, std::type_identity_t<T> compare, std::type_identity_t<T> v) {
  const T old = *p;
  if (old == compare) *p = v;
  return old;
}
