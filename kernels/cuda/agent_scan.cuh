// kernels/cuda/agent_scan.cuh — single-pass device-wide scan: tile agent with decoupled look-back,
// the kernel, and its dispatch (CUB layers 3–5).  One engine serves every scan-shaped primitive:
// elements are read through `load(i)` and results written through `store(i, v)`, so segmented
// scans (load builds Flagged pairs) and compaction (store scatters) need no temporaries.
//
// Tile = kBlockThreads threads × kItems items.  One block per tile; a block takes its tile id from
// an atomic counter (dynamic ids), so tile t only ever waits on tiles that already started — no
// deadlock however the hardware schedules blocks.  Per tile:
//   1. load     warp-striped coalesced loads → shared memory → kItems consecutive items/thread
//   2. reduce   each thread folds its items; BlockScan gives thread prefixes + tile aggregate
//   3. look-back warp 0 publishes A(aggregate), then scans predecessors 32 at a time (lane 31 =
//               nearest) until one shows P; it combines the A values after that P in order,
//               publishes P(prefix ⊕ aggregate)          tile 0 publishes P at once
//   4. scan     each thread scans its items from (tile prefix ⊕ thread prefix)
//   5. store    items → shared memory → warp-striped coalesced stores
//   Example, 2 tiles of 4, all ones: tile 1 sees P(4) at tile 0 → prefix 4 → outputs 4 5 6 7.
// Reads n, writes n, plus a few words per tile: no second pass, no recursion.  n == 0 runs one
// empty tile (so *d_total = identity).  In place (store to the loaded array) is safe: a tile reads
// all of its input before writing any output, and tiles are disjoint.  nvcc only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/api.hpp"
#include "kernels/cuda/block_scan.cuh"
#include "kernels/cuda/tile_state.cuh"
#include "kernels/cuda/warp_scan.cuh"

namespace scanmd::kernels::cuda::detail {

// Tuning: 256 threads; ~64 bytes of input per thread in flight (16 × int32, 8 × int64/double,
// 4 × 16-byte Flagged<double>) — enough to saturate HBM with ~8 resident blocks per SM.
template <class V>
struct ScanPolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr int kItems = sizeof(V) <= 4 ? 16 : sizeof(V) <= 8 ? 8 : 4;
  static constexpr int kTileItems = kBlockThreads * kItems;
  static constexpr int kWarpItems = kWarpThreads * kItems;
};

// Shared-memory index with one padding word per 32 entries: the blocked reads (stride kItems)
// then spread over all banks.
__device__ __forceinline__ int padded(int i) {
  return i + (i >> 5);
}

struct ScanScratchLayout {
  std::size_t tiles;
  std::size_t counter_offset;  // unsigned tile counter
  std::size_t state_offset;    // TileState storage
  std::size_t clear_bytes;     // bytes to zero before the launch (counter + status words)
  std::size_t total_bytes;
};

template <class V>
ScanScratchLayout scan_scratch_layout(std::size_t n) {
  using P = ScanPolicy<V>;
  const std::size_t tiles = n == 0 ? 1 : (n + P::kTileItems - 1) / P::kTileItems;
  ScanScratchLayout l{};
  l.tiles = tiles;
  l.counter_offset = 0;
  l.state_offset = kScratchAlign;
  l.clear_bytes = l.state_offset + TileState<V>::status_bytes(tiles);
  l.total_bytes = l.state_offset + TileState<V>::bytes(tiles);
  return l;
}

// Look-back by warp 0 of tile `tile` (> 0): returns the combination of all earlier tiles.
template <class V, class Op, class State>
__device__ __forceinline__ V look_back(const State& state, long long tile, Op op) {
  const int lane = static_cast<int>(lane_id());
  V running = Op::identity();  // tiles (window end, tile)
  long long newest = tile - 1;
  while (true) {
    const long long t = newest - (kWarpThreads - 1 - lane);
    std::uint32_t status;
    V value;
    do {
      if (t >= 0) {
        state.load(static_cast<std::size_t>(t), status, value);
      } else {
        status = kStatusPrefix;  // before tile 0: the identity prefix
        value = Op::identity();
      }
    } while (__any_sync(kFullMask, status == kStatusInvalid));
    const unsigned prefix_lanes = __ballot_sync(kFullMask, status == kStatusPrefix);
    const int stop = prefix_lanes ? 31 - __clz(prefix_lanes) : -1;  // nearest P
    const V contribution = lane >= stop ? value : Op::identity();
    const V window = shuffle<Shfl::Idx>(warp_reduce(contribution, op), 0);
    running = op(window, running);
    if (stop >= 0) return running;
    newest -= kWarpThreads;
  }
}

template <class V, bool kInclusive, class Op, class Load, class Store>
__global__ void __launch_bounds__(ScanPolicy<V>::kBlockThreads)
    scan_kernel(Load load, Store store, std::size_t n, void* scratch, std::size_t tiles, V* d_total,
                Op op) {
  using P = ScanPolicy<V>;
  using State = TileState<V>;
  using Block = BlockScan<V, P::kBlockThreads>;
  __shared__ V s_items[P::kTileItems + P::kTileItems / 32];
  __shared__ typename Block::TempStorage s_scan;
  __shared__ unsigned long long s_tile;
  __shared__ V s_prefix;

  char* base_ptr = static_cast<char*>(scratch);
  const State state = State::at(base_ptr + kScratchAlign, tiles);
  if (threadIdx.x == 0) s_tile = atomicAdd(reinterpret_cast<unsigned long long*>(base_ptr), 1ull);
  __syncthreads();
  const unsigned long long tile = s_tile;
  const std::size_t base = static_cast<std::size_t>(tile) * P::kTileItems;
  const int valid =
      static_cast<int>(n - base < std::size_t{P::kTileItems} ? n - base : P::kTileItems);

  // 1. load: warp w owns items [w*kWarpItems, (w+1)*kWarpItems) of the tile.
  const int lane = static_cast<int>(lane_id());
  const int warp_base = static_cast<int>(threadIdx.x / kWarpThreads) * P::kWarpItems;
  V items[P::kItems];
#pragma unroll
  for (int j = 0; j < P::kItems; ++j) {
    const int i = warp_base + j * kWarpThreads + lane;
    s_items[padded(i)] = i < valid ? load(base + i) : Op::identity();
  }
  __syncwarp();
#pragma unroll
  for (int k = 0; k < P::kItems; ++k) items[k] = s_items[padded(warp_base + lane * P::kItems + k)];

  // 2. reduce per thread, scan across the block.
  V thread_sum = items[0];
#pragma unroll
  for (int k = 1; k < P::kItems; ++k) thread_sum = op(thread_sum, items[k]);
  V thread_prefix, tile_sum;
  Block::exclusive_scan(s_scan, thread_sum, thread_prefix, tile_sum, op);

  // 3. decoupled look-back.
  if (tile == 0) {
    if (threadIdx.x == 0) {
      state.publish(0, kStatusPrefix, tile_sum);
      s_prefix = Op::identity();
    }
  } else if (threadIdx.x < kWarpThreads) {
    if (threadIdx.x == 0) state.publish(tile, kStatusAggregate, tile_sum);
    const V prefix = look_back<V>(state, static_cast<long long>(tile), op);
    if (threadIdx.x == 0) {
      state.publish(tile, kStatusPrefix, op(prefix, tile_sum));
      s_prefix = prefix;
    }
  }
  __syncthreads();
  const V tile_prefix = s_prefix;
  if (d_total != nullptr && tile == tiles - 1 && threadIdx.x == 0)
    *d_total = op(tile_prefix, tile_sum);

  // 4. scan the thread's items.
  V acc = op(tile_prefix, thread_prefix);
#pragma unroll
  for (int k = 0; k < P::kItems; ++k) {
    const V v = items[k];
    if constexpr (kInclusive) {
      acc = op(acc, v);
      items[k] = acc;
    } else {
      items[k] = acc;
      acc = op(acc, v);
    }
  }

  // 5. store through shared memory (the warp's own region, so warp barriers suffice).
  __syncwarp();
#pragma unroll
  for (int k = 0; k < P::kItems; ++k) s_items[padded(warp_base + lane * P::kItems + k)] = items[k];
  __syncwarp();
#pragma unroll
  for (int j = 0; j < P::kItems; ++j) {
    const int i = warp_base + j * kWarpThreads + lane;
    if (i < valid) store(base + i, s_items[padded(i)]);
  }
}

// Layer 5: dispatch.  Clears the counter and status words, launches one block per tile.
template <bool kInclusive, class Op, class Load, class Store>
void scan_dispatch(void* d_scratch, std::size_t scratch_bytes, std::size_t n, Load load,
                   Store store, typename Op::value_type* d_total, cudaStream_t stream, Op op) {
  using V = typename Op::value_type;
  using P = ScanPolicy<V>;
  const ScanScratchLayout l = scan_scratch_layout<V>(n);
  if (d_scratch == nullptr || scratch_bytes < l.total_bytes)
    throw std::invalid_argument("scan: scratch smaller than scan_scratch_bytes(n)");
  if (reinterpret_cast<std::uintptr_t>(d_scratch) % kScratchAlign != 0)
    throw std::invalid_argument("scan: scratch not 256-byte aligned (pass cudaMalloc memory)");
  check(cudaMemsetAsync(d_scratch, 0, l.clear_bytes, stream), "scan: cudaMemsetAsync");
  scan_kernel<V, kInclusive><<<static_cast<unsigned>(l.tiles), P::kBlockThreads, 0, stream>>>(
      load, store, n, d_scratch, l.tiles, d_total, op);
  check(cudaGetLastError(), "scan: kernel launch");
}

template <class V>
std::size_t scan_scratch_bytes_for(std::size_t n) {
  return scan_scratch_layout<V>(n).total_bytes;
}

// ---- loaders / storers -------------------------------------------------------------------------
template <class T>
struct PointerLoad {
  const T* p;
  __device__ __forceinline__ T operator()(std::size_t i) const { return p[i]; }
};
template <class T>
struct PointerStore {
  T* p;
  __device__ __forceinline__ void operator()(std::size_t i, T v) const { p[i] = v; }
};

}  // namespace scanmd::kernels::cuda::detail
