// kernels/operators.hpp — associative operators with identity for the scan engine.
//
// An operator is a stateless functor with `value_type`, a static `identity()` and
// `operator()(a, b)`.  The engines only rely on associativity (a⊕b)⊕c == a⊕(b⊕c) and on
// identity() ⊕ x == x; they never assume commutativity, so operands are always combined in index
// order (older on the left).  Everything is SCANMD_HD so the same operators run on the GPU.
//
// Segmented<Op> lifts Op to (head flag, value) pairs (DESIGN.md §3):
//   (f1,v1) ⊕ (f2,v2) = (f1|f2, f2 ? v2 : v1⊕v2)
// A scan with Segmented<Sum> restarts at every head:
//   heads  1 0 0 1 0      values 1 1 1 1 1   →   inclusive 1 2 3 1 2
#pragma once

#include <cstdint>
#include <limits>

#include "kernels/hd.hpp"

#if defined(__CUDACC__)
#include <cuda/std/limits>
#endif

namespace scanmd::kernels {

namespace detail {
// std::numeric_limits is host-only under nvcc; libcu++ provides the same in device code.
#if defined(__CUDACC__)
template <class T>
using limits = ::cuda::std::numeric_limits<T>;
#else
template <class T>
using limits = std::numeric_limits<T>;
#endif
}  // namespace detail

template <class T>
struct Sum {
  using value_type = T;
  SCANMD_HD static constexpr T identity() { return T(0); }
  SCANMD_HD constexpr T operator()(T a, T b) const { return a + b; }
};

// Identity: −∞ where T has one (−DBL_MAX would turn a max over −∞ into −DBL_MAX), else lowest().
template <class T>
struct Max {
  using value_type = T;
  SCANMD_HD static constexpr T identity() {
    if constexpr (detail::limits<T>::has_infinity)
      return -detail::limits<T>::infinity();
    else
      return detail::limits<T>::lowest();
  }
  SCANMD_HD constexpr T operator()(T a, T b) const { return a < b ? b : a; }
};

// Head flag + value.  flag != 0 means "a segment starts at (or before, after combining) here".
template <class T>
struct Flagged {
  std::uint32_t flag;
  T value;
};

template <class Op>
struct Segmented {
  using value_type = Flagged<typename Op::value_type>;
  SCANMD_HD static constexpr value_type identity() { return {0u, Op::identity()}; }
  SCANMD_HD constexpr value_type operator()(value_type a, value_type b) const {
    return {a.flag | b.flag, b.flag ? b.value : Op{}(a.value, b.value)};
  }
};

}  // namespace scanmd::kernels
