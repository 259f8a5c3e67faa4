// kernels/counting_sort.hpp — stable counting sort / binning of small integer keys (host).
//
// Keys in [0, K) → offsets (K+1 entries, CSR: bin k holds perm[offsets[k] .. offsets[k+1])) and a
// STABLE permutation: perm[offsets[k] + r] = index of the r-th element (in input order) with key k.
//   keys 2 0 2 1 0, K = 3
//   histogram          2 1 2
//   exclusive scan  →  offsets 0 2 3 5
//   stable scatter  →  perm 1 4 3 0 2
// This is the count → scan → scatter pattern used for cells, neighbour lists, migration and halo
// buffers (STYLE.md habit 3); the scan is our exclusive_scan.  A key >= K throws
// std::out_of_range naming the first offending index (offsets/perm are then unspecified).
// n must fit in std::uint32_t.
//
// Sequential path: histogram in `offsets`, scan in place, scatter with offsets[k]++ as cursors,
// then shift offsets right by one (no scratch at all).  Parallel path (several threads, and
// K * threads <= n so the per-thread tables stay small next to the data): thread t histograms its
// contiguous chunk into row t of a threads×K table, each key's column is scanned over threads,
// the key totals are scanned, and thread t scatters its chunk from offsets[k] + table[t][k].
// Chunks are in input order, so the result is the same stable permutation for any thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "kernels/scan.hpp"
#include "kernels/workspace.hpp"

namespace scanmd::kernels {

namespace detail {
[[noreturn]] inline void throw_bad_key(std::size_t i, std::uint32_t key, std::uint32_t K) {
  throw std::out_of_range("counting_sort: keys[" + std::to_string(i) +
                          "] = " + std::to_string(key) + " is not < K = " + std::to_string(K));
}
}  // namespace detail

inline void counting_sort(Workspace& ws, std::span<const std::uint32_t> keys, std::uint32_t K,
                          std::span<std::uint32_t> offsets, std::span<std::uint32_t> perm) {
  const std::size_t n = keys.size();
  if (offsets.size() != std::size_t{K} + 1)
    throw std::invalid_argument("counting_sort: offsets must have K + 1 entries");
  if (perm.size() != n) throw std::invalid_argument("counting_sort: perm.size() != keys.size()");
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("counting_sort: more than 2^32-1 elements");

  const std::uint32_t* key = keys.data();
  std::uint32_t* off = offsets.data();
  std::uint32_t* out = perm.data();
  const int p = detail::threads_for(n);

  if (p <= 1 || std::size_t{K} * static_cast<std::size_t>(p) > n) {
    std::fill(off, off + K, 0u);
    for (std::size_t i = 0; i < n; ++i) {
      if (key[i] >= K) detail::throw_bad_key(i, key[i], K);
      ++off[key[i]];
    }
    off[K] = exclusive_scan<std::uint32_t>(ws, offsets.first(K), offsets.first(K));
    for (std::size_t i = 0; i < n; ++i) out[off[key[i]]++] = static_cast<std::uint32_t>(i);
    // off[k] now holds the end of bin k == start of bin k+1: shift right by one.
    std::copy_backward(off, off + K, off + K + 1);
    off[0] = 0;
    return;
  }

  std::span<std::uint32_t> table = ws.get<std::uint32_t>(
      Workspace::kSortHistogram, std::size_t{K} * static_cast<std::size_t>(p));
  std::size_t first_bad = n;  // smallest index with key >= K, n if none
  int team = 1;
#if defined(_OPENMP)
#pragma omp parallel num_threads(p)
#endif
  {
    const int t = detail::thread_id();
    const int nt = detail::team_size();
    const detail::Chunk c = detail::chunk_of(n, t, nt);
    std::uint32_t* row = table.data() + std::size_t{K} * static_cast<std::size_t>(t);
    std::fill(row, row + K, 0u);
    std::size_t bad = n;
    for (std::size_t i = c.begin; i < c.end; ++i) {
      const std::uint32_t k = key[i];
      if (k >= K) {
        bad = i;
        break;
      }
      ++row[k];
    }
#if defined(_OPENMP)
#pragma omp critical(scanmd_counting_sort)
#endif
    {
      first_bad = std::min(first_bad, bad);
      team = nt;
    }
#if defined(_OPENMP)
#pragma omp barrier
#endif
    if (first_bad == n) {
      // Column scan over threads: table[t][k] becomes the count of key k in chunks < t.
#if defined(_OPENMP)
#pragma omp for schedule(static)
#endif
      for (std::size_t k = 0; k < K; ++k) {
        std::uint32_t base = 0;
        for (int s = 0; s < nt; ++s) {
          std::uint32_t& cell = table[std::size_t{K} * static_cast<std::size_t>(s) + k];
          const std::uint32_t count = cell;
          cell = base;
          base += count;
        }
        off[k] = base;
      }
    }
  }
  if (first_bad < n) detail::throw_bad_key(first_bad, key[first_bad], K);
  off[K] = exclusive_scan<std::uint32_t>(ws, offsets.first(K), offsets.first(K));

#if defined(_OPENMP)
#pragma omp parallel num_threads(team)
#endif
  {
    // Chunking must match the histogram pass; loop in case the runtime gives fewer threads.
    for (int s = detail::thread_id(); s < team; s += detail::team_size()) {
      const detail::Chunk c = detail::chunk_of(n, s, team);
      std::uint32_t* row = table.data() + std::size_t{K} * static_cast<std::size_t>(s);
      for (std::size_t i = c.begin; i < c.end; ++i) {
        const std::uint32_t k = key[i];
        out[off[k] + row[k]++] = static_cast<std::uint32_t>(i);
      }
    }
  }
}

}  // namespace scanmd::kernels
