// The rows of a neighbour list run by a rank's threads, each thread adding its rows' terms (to
// i and to j) into its own array: the pair forces (pair_forces.cpp) and both EAM passes
// (eam_forces.cpp). The rows are cut into kPartsPerThread parts per thread of about equal list
// length, taken by whichever thread is free (a core slowed by another process does fewer of
// them; small parts leave little to wait for at the end); then the arrays are summed into the
// first. The terms are integers (fixed point), so the sums give one thread's bits whatever the
// split and the order. Per-part results (totals, the first error) are the caller's, by part
// index: parts are in row order, so the first part with an error holds the error one thread
// would have met first.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <vector>

#include "base/vec3.hpp"
#include "engine/neighbor_list.hpp"

namespace scanmd {

// Parts per thread: 32 left 0.01-0.02 s per 500 steps of a 32 000-atom melt on 2 threads waiting
// at the barrier for the last part, against 0.02-0.08 s with 8 (docs/performance.md).
inline constexpr int kPartsPerThread = 32;

// The sum of a thread's force array into the first (run_row_parts' `add` of the force passes).
inline void add_fixed3(Fix3& a, const Fix3& b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
}

// Row boundaries giving each of `parts` parts of rows [0, n) about the same number of entries.
std::vector<std::size_t> split_rows(const NeighborList& list, std::size_t n, int parts);

// Runs part(c, begin, end, into) for every part c of rows [0, n) of `list` on `threads` threads
// (at least 2), `into` the running thread's array of n values: `out` for thread 0, zeroed first
// when `zero_out`, and `buffers` (threads − 1 arrays, grown to n and zeroed here) for the others.
// Then add(out[k], buffer[k]) for every k and buffer, split among the threads. An exception
// thrown by a part is rethrown after the pass, the first part's first. Returns the number of
// parts.
template <class T, class Part, class Add>
int run_row_parts(const NeighborList& list, std::size_t n, int threads, T* out, bool zero_out,
                  std::vector<std::vector<T>>& buffers, Part&& part, Add&& add) {
  buffers.resize(static_cast<std::size_t>(threads - 1));
  for (auto& b : buffers) b.resize(n);
  const int parts = threads * kPartsPerThread;
  const std::vector<std::size_t> at = split_rows(list, n, parts);
  std::vector<std::exception_ptr> error(static_cast<std::size_t>(parts));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    T* into = t == 0 ? out : buffers[static_cast<std::size_t>(t - 1)].data();
    if (t != 0 || zero_out) std::fill(into, into + n, T{});
#pragma omp for schedule(dynamic, 1)
    for (int c = 0; c < parts; ++c) {
      const auto u = static_cast<std::size_t>(c);
      try {
        part(c, at[u], at[u + 1], into);
      } catch (...) {
        error[u] = std::current_exception();
      }
    }
#pragma omp for schedule(static) nowait  // the region's end is the barrier
    for (std::size_t k = 0; k < n; ++k)
      for (const auto& b : buffers) add(out[k], b[k]);
  }
  for (const std::exception_ptr& e : error)
    if (e) std::rethrow_exception(e);
  return parts;
}

}  // namespace scanmd
