// engine/cuda/neighbors.cu — cell binning and the CSR neighbour list on the device.
//
// Binning (the host's CellList, same CellGrid): q = x + shift·L, cell, flat key; the counting
// sort of kernels/cuda (stable) then gives the cell order, so `order` and the tie-break
// positions k are the host's exactly. A binning position more than one cell outside the local
// domain (or non-finite) raises flags->bad_cell: every ghost lies within R (+ rounding) of the
// box, so that is a broken invariant, not a boundary case; such a particle is clamped, as on
// the host.
//
// Neighbour list. The host scans, per row i, the 25 contiguous runs of the cell order
// (cx−2 … cx+2, cy+dy, cz+dz) and keeps the candidates within R that the PairRule gives to
// this rank with i first. Here one thread takes one (row, run) element e = i·25 + r:
//   count   accepted candidates of element e → run_count[e]                  1 1 0 2 | 0 3 ...
//   place   segmented exclusive scan of run_count, heads at r == 0           0 1 2 2 | 0 0 ...
//           (segments = rows): where element e's entries start inside row i
//           [atomic variant: run_offset[e] = atomicAdd(row_len[i], count); no scan]
//   rows    row_len[i] = run_offset[i·25+24] + run_count[i·25+24]; exclusive scan → row offsets
//   fill    the same candidates again, each accepted j written at
//           row_offset[i] + run_offset[e] + (its rank among e's accepted candidates)
// The segmented variant writes each row in stencil order (runs in (dz, dy) order, candidates in
// cell order), run to run the same; the atomic one in run completion order. Both hold the
// host list's entries (the host may order a row differently); forces are the same bits.
// Both passes run the same pure function of the inputs (visit_run), so they agree on every
// decision. terms[i] counts the entries naming i (as row or neighbour) for the force bound.
#include <cuda_runtime.h>

#include "engine/cuda/device_math.cuh"
#include "engine/cuda/launch.hpp"
#include "engine/cuda/neighbor_runs.hpp"
#include "kernels/cuda/api.hpp"

namespace scanmd::cuda_step {

namespace {

constexpr int kThreads = 128;

unsigned blocks_for(std::uint64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

__device__ __forceinline__ std::uint64_t global_index() {
  return static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
}

__global__ void __launch_bounds__(kThreads) bin_kernel(BinArgs a) {
  const std::uint64_t i = global_index();
  if (i >= a.n) return;
  const Vec3 q = CellGrid::binning_position(a.x[i], a.shift[i], a.length);
  a.q[i] = q;
  const double cx = CellGrid::raw_cell(q.x, a.grid.origin.x, a.grid.inv.x);
  const double cy = CellGrid::raw_cell(q.y, a.grid.origin.y, a.grid.inv.y);
  const double cz = CellGrid::raw_cell(q.z, a.grid.origin.z, a.grid.inv.z);
  const bool far = !(cx >= -1.0 && cx <= a.grid.dims.x && cy >= -1.0 && cy <= a.grid.dims.y &&
                     cz >= -1.0 && cz <= a.grid.dims.z);
  if (far) atomic_min_index(&a.flags->bad_cell, i);
  const Int3 c = far ? Int3{0, 0, 0} : a.grid.cell_of(q);
  a.cell[i] = c;
  a.key[i] = static_cast<std::uint32_t>(a.grid.flat(c));
}

__global__ void __launch_bounds__(kThreads)
    gather_sorted_kernel(const std::uint32_t* order, const Vec3* q, const Int3* home,
                         std::uint32_t n, std::uint32_t* rank, Vec3* q_sorted, Int3* home_sorted) {
  const std::uint64_t k = global_index();
  if (k >= n) return;
  const std::uint32_t i = order[k];
  rank[i] = static_cast<std::uint32_t>(k);
  q_sorted[k] = q[i];
  home_sorted[k] = home[i];
}

struct NoEmit {
  __device__ void operator()(std::uint32_t, std::uint32_t) const {}
};

template <bool kGeneral, bool kAtomic>
__global__ void __launch_bounds__(kThreads)
    neighbor_count_kernel(NeighborArgs a, std::uint32_t* run_count, std::uint8_t* heads,
                          std::uint32_t* run_offset, unsigned long long* row_len) {
  const std::uint64_t e = global_index();
  if (e >= static_cast<std::uint64_t>(a.n) * kRunsPerRow) return;
  const std::uint32_t i = static_cast<std::uint32_t>(e / kRunsPerRow);
  const int r = static_cast<int>(e % kRunsPerRow);
  const std::uint32_t c = visit_run<kGeneral>(a, i, r, NoEmit{});
  if constexpr (kAtomic) {
    run_offset[e] = c ? static_cast<std::uint32_t>(atomicAdd(row_len + i, 1ull * c)) : 0u;
  } else {
    run_count[e] = c;
    heads[e] = r == 0;
  }
}

__global__ void __launch_bounds__(kThreads)
    neighbor_rows_kernel(std::uint32_t n, const std::uint32_t* run_count,
                         const std::uint32_t* run_offset, std::uint64_t* row_len,
                         std::uint32_t* terms) {
  const std::uint64_t i = global_index();
  if (i >= n) return;
  if (run_count) {
    const std::uint64_t last = i * kRunsPerRow + (kRunsPerRow - 1);
    row_len[i] = std::uint64_t{run_offset[last]} + run_count[last];
  }
  terms[i] = static_cast<std::uint32_t>(row_len[i]);
}

template <bool kGeneral>
__global__ void __launch_bounds__(kThreads)
    neighbor_fill_kernel(NeighborArgs a, const std::uint32_t* run_offset,
                         const std::uint64_t* row_offset, std::uint32_t* neighbors,
                         std::uint32_t* terms) {
  const std::uint64_t e = global_index();
  if (e >= static_cast<std::uint64_t>(a.n) * kRunsPerRow) return;
  const std::uint32_t i = static_cast<std::uint32_t>(e / kRunsPerRow);
  const int r = static_cast<int>(e % kRunsPerRow);
  std::uint32_t* out = neighbors + row_offset[i] + run_offset[e];
  visit_run<kGeneral>(a, i, r, [out, terms](std::uint32_t c, std::uint32_t j) {
    out[c] = j;
    atomicAdd(terms + j, 1u);
  });
}

__global__ void __launch_bounds__(kThreads)
    max_terms_kernel(const std::uint32_t* terms, std::uint32_t n, DeviceFlags* flags) {
  const std::uint64_t i = global_index();
  unsigned m = i < n ? terms[i] : 0u;
  m = __reduce_max_sync(kFullMask, m);
  if ((threadIdx.x & 31u) == 0) atomicMax(&flags->max_terms, static_cast<unsigned long long>(m));
}

}  // namespace

void launch_bin(const BinArgs& a, cudaStream_t stream) {
  if (a.n == 0) return;
  bin_kernel<<<blocks_for(a.n), kThreads, 0, stream>>>(a);
  kernels::cuda::check(cudaGetLastError(), "bin_kernel launch");
}

void launch_gather_sorted(const std::uint32_t* order, const Vec3* q, const Int3* home,
                          std::uint32_t n, std::uint32_t* rank, Vec3* q_sorted, Int3* home_sorted,
                          cudaStream_t stream) {
  if (n == 0) return;
  gather_sorted_kernel<<<blocks_for(n), kThreads, 0, stream>>>(order, q, home, n, rank, q_sorted,
                                                               home_sorted);
  kernels::cuda::check(cudaGetLastError(), "gather_sorted_kernel launch");
}

void launch_neighbor_count(const NeighborArgs& a, std::uint32_t* run_count, std::uint8_t* heads,
                           std::uint32_t* run_offset, std::uint64_t* row_len, cudaStream_t stream) {
  if (a.n == 0) return;
  const unsigned blocks = blocks_for(std::uint64_t{a.n} * kRunsPerRow);
  auto* atomic_len = reinterpret_cast<unsigned long long*>(row_len);
  if (row_len && a.general_rule)
    neighbor_count_kernel<true, true>
        <<<blocks, kThreads, 0, stream>>>(a, run_count, heads, run_offset, atomic_len);
  else if (row_len)
    neighbor_count_kernel<false, true>
        <<<blocks, kThreads, 0, stream>>>(a, run_count, heads, run_offset, atomic_len);
  else if (a.general_rule)
    neighbor_count_kernel<true, false>
        <<<blocks, kThreads, 0, stream>>>(a, run_count, heads, run_offset, nullptr);
  else
    neighbor_count_kernel<false, false>
        <<<blocks, kThreads, 0, stream>>>(a, run_count, heads, run_offset, nullptr);
  kernels::cuda::check(cudaGetLastError(), "neighbor_count_kernel launch");
}

void launch_neighbor_rows(std::uint32_t n, const std::uint32_t* run_count,
                          const std::uint32_t* run_offset, std::uint64_t* row_len,
                          std::uint32_t* terms, cudaStream_t stream) {
  if (n == 0) return;
  neighbor_rows_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, run_count, run_offset, row_len,
                                                               terms);
  kernels::cuda::check(cudaGetLastError(), "neighbor_rows_kernel launch");
}

void launch_neighbor_fill(const NeighborArgs& a, const std::uint32_t* run_offset,
                          const std::uint64_t* row_offset, std::uint32_t* neighbors,
                          std::uint32_t* terms, cudaStream_t stream) {
  if (a.n == 0) return;
  const unsigned blocks = blocks_for(std::uint64_t{a.n} * kRunsPerRow);
  if (a.general_rule)
    neighbor_fill_kernel<true>
        <<<blocks, kThreads, 0, stream>>>(a, run_offset, row_offset, neighbors, terms);
  else
    neighbor_fill_kernel<false>
        <<<blocks, kThreads, 0, stream>>>(a, run_offset, row_offset, neighbors, terms);
  kernels::cuda::check(cudaGetLastError(), "neighbor_fill_kernel launch");
}

void launch_max_terms(const std::uint32_t* terms, std::uint32_t n, DeviceFlags* flags,
                      cudaStream_t stream) {
  if (n == 0) return;
  max_terms_kernel<<<blocks_for(n), kThreads, 0, stream>>>(terms, n, flags);
  kernels::cuda::check(cudaGetLastError(), "max_terms_kernel launch");
}

}  // namespace scanmd::cuda_step
