// kernels/compact.hpp — order-preserving stream compaction (host).
//
// Compaction = exclusive scan of the 0/1 flags + scatter (DESIGN.md §3):
//   flags 0 1 1 0 1   → exclusive scan 0 0 1 2 2, total 3
//   compact_indices   → out 1 2 4           (returns 3)
//   compact(in = a b c d e) → out b c e     (returns 3)
// Conventions: flags[i] != 0 keeps element i; out.size() >= flags.size() (room for the worst
// case); entries of out past the returned count are unspecified (the sequential path writes one
// slot past the count).  compact() may be called with out == in on one thread only, so it is not
// allowed in general: out must not overlap in.  n must fit in std::uint32_t.
//
// One thread: a branch-free loop (`out[c] = i; c += flag`).  Several threads: the scan engine
// with a scattering store, i.e. count per chunk → scan chunk counts → scatter; same output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>

#include "kernels/scan.hpp"
#include "kernels/workspace.hpp"

namespace scanmd::kernels {

namespace detail {
inline void require_compact(std::size_t n, std::size_t out, const char* who) {
  if (out < n) throw std::invalid_argument(std::string(who) + ": out must have room for n entries");
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error(std::string(who) + ": more than 2^32-1 elements");
}
}  // namespace detail

inline std::size_t compact_indices(Workspace& ws, std::span<const std::uint8_t> flags,
                                   std::span<std::uint32_t> out) {
  const std::size_t n = flags.size();
  detail::require_compact(n, out.size(), "compact_indices");
  const std::uint8_t* f = flags.data();
  std::uint32_t* dst = out.data();
  if (detail::threads_for(n) <= 1) {
    std::size_t c = 0;
    for (std::size_t i = 0; i < n; ++i) {
      dst[c] = static_cast<std::uint32_t>(i);  // c <= i < n: always in bounds
      c += f[i] != 0;
    }
    return c;
  }
  return detail::scan_engine<false>(
      ws, n, [f](std::size_t i) { return std::uint32_t{f[i] != 0}; },
      [f, dst](std::size_t i, std::uint32_t pos) {
        if (f[i]) dst[pos] = static_cast<std::uint32_t>(i);
      },
      Sum<std::uint32_t>{});
}

template <class T>
std::size_t compact(Workspace& ws, std::span<const std::uint8_t> flags, std::span<const T> in,
                    std::span<T> out) {
  const std::size_t n = flags.size();
  if (in.size() != n) throw std::invalid_argument("compact: flags and input differ in size");
  detail::require_compact(n, out.size(), "compact");
  const std::uint8_t* f = flags.data();
  const T* src = in.data();
  T* dst = out.data();
  if (detail::threads_for(n) <= 1) {
    std::size_t c = 0;
    for (std::size_t i = 0; i < n; ++i) {
      dst[c] = src[i];
      c += f[i] != 0;
    }
    return c;
  }
  return detail::scan_engine<false>(
      ws, n, [f](std::size_t i) { return std::uint32_t{f[i] != 0}; },
      [f, src, dst](std::size_t i, std::uint32_t pos) {
        if (f[i]) dst[pos] = src[i];
      },
      Sum<std::uint32_t>{});
}

}  // namespace scanmd::kernels
