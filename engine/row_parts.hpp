// The rows of a neighbour list run by a rank's threads, each thread adding its rows' terms (to
// i and to j) into its own array: the pair forces (pair_forces.cpp) and both EAM passes
// (eam_forces.cpp); the bonded terms the same way, as items of equal work (bonded_forces.cpp).
// The rows are cut into parts of decreasing size (factoring: each round gives
// every thread a part of half the remaining work over the threads; 1/4, 1/4, 1/8, 1/8, ... of
// the list on two threads, down to 1/128), taken in row order by whichever thread is free: the
// large first parts keep each thread on one long stretch of rows (their neighbours stay in its
// cache), the small last ones leave little to wait for at the end, and a core slowed by another
// process does fewer of them. Then the arrays are summed into the first. The terms are integers
// (fixed point), so the sums give one thread's bits whatever the split and the order. Per-part
// results (totals, the first error) are the caller's, by part index: parts are in row order, so
// the first part with an error holds the error one thread would have met first.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>
#include <vector>

#include "base/vec3.hpp"

namespace scanmd {

// The smallest part: 1/(kSmallestPart · threads) of the list.
inline constexpr int kSmallestPart = 64;

// At most this many parts for `threads` threads (the callers' per-part arrays).
inline constexpr int most_row_parts(int threads) {
  return 8 * threads;
}

// The sum of a thread's force array into the first (run_row_parts' `add` of the force passes).
inline void add_fixed3(Fix3& a, const Fix3& b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
}

// Row boundaries of the parts of rows [0, n) for `threads` threads (factoring, above), by the
// entries of the list's CSR offsets (n + 1 of them); the first is 0, the last n.
std::vector<std::size_t> row_parts(const std::uint32_t* offsets, std::size_t n, int threads);

// The same for `count` items of equal work (the bonded terms).
std::vector<std::size_t> item_parts(std::size_t count, int threads);

// Runs part(c, at[c], at[c + 1], into) for every part c on `threads` threads (at least 2), `into`
// the running thread's array of n values: `out` for thread 0, zeroed first when `zero_out`, and
// `buffers` (threads − 1 arrays, grown to n and zeroed here) for the others. Then add(out[k],
// buffer[k]) for every k and buffer, split among the threads. An exception thrown by a part is
// rethrown after the pass, the first part's first. Returns the number of parts.
template <class T, class Part, class Add>
int run_parts(const std::vector<std::size_t>& at, std::size_t n, int threads, T* out, bool zero_out,
              std::vector<std::vector<T>>& buffers, Part&& part, Add&& add) {
  buffers.resize(static_cast<std::size_t>(threads - 1));
  for (auto& b : buffers) b.resize(n);
  const int parts = static_cast<int>(at.size()) - 1;
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

// run_parts over the parts of rows [0, n) of a list (CSR `offsets`, n + 1): row_parts.
template <class T, class Part, class Add>
int run_row_parts(const std::uint32_t* offsets, std::size_t n, int threads, T* out, bool zero_out,
                  std::vector<std::vector<T>>& buffers, Part&& part, Add&& add) {
  return run_parts(row_parts(offsets, n, threads), n, threads, out, zero_out, buffers,
                   std::forward<Part>(part), std::forward<Add>(add));
}

}  // namespace scanmd
