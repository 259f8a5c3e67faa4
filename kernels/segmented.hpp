// kernels/segmented.hpp — segmented scans (head flags) and segmented reduce (CSR rows), host.
//
// Segmented scan: heads[i] != 0 starts a new segment at i (element 0 always starts one).  It is
// the ordinary scan engine (scan.hpp) run with Segmented<Op> on (head, value) pairs, so it is
// work-efficient and parallel exactly like exclusive_scan:
//   heads 1 0 0 1 0 0 0   in 1 1 1 1 1 1 1
//   segmented_inclusive_scan → 1 2 3 1 2 3 4
//   segmented_exclusive_scan → 0 1 2 0 1 2 3      (a head gets Op::identity())
// out may alias in.
//
// Segmented reduce over CSR rows: out[r] = in[offsets[r]] ⊕ ... ⊕ in[offsets[r+1]-1], an empty
// row gives Op::identity().  offsets.size() == out.size() + 1, offsets non-decreasing and
// offsets.back() <= in.size():
//   offsets 0 2 2 5   in 1 2 3 4 5   → out 3 0 12
// Rows are independent, so threads take contiguous blocks of rows and each row is reduced in index
// order by one thread: results are identical for any thread count, floating point included.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "kernels/operators.hpp"
#include "kernels/scan.hpp"
#include "kernels/workspace.hpp"

namespace scanmd::kernels {

namespace detail {
template <class T>
void require_heads(std::span<const std::uint8_t> heads, std::span<const T> in, std::size_t out,
                   const char* who) {
  if (heads.size() != in.size())
    throw std::invalid_argument(std::string(who) + ": heads and input differ in size");
  require_room(in, out, who);
}
}  // namespace detail

template <class T, class Op = Sum<T>>
void segmented_inclusive_scan(Workspace& ws, std::span<const std::uint8_t> heads,
                              std::span<const T> in, std::span<T> out, Op = {}) {
  detail::require_heads(heads, in, out.size(), "segmented_inclusive_scan");
  using V = typename Segmented<Op>::value_type;
  const std::uint8_t* h = heads.data();
  const T* src = in.data();
  T* dst = out.data();
  detail::scan_engine<true>(
      ws, in.size(),
      [h, src](std::size_t i) {
        return V{std::uint32_t{h[i] != 0}, src[i]};
      },
      [dst](std::size_t i, V v) { dst[i] = v.value; }, Segmented<Op>{});
}

template <class T, class Op = Sum<T>>
void segmented_exclusive_scan(Workspace& ws, std::span<const std::uint8_t> heads,
                              std::span<const T> in, std::span<T> out, Op = {}) {
  detail::require_heads(heads, in, out.size(), "segmented_exclusive_scan");
  using V = typename Segmented<Op>::value_type;
  const std::uint8_t* h = heads.data();
  const T* src = in.data();
  T* dst = out.data();
  // The exclusive Segmented scan at i combines [0, i): right for non-heads; a head restarts.
  detail::scan_engine<false>(
      ws, in.size(),
      [h, src](std::size_t i) {
        return V{std::uint32_t{h[i] != 0}, src[i]};
      },
      [h, dst](std::size_t i, V v) { dst[i] = h[i] ? Op::identity() : v.value; }, Segmented<Op>{});
}

template <class T, class Op = Sum<T>, class Index = std::uint32_t>
void segmented_reduce(Workspace&, std::span<const Index> offsets, std::span<const T> in,
                      std::span<T> out, Op op = {}) {
  const std::size_t rows = out.size();
  if (offsets.size() != rows + 1 && !(rows == 0 && offsets.empty()))
    throw std::invalid_argument("segmented_reduce: offsets.size() must be out.size() + 1");
  for (std::size_t r = 0; r < rows; ++r)
    if (offsets[r] > offsets[r + 1])
      throw std::invalid_argument("segmented_reduce: offsets decrease at row " + std::to_string(r));
  if (rows > 0 && static_cast<std::size_t>(offsets[rows]) > in.size())
    throw std::out_of_range("segmented_reduce: offsets.back() exceeds the input size");

  const Index* off = offsets.data();
  const T* src = in.data();
  T* dst = out.data();
  const std::size_t elems = rows > 0 ? static_cast<std::size_t>(off[rows]) : 0;
  [[maybe_unused]] const bool parallel = detail::threads_for(elems + rows) > 1;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) if (parallel)
#endif
  for (std::size_t r = 0; r < rows; ++r) {
    T acc = Op::identity();
    for (std::size_t i = off[r], e = off[r + 1]; i < e; ++i) acc = op(acc, src[i]);
    dst[r] = acc;
  }
}

}  // namespace scanmd::kernels
