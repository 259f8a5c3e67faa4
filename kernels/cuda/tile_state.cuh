// kernels/cuda/tile_state.cuh — per-tile status words for the decoupled look-back (CUB layer 3a).
//
// Every tile t publishes, in this order (Merrill & Garland 2016):
//   X (0)  nothing yet
//   A (1)  its own aggregate             — as soon as the tile is reduced
//   P (2)  its inclusive prefix (tiles 0..t) — once its look-back is done
// A waiting successor may combine A values and keep looking further back, or stop at the first P.
//
// Two layouts, chosen by the value size:
//   * PackedTileState (4-byte values: int32/uint32 sums, ...): status and value share one 64-bit
//     word written and read with relaxed device-scope atomics — one load per predecessor, and
//     status and value can never be seen torn.
//   * SplitTileState (wider values: int64, float64, Flagged<T>): status[t] (32-bit) plus separate
//     aggregate[t] and inclusive[t] arrays.  Writer: value, then status with release semantics;
//     reader: status with acquire semantics, then the value (volatile word reads, never cached
//     in L1).  The value a status points to is written once and never changes, so no tearing.
// The status words must be zero before the launch (the dispatch memsets them with the tile
// counter).  nvcc only.
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace scanmd::kernels::cuda::detail {

enum TileStatus : std::uint32_t { kStatusInvalid = 0, kStatusAggregate = 1, kStatusPrefix = 2 };

inline constexpr std::size_t kScratchAlign = 256;
__host__ __device__ constexpr std::size_t align_up(std::size_t b) {
  return (b + kScratchAlign - 1) & ~(kScratchAlign - 1);
}

template <class T>
struct PackedTileState {
  static_assert(sizeof(T) == 4);
  unsigned long long* word;

  __host__ __device__ static constexpr std::size_t status_bytes(std::size_t tiles) {
    return tiles * 8;
  }
  __host__ __device__ static constexpr std::size_t bytes(std::size_t tiles) {
    return align_up(status_bytes(tiles));
  }
  __host__ __device__ static PackedTileState at(void* base, std::size_t) {
    return {static_cast<unsigned long long*>(base)};
  }

  __device__ __forceinline__ void publish(std::size_t tile, TileStatus s, T v) const {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    const unsigned long long w = (static_cast<unsigned long long>(bits) << 32) | s;
    ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(word[tile])
        .store(w, ::cuda::memory_order_relaxed);
  }
  __device__ __forceinline__ void load(std::size_t tile, std::uint32_t& s, T& v) const {
    const unsigned long long w =
        ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(word[tile])
            .load(::cuda::memory_order_relaxed);
    s = static_cast<std::uint32_t>(w);
    const std::uint32_t bits = static_cast<std::uint32_t>(w >> 32);
    std::memcpy(&v, &bits, 4);
  }
};

template <class T>
struct SplitTileState {
  static_assert(sizeof(T) % 4 == 0);
  std::uint32_t* status;
  T* aggregate;
  T* inclusive;

  __host__ __device__ static constexpr std::size_t status_bytes(std::size_t tiles) {
    return tiles * 4;
  }
  __host__ __device__ static constexpr std::size_t bytes(std::size_t tiles) {
    return align_up(status_bytes(tiles)) + 2 * align_up(tiles * sizeof(T));
  }
  __host__ __device__ static SplitTileState at(void* base, std::size_t tiles) {
    char* p = static_cast<char*>(base);
    const std::size_t s = align_up(status_bytes(tiles));
    const std::size_t v = align_up(tiles * sizeof(T));
    return {reinterpret_cast<std::uint32_t*>(p), reinterpret_cast<T*>(p + s),
            reinterpret_cast<T*>(p + s + v)};
  }

  __device__ __forceinline__ static void store_words(T* dst, const T& v) {
    std::uint32_t w[sizeof(T) / 4];
    std::memcpy(w, &v, sizeof(T));
    volatile std::uint32_t* d = reinterpret_cast<volatile std::uint32_t*>(dst);
#pragma unroll
    for (std::size_t k = 0; k < sizeof(T) / 4; ++k) d[k] = w[k];
  }
  __device__ __forceinline__ static T load_words(const T* src) {
    std::uint32_t w[sizeof(T) / 4];
    const volatile std::uint32_t* s = reinterpret_cast<const volatile std::uint32_t*>(src);
#pragma unroll
    for (std::size_t k = 0; k < sizeof(T) / 4; ++k) w[k] = s[k];
    T v;
    std::memcpy(&v, w, sizeof(T));
    return v;
  }

  __device__ __forceinline__ void publish(std::size_t tile, TileStatus s, T v) const {
    store_words(s == kStatusPrefix ? inclusive + tile : aggregate + tile, v);
    ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device>(status[tile])
        .store(s, ::cuda::memory_order_release);
  }
  __device__ __forceinline__ void load(std::size_t tile, std::uint32_t& s, T& v) const {
    s = ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device>(status[tile])
            .load(::cuda::memory_order_acquire);
    if (s == kStatusPrefix)
      v = load_words(inclusive + tile);
    else if (s == kStatusAggregate)
      v = load_words(aggregate + tile);
  }
};

template <class T>
using TileState = std::conditional_t<sizeof(T) == 4, PackedTileState<T>, SplitTileState<T>>;

}  // namespace scanmd::kernels::cuda::detail
