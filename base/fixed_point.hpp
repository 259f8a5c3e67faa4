// 64-bit fixed-point accumulation of forces, energies and virials (DESIGN.md §5).
//
// Floating-point sums depend on the order of their terms; integer sums do not. Every pair
// contribution is converted once to an integer in units of 2^-40 (≈ 9.1e-13 in LJ units, the
// resolution AMBER's SPFP uses) and summed as an integer, so the total is the same whatever
// the rank count, the decomposition, the neighbour order or the backend.
//
// to_fixed rounds to nearest (ties to even): symmetric, to_fixed(-v) == -to_fixed(v), and
// unbiased, which matters for sums of positive terms (m v², a truncating conversion would make
// every kinetic energy ~N·2^-41 low). Pair forces are converted by truncation in the force
// loops (also symmetric, and cheaper); either way the force on the second particle of a pair
// is exactly the negation of the first.
// A magnitude at or above 2^62 units (≈ 4.2e6) is an overflow: the caller raises a flag and
// the host reports the particle id. Global sums use 128-bit integers (10^9 particles × 2^62
// cannot overflow them).
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/hd.hpp"

namespace scanmd::fixed {

inline constexpr int kFracBits = 40;
inline constexpr double kScale = 1099511627776.0;           // 2^40
inline constexpr double kInvScale = 1.0 / 1099511627776.0;  // 2^-40, exact
inline constexpr double kLimit = 4611686018427387904.0;     // 2^62 units

using Wide = __int128;

// Converts v to fixed point; sets overflow (never clears it) when |v| is too large or NaN.
// An out-of-range value (or NaN) converts to 0 and raises the flag.
SCANMD_HD inline std::int64_t to_fixed(double v, bool& overflow) {
  const double t = v * kScale;                   // power-of-two scaling: exact
  const bool ok = (t < kLimit) & (t > -kLimit);  // false for NaN
  overflow |= !ok;
#if defined(__CUDA_ARCH__)
  return __double2ll_rn(ok ? t : 0.0);
#else
  return std::llrint(ok ? t : 0.0);  // default rounding mode: to nearest, ties to even
#endif
}

SCANMD_HD inline double to_double(std::int64_t f) {
  return static_cast<double>(f) * kInvScale;
}
inline double to_double(Wide f) {
  return static_cast<double>(f) * kInvScale;
}

// a += b, flagging (never clearing) signed overflow instead of wrapping.
SCANMD_HD inline void add_checked(std::int64_t& a, std::int64_t b, bool& overflow) {
#if defined(__CUDA_ARCH__)
  const std::int64_t r = static_cast<std::int64_t>(static_cast<unsigned long long>(a) +
                                                   static_cast<unsigned long long>(b));
  overflow |= ((a ^ r) & (b ^ r)) < 0;
  a = r;
#else
  overflow |= __builtin_add_overflow(a, b, &a);
#endif
}

// Splits a pair quantity between its two particles so that the parts add up exactly:
// the lower-id particle gets `lo`, the other `whole - lo`. Full shell counts each part on
// the rank owning that particle, the one-rank-per-pair methods add both.
SCANMD_HD inline std::int64_t lower_share(std::int64_t whole) {
  return whole >> 1;
}

}  // namespace scanmd::fixed
