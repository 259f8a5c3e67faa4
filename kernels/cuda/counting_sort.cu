// kernels/cuda/counting_sort.cu — stable counting sort / binning on the GPU.
//
//   keys 2 0 2 1 0, K = 3 → offsets 0 2 3 5, perm 1 4 3 0 2
//
// Offsets: warp-aggregated atomic histogram (lanes with equal keys found by __match_any_sync add
// once) into d_offsets, then our exclusive scan in place; the total lands in offsets[K].
//
// Permutation — how stability is achieved on the GPU: atomics hand out slots in an unspecified
// order, so the permutation is instead produced by an LSD radix sort of (key, index) pairs with
// 8-bit digits, ceil(log2 K / 8) passes (K = 2^20 cells → 3 passes).  Each pass is itself a
// stable counting sort over 256 digit values:
//   upsweep    per tile of 2048 elements, a shared-memory digit histogram → table[digit][tile]
//   scan       our exclusive scan of the table in digit-major order → where (digit, tile) starts
//   downsweep  the tile walks its elements in 8 chunks of 256 (one per thread, index order);
//              within a warp, __match_any_sync gives each element its rank among equal digits,
//              per-warp digit counts in shared memory order the warps, a running per-digit count
//              orders the chunks → rank in tile; position = table[digit][tile] + rank
// Every pass preserves input order among equal digits, so the final order is by key, then by
// index: exactly the stable permutation.  Pass 0 invents the indices (0..n-1); the last pass
// writes them straight into perm.  K ≤ 1 needs no pass (perm = identity).
// Keys >= K are counted nowhere; the first offending index is recorded with atomicMin and the
// host throws std::out_of_range after a stream synchronisation at the end of the call.
#include <cuda_runtime.h>

#include <limits>
#include <string>

#include "kernels/cuda/agent_scan.cuh"
#include "kernels/cuda/api.hpp"
#include "kernels/cuda/warp_scan.cuh"
#include "kernels/operators.hpp"

namespace scanmd::kernels::cuda {

namespace detail {

constexpr int kSortThreads = 256;
constexpr int kSortChunks = 8;
constexpr int kSortTile = kSortThreads * kSortChunks;
constexpr int kRadixBits = 8;
constexpr int kDigits = 1 << kRadixBits;
constexpr int kSortWarps = kSortThreads / kWarpThreads;
static_assert(kDigits == kSortThreads, "one thread per digit in the bookkeeping steps");

__global__ void __launch_bounds__(kSortThreads)
    key_histogram_kernel(const std::uint32_t* keys, std::size_t n, std::uint32_t K,
                         std::uint32_t* counts, std::uint32_t* first_bad) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  // Whole warps iterate together so __match_any_sync sees full warps.
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x +
                          (threadIdx.x & ~static_cast<unsigned>(kWarpThreads - 1));
       base < n; base += stride) {
    const std::size_t i = base + lane_id();
    const bool in_range = i < n;
    const std::uint32_t key = in_range ? keys[i] : 0;
    const bool good = in_range && key < K;
    if (in_range && !good) atomicMin(first_bad, static_cast<std::uint32_t>(i));
    const std::uint32_t group = good ? key : 0xffffffffu;  // bad/idle lanes in their own group
    const unsigned peers = __match_any_sync(kFullMask, group);
    if (good && static_cast<int>(lane_id()) == __ffs(peers) - 1)
      atomicAdd(counts + key, __popc(peers));
  }
}

__global__ void iota_kernel(std::uint32_t* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<std::uint32_t>(i);
}

__device__ __forceinline__ unsigned digit_of(std::uint32_t key, int shift) {
  return (key >> shift) & (kDigits - 1);
}

__global__ void __launch_bounds__(kSortThreads)
    radix_upsweep_kernel(const std::uint32_t* keys, std::size_t n, int shift, std::uint32_t* table,
                         std::size_t tiles) {
  __shared__ std::uint32_t s_count[kDigits];
  s_count[threadIdx.x] = 0;
  __syncthreads();
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kSortTile;
  for (int c = 0; c < kSortChunks; ++c) {
    const std::size_t i = base + c * kSortThreads + threadIdx.x;
    if (i < n) atomicAdd(&s_count[digit_of(keys[i], shift)], 1u);
  }
  __syncthreads();
  table[threadIdx.x * tiles + blockIdx.x] = s_count[threadIdx.x];
}

// keys_in == nullptr never happens; vals_in == nullptr means "index i" (first pass);
// keys_out == nullptr skips writing keys (last pass).
__global__ void __launch_bounds__(kSortThreads)
    radix_downsweep_kernel(const std::uint32_t* keys_in, const std::uint32_t* vals_in,
                           std::uint32_t* keys_out, std::uint32_t* vals_out, std::size_t n,
                           int shift, const std::uint32_t* table, std::size_t tiles) {
  __shared__ std::uint32_t s_warp[kSortWarps][kDigits];
  __shared__ std::uint32_t s_running[kDigits];
  __shared__ std::uint32_t s_base[kDigits];
  const unsigned tid = threadIdx.x, lane = lane_id(), warp = tid / kWarpThreads;
  for (int w = 0; w < kSortWarps; ++w) s_warp[w][tid] = 0;
  s_running[tid] = 0;
  s_base[tid] = table[tid * tiles + blockIdx.x];
  __syncthreads();
  const unsigned lower_lanes = (1u << lane) - 1u;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kSortTile;
  for (int c = 0; c < kSortChunks; ++c) {
    const std::size_t i = base + c * kSortThreads + tid;
    const bool valid = i < n;
    const std::uint32_t key = valid ? keys_in[i] : 0;
    const std::uint32_t val = valid ? (vals_in ? vals_in[i] : static_cast<std::uint32_t>(i)) : 0;
    const unsigned d = valid ? digit_of(key, shift) : static_cast<unsigned>(kDigits);
    const unsigned peers = __match_any_sync(kFullMask, d);
    const unsigned rank_in_warp = __popc(peers & lower_lanes);
    if (valid && static_cast<int>(lane) == __ffs(peers) - 1) s_warp[warp][d] = __popc(peers);
    __syncthreads();
    if (valid) {
      std::uint32_t rank = s_running[d] + rank_in_warp;
      for (unsigned w = 0; w < warp; ++w) rank += s_warp[w][d];
      const std::uint32_t pos = s_base[d] + rank;
      if (keys_out) keys_out[pos] = key;
      vals_out[pos] = val;
    }
    __syncthreads();
    std::uint32_t chunk_count = 0;
    for (int w = 0; w < kSortWarps; ++w) {
      chunk_count += s_warp[w][tid];
      s_warp[w][tid] = 0;
    }
    s_running[tid] += chunk_count;
    __syncthreads();
  }
}

struct SortLayout {
  std::size_t tiles, passes;
  std::size_t bad, keys_a, keys_b, vals_a, vals_b, table, scan, total;
};

inline SortLayout sort_layout(std::size_t n, std::uint32_t K) {
  SortLayout l{};
  l.tiles = n == 0 ? 1 : (n + kSortTile - 1) / kSortTile;
  const int bits = K <= 1 ? 0 : 32 - __builtin_clz(K - 1);
  l.passes = static_cast<std::size_t>((bits + kRadixBits - 1) / kRadixBits);
  const std::size_t words = align_up(n * 4);
  l.bad = 0;
  l.keys_a = kScratchAlign;
  l.keys_b = l.keys_a + words;
  l.vals_a = l.keys_b + words;
  l.vals_b = l.vals_a + words;
  l.table = l.vals_b + words;
  l.scan = l.table + align_up(l.tiles * kDigits * 4);
  const std::size_t scan_n = std::max<std::size_t>(std::size_t{K}, l.tiles * kDigits);
  l.total = l.scan + scan_scratch_bytes_for<std::uint32_t>(scan_n);
  return l;
}

}  // namespace detail

std::size_t counting_sort_scratch_bytes(std::size_t n, std::uint32_t K) {
  return detail::sort_layout(n, K).total;
}

void counting_sort(void* d_scratch, std::size_t scratch_bytes,
                   std::span<const std::uint32_t> d_keys, std::uint32_t K,
                   std::span<std::uint32_t> d_offsets, std::span<std::uint32_t> d_perm,
                   cudaStream_t stream) {
  using namespace detail;
  const std::size_t n = d_keys.size();
  if (d_offsets.size() != std::size_t{K} + 1)
    throw std::invalid_argument("cuda counting_sort: offsets must have K + 1 entries");
  if (d_perm.size() != n) throw std::invalid_argument("cuda counting_sort: perm.size() != n");
  if (n >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("cuda counting_sort: more than 2^32-2 elements");
  const SortLayout l = sort_layout(n, K);
  if (d_scratch == nullptr || scratch_bytes < l.total)
    throw std::invalid_argument(
        "cuda counting_sort: scratch smaller than counting_sort_scratch_bytes");
  if (reinterpret_cast<std::uintptr_t>(d_scratch) % kScratchAlign != 0)
    throw std::invalid_argument(
        "cuda counting_sort: scratch not 256-byte aligned (pass cudaMalloc memory)");
  char* s = static_cast<char*>(d_scratch);
  auto* bad = reinterpret_cast<std::uint32_t*>(s + l.bad);
  auto at = [s](std::size_t off) { return reinterpret_cast<std::uint32_t*>(s + off); };
  void* scan_scratch = s + l.scan;
  const std::size_t scan_bytes = l.total - l.scan;

  // Offsets: histogram → exclusive scan (in place), total → offsets[K].
  check(cudaMemsetAsync(bad, 0xff, sizeof(std::uint32_t), stream), "counting_sort: memset");
  check(cudaMemsetAsync(d_offsets.data(), 0, d_offsets.size_bytes(), stream),
        "counting_sort: memset offsets");
  if (n > 0) {
    const std::size_t blocks = std::min<std::size_t>((n + kSortThreads - 1) / kSortThreads, 4096);
    key_histogram_kernel<<<static_cast<unsigned>(blocks), kSortThreads, 0, stream>>>(
        d_keys.data(), n, K, d_offsets.data(), bad);
    check(cudaGetLastError(), "counting_sort: histogram launch");
  }
  exclusive_scan<std::uint32_t>(scan_scratch, scan_bytes, d_offsets.first(K), d_offsets.first(K),
                                d_offsets.data() + K, stream);

  // Permutation: LSD radix passes over (key, index).
  if (n > 0 && l.passes == 0) {
    iota_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(d_perm.data(), n);
    check(cudaGetLastError(), "counting_sort: iota launch");
  }
  const std::uint32_t* keys_in = d_keys.data();
  const std::uint32_t* vals_in = nullptr;
  std::uint32_t* table = at(l.table);
  const std::span<std::uint32_t> table_span(table, l.tiles * kDigits);
  for (std::size_t p = 0; n > 0 && p < l.passes; ++p) {
    const int shift = static_cast<int>(p) * kRadixBits;
    const bool last = p + 1 == l.passes;
    std::uint32_t* keys_out = last ? nullptr : at(p % 2 ? l.keys_b : l.keys_a);
    std::uint32_t* vals_out = last ? d_perm.data() : at(p % 2 ? l.vals_b : l.vals_a);
    const unsigned grid = static_cast<unsigned>(l.tiles);
    radix_upsweep_kernel<<<grid, kSortThreads, 0, stream>>>(keys_in, n, shift, table, l.tiles);
    check(cudaGetLastError(), "counting_sort: upsweep launch");
    exclusive_scan<std::uint32_t>(scan_scratch, scan_bytes, table_span, table_span, nullptr,
                                  stream);
    radix_downsweep_kernel<<<grid, kSortThreads, 0, stream>>>(keys_in, vals_in, keys_out, vals_out,
                                                              n, shift, table, l.tiles);
    check(cudaGetLastError(), "counting_sort: downsweep launch");
    keys_in = keys_out;
    vals_in = vals_out;
  }

  // Key check (the one synchronisation).
  std::uint32_t first_bad = 0;
  check(cudaMemcpyAsync(&first_bad, bad, sizeof first_bad, cudaMemcpyDeviceToHost, stream),
        "counting_sort: read error flag");
  check(cudaStreamSynchronize(stream), "counting_sort: synchronize");
  if (first_bad != std::numeric_limits<std::uint32_t>::max()) {
    std::uint32_t key = 0;
    check(cudaMemcpy(&key, d_keys.data() + first_bad, sizeof key, cudaMemcpyDeviceToHost),
          "counting_sort: read bad key");
    throw std::out_of_range("counting_sort: keys[" + std::to_string(first_bad) +
                            "] = " + std::to_string(key) + " is not < K = " + std::to_string(K));
  }
}

}  // namespace scanmd::kernels::cuda
