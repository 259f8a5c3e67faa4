// kernels/scan.hpp — host exclusive / inclusive scan over any associative operator.
//
//   exclusive_scan  input 1 1 1 1 → output 0 1 2 3, returns 4 (the reduction of all inputs)
//   inclusive_scan  input 1 1 1 1 → output 1 2 3 4, returns 4
//
// Conventions: out.size() >= in.size(); out may alias in (same pointer); n == 0 returns
// Op::identity().  Operands are always combined in index order, so non-commutative operators
// (Segmented<Op>) are fine.
//
// Engine (detail::scan_engine): one template drives every scan-shaped primitive in kernels/.  It
// reads element i through `load(i)` and writes result i through `store(i, v)`, so segmented scans
// (load builds a Flagged pair) and compaction (store scatters) reuse it without temporaries.
//   * small n, one thread, or already inside a parallel region: one tight sequential loop
//     (the same loop as std::exclusive_scan, so single-thread speed matches it);
//   * otherwise the chunked two-pass scan ("reduce-then-scan"), work-efficient, 3n traffic:
//       pass 1  thread t reduces its contiguous chunk            1 1 1 1 | 1 1 1 1 → 4 | 4
//       serial  exclusive scan of the p chunk totals             → bases 0 | 4
//       pass 2  thread t scans its chunk starting from its base  0 1 2 3 | 4 5 6 7
//     Integer results are bit-identical to the sequential loop for any thread count (associativity
//     is exact); floating-point sums differ by rounding only.
// OpenMP is optional: without it (or with one thread) only the sequential path exists.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "kernels/operators.hpp"
#include "kernels/workspace.hpp"

namespace scanmd::kernels {

namespace detail {

// Below this many elements the fork/join cost outweighs the second thread.
inline constexpr std::size_t kParallelMinElements = std::size_t{1} << 16;

// Threads a primitive should use for n elements (1 = sequential path).
inline int threads_for(std::size_t n) {
#if defined(_OPENMP)
  if (n < kParallelMinElements || omp_in_parallel()) return 1;
  return omp_get_max_threads();
#else
  (void)n;
  return 1;
#endif
}

inline int thread_id() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}
inline int team_size() {
#if defined(_OPENMP)
  return omp_get_num_threads();
#else
  return 1;
#endif
}

// Contiguous chunk [begin, end) of thread t out of nt; chunks are multiples of 16 elements so
// neighbouring threads do not share cache lines of 4-byte outputs.
struct Chunk {
  std::size_t begin, end;
};
inline Chunk chunk_of(std::size_t n, int t, int nt) {
  const std::size_t per = ((n + nt - 1) / nt + 15) & ~std::size_t{15};
  const std::size_t b = std::min(n, per * static_cast<std::size_t>(t));
  return {b, std::min(n, b + per)};
}

template <bool Inclusive, class V, class Load, class Store, class Op>
inline V scan_range(std::size_t b, std::size_t e, V acc, Load& load, Store& store, Op op) {
  for (std::size_t i = b; i < e; ++i) {
    const V v = load(i);
    if constexpr (Inclusive) {
      acc = op(acc, v);
      store(i, acc);
    } else {
      store(i, acc);
      acc = op(acc, v);
    }
  }
  return acc;
}

template <class V, class Load, class Op>
inline V reduce_range(std::size_t b, std::size_t e, Load& load, Op op) {
  V acc = Op::identity();
  for (std::size_t i = b; i < e; ++i) acc = op(acc, load(i));
  return acc;
}

// The scan engine (see file header).  Returns the reduction of all n loaded values.
template <bool Inclusive, class Op, class Load, class Store>
typename Op::value_type scan_engine(Workspace& ws, std::size_t n, Load load, Store store, Op op) {
  using V = typename Op::value_type;
  const int p = threads_for(n);
  if (p <= 1) return scan_range<Inclusive, V>(0, n, Op::identity(), load, store, op);

  std::span<V> partials = ws.get<V>(Workspace::kScanPartials, static_cast<std::size_t>(p) + 1);
  int team = 1;
#if defined(_OPENMP)
#pragma omp parallel num_threads(p)
#endif
  {
    const int t = thread_id();
    const int nt = team_size();  // the runtime may give fewer than p threads
    const Chunk c = chunk_of(n, t, nt);
    partials[t] = reduce_range<V>(c.begin, c.end, load, op);
#if defined(_OPENMP)
#pragma omp barrier
#pragma omp single
#endif
    {
      team = nt;
      V acc = Op::identity();
      for (int k = 0; k < nt; ++k) {
        const V sum = partials[k];
        partials[k] = acc;
        acc = op(acc, sum);
      }
      partials[nt] = acc;
    }  // implicit barrier after single
    scan_range<Inclusive, V>(c.begin, c.end, partials[t], load, store, op);
  }
  return partials[team];
}

template <class T>
void require_room(std::span<const T> in, std::size_t out_size, const char* who) {
  if (out_size < in.size())
    throw std::invalid_argument(std::string(who) + ": output span is shorter than the input");
}

}  // namespace detail

template <class T, class Op = Sum<T>>
T exclusive_scan(Workspace& ws, std::span<const T> in, std::span<T> out, Op op = {}) {
  detail::require_room(in, out.size(), "exclusive_scan");
  const T* src = in.data();
  T* dst = out.data();
  return detail::scan_engine<false>(
      ws, in.size(), [src](std::size_t i) { return src[i]; },
      [dst](std::size_t i, T v) { dst[i] = v; }, op);
}

template <class T, class Op = Sum<T>>
T inclusive_scan(Workspace& ws, std::span<const T> in, std::span<T> out, Op op = {}) {
  detail::require_room(in, out.size(), "inclusive_scan");
  const T* src = in.data();
  T* dst = out.data();
  return detail::scan_engine<true>(
      ws, in.size(), [src](std::size_t i) { return src[i]; },
      [dst](std::size_t i, T v) { dst[i] = v; }, op);
}

}  // namespace scanmd::kernels
