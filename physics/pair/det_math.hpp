// Deterministic transcendental functions for the pair evaluators: one implementation, written
// with +, −, ×, / and exact operations only (floor, scaling by 2^k, min/max), so the host's
// scalar loop, its vector kernels and the CUDA kernel get the same bits. glibc's exp and CUDA's
// libdevice exp are each faithful but differ in the last place on some arguments, and the CPU
// emulator (which runs the host's libm) cannot see that; these functions can be compared to the
// bit on any backend.
//
// Each is a template over the number type R: double on the host and the device, and the vector
// types of core/simd.hpp, which provide sqrt_of, floor_of, scale_of (x·2^k, exact), min_of and
// max_of.
//
// exp(x): x clamped to [−708, 709] (e^x is then a normal double; beyond it the potentials this
// serves have long overflowed the fixed point or vanished), k = ⌊x/ln2 + ½⌋, r = x − k·ln2 with
// ln2 split in two (Cody & Waite: k·ln2_hi is exact for |k| < 2^11), |r| <= ln2/2, e^r by its
// Taylor series to r^13 (truncation below 1e-17 relative) as 1 + (r + r² q(r)), times 2^k.
// Within about an ulp of a long double reference (tests/physics/test_det_math.cpp).
#pragma once

#include <math.h>

#include "kernels/hd.hpp"

namespace scanmd::det {

// Correctly rounded (IEEE) on the host, the vector units and the device (nvcc -prec-sqrt=true).
SCANMD_HD inline double sqrt_of(double x) {
  return ::sqrt(x);
}
SCANMD_HD inline double floor_of(double x) {
  return ::floor(x);
}
SCANMD_HD inline double scale_of(double x, double k) {
  return ::ldexp(x, static_cast<int>(k));
}
// b when it is smaller (larger), else a: a NaN in `a` goes through (as MINPD/MAXPD(b, a) do).
SCANMD_HD inline double min_of(double a, double b) {
  return b < a ? b : a;
}
SCANMD_HD inline double max_of(double a, double b) {
  return b > a ? b : a;
}

template <class R>
SCANMD_HD inline R exp(R x) {
  constexpr double kLog2e = 1.44269504088896338700e+00;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // fdlibm's ln2_hi: 32 trailing zeros
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  x = min_of(max_of(x, R(-708.0)), R(709.0));
  const R k = floor_of(x * R(kLog2e) + R(0.5));
  const R r = (x - k * R(kLn2Hi)) - k * R(kLn2Lo);
  // e^r = 1 + (r + r² q(r)), q(r) = Σ_{n>=2} r^(n−2) / n! to n = 13 in Horner form: the small
  // part is summed first and added to 1 last, which keeps the error near half an ulp of 1 + ...
  R q = R(1.0 / 6227020800.0);       // 1/13!
  q = q * r + R(1.0 / 479001600.0);  // 1/12!
  q = q * r + R(1.0 / 39916800.0);   // 1/11!
  q = q * r + R(1.0 / 3628800.0);    // 1/10!
  q = q * r + R(1.0 / 362880.0);     // 1/9!
  q = q * r + R(1.0 / 40320.0);      // 1/8!
  q = q * r + R(1.0 / 5040.0);       // 1/7!
  q = q * r + R(1.0 / 720.0);        // 1/6!
  q = q * r + R(1.0 / 120.0);        // 1/5!
  q = q * r + R(1.0 / 24.0);         // 1/4!
  q = q * r + R(1.0 / 6.0);          // 1/3!
  q = q * r + R(0.5);                // 1/2!
  const R p = R(1.0) + (r + (r * r) * q);
  return scale_of(p, k);
}

}  // namespace scanmd::det
