// Deterministic transcendental functions for the pair evaluators: one implementation, written
// with +, −, ×, / and exact operations only (floor, scaling by 2^k, min/max), so the host's
// scalar loop, its vector kernels and the CUDA kernel get the same bits. glibc's exp and CUDA's
// libdevice exp are each faithful but differ in the last place on some arguments, and the CPU
// emulator (which runs the host's libm) cannot see that; these functions can be compared to the
// bit on any backend.
//
// Each is a template over the number type R: double on the host and the device, and the vector
// types of engine/simd.hpp, which provide sqrt_of, floor_of, scale_of (x·2^k, exact), min_of and
// max_of.
//
// exp(x): x clamped to [−708, 709] (e^x is then a normal double; beyond it the potentials this
// serves have long overflowed the fixed point or vanished), k = ⌊x/ln2 + ½⌋, r = x − k·ln2 with
// ln2 split in two (Cody & Waite: k·ln2_hi is exact for |k| < 2^11), |r| <= ln2/2, e^r by its
// Taylor series to r^13 (truncation below 1e-17 relative) as 1 + (r + r² q(r)), times 2^k.
// Within about an ulp of a long double reference (tests/physics/test_det_math.cpp).
//
// Single precision (run.precision = "mixed", physics/pair/mixed.hpp): R = float or a vector of
// floats (kSingle<R>), with float versions of the exact operations below. exp then clamps x to
// [−87, 88] (k in [−126, 127]: 2^k a normal float, so x·2^k is one correctly rounded product
// however it is formed) and splits ln2 as a float Cody & Waite pair (k·ln2_hi exact for
// |k| < 2^9); the rest is the same series, in float.
#pragma once

#include <math.h>

#include "kernels/hd.hpp"

namespace scanmd::det {

// Whether R is single precision (float, or a vector of floats: engine/simd.hpp sets it).
template <class R>
inline constexpr bool kSingle = false;
template <>
inline constexpr bool kSingle<float> = true;

// Correctly rounded (IEEE) on the host, the vector units and the device (nvcc -prec-sqrt=true).
SCANMD_HD inline double sqrt_of(double x) {
  return ::sqrt(x);
}
SCANMD_HD inline double floor_of(double x) {
  return ::floor(x);
}
// k is integral and within ±1100, or NaN when x is (exp of NaN): converting a NaN to int is
// undefined behaviour, so a NaN k scales by 2^0 (the NaN x goes through).
SCANMD_HD inline double scale_of(double x, double k) {
  return ::ldexp(x, k == k ? static_cast<int>(k) : 0);
}
// b when it is smaller (larger), else a: a NaN in `a` goes through (as MINPD/MAXPD(b, a) do).
SCANMD_HD inline double min_of(double a, double b) {
  return b < a ? b : a;
}
SCANMD_HD inline double max_of(double a, double b) {
  return b > a ? b : a;
}
// a > b ? x : y.
SCANMD_HD inline double select_gt(double a, double b, double x, double y) {
  return a > b ? x : y;
}
// The same in single precision (IEEE on the host and on the device: nvcc -prec-sqrt=true, no
// -ftz). scale_of is exact (or one correctly rounded product, for subnormal results).
SCANMD_HD inline float sqrt_of(float x) {
  return ::sqrtf(x);
}
SCANMD_HD inline float floor_of(float x) {
  return ::floorf(x);
}
SCANMD_HD inline float scale_of(float x, float k) {
  return ::ldexpf(x, k == k ? static_cast<int>(k) : 0);
}
SCANMD_HD inline float min_of(float a, float b) {
  return b < a ? b : a;
}
SCANMD_HD inline float max_of(float a, float b) {
  return b > a ? b : a;
}
// A table index: x (integral or not, in [0, 2^31)) truncated to an integer, as C's
// static_cast<int>; and the entry of a table at that index. The vector types give one index
// and one gathered entry per lane.
SCANMD_HD inline int index_of(double x) {
  return static_cast<int>(x);
}
SCANMD_HD inline double gather(const double* table, int i) {
  return table[i];
}
// x = m·2^e with m in [1, 2), for a normal positive x (exact).
SCANMD_HD inline void split_of(double x, double& e, double& m) {
  int k = 0;
  m = 2.0 * ::frexp(x, &k);
  e = static_cast<double>(k - 1);
}

template <class R>
SCANMD_HD inline R exp(R x) {
  constexpr double kLog2e = 1.44269504088896338700e+00;
  // fdlibm's ln2_hi (32 trailing zeros) and ln2_lo; in single precision, float's pair (ln2_hi
  // 0x3f317200: 9 trailing zeros).
  constexpr double kLn2Hi = kSingle<R> ? 6.93145751953125e-01 : 6.93147180369123816490e-01;
  constexpr double kLn2Lo = kSingle<R> ? 1.428606765330187045e-06 : 1.90821492927058770002e-10;
  constexpr double kLow = kSingle<R> ? -87.0 : -708.0, kHigh = kSingle<R> ? 88.0 : 709.0;
  x = min_of(max_of(x, R(kLow)), R(kHigh));
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

// log(x) for x > 0 (below the smallest normal double: log of that). x = m·2^e with m folded into
// [√½, √2), f = m − 1 (exact), s = f/(2 + f), log m = f − (f²/2 − s (f²/2 + R(s²))) with
// R(z) = Σ 2zⁿ/(2n + 1), n = 1..10 (fdlibm's arrangement of 2 atanh s; truncation below 1e-17),
// log x = e·ln2_hi − ((f²/2 − (s (f²/2 + R) + e·ln2_lo)) − f). Within an ulp
// (tests/physics/test_det_math.cpp).
template <class R>
SCANMD_HD inline R log(R x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kSqrt2 = 1.41421356237309504880;
  x = max_of(x, R(2.2250738585072014e-308));
  R e, m;
  split_of(x, e, m);
  const R big = select_gt(m, R(kSqrt2), R(1.0), R(0.0));
  m = select_gt(m, R(kSqrt2), m * R(0.5), m);
  e = e + big;
  const R f = m - R(1.0);
  const R s = f / (R(2.0) + f);
  const R z = s * s;
  R r = R(2.0 / 21.0);
  r = r * z + R(2.0 / 19.0);
  r = r * z + R(2.0 / 17.0);
  r = r * z + R(2.0 / 15.0);
  r = r * z + R(2.0 / 13.0);
  r = r * z + R(2.0 / 11.0);
  r = r * z + R(2.0 / 9.0);
  r = r * z + R(2.0 / 7.0);
  r = r * z + R(2.0 / 5.0);
  r = r * z + R(2.0 / 3.0);
  r = r * z;
  const R hfsq = R(0.5) * f * f;
  return e * R(kLn2Hi) - ((hfsq - (s * (hfsq + r) + e * R(kLn2Lo))) - f);
}

// x^y = exp(y log x) for x > 0: relative error about |y log x| ulp plus an ulp.
template <class R>
SCANMD_HD inline R pow(R x, R y) {
  return det::exp(y * det::log(x));
}

// sin x and cos x for x in [0, π] (the soft pair style's π r / r_c): folded to y in [0, π/2]
// (π − x with π split in two: exact to ~1e-32), sin y and cos y by their Taylor series to y^21
// and y^22 (truncation below 1e-18), cos x = −cos y on the fold. About an ulp of 1.
template <class R>
SCANMD_HD inline void sin_cos(R x, R& sin_x, R& cos_x) {
  constexpr double kPiHi = 3.14159265358979311600e+00;
  constexpr double kPiLo = 1.22464679914735317723e-16;
  constexpr double kHalfPi = 1.57079632679489655800e+00;
  const R y = select_gt(x, R(kHalfPi), (R(kPiHi) - x) + R(kPiLo), x);
  const R sign = select_gt(x, R(kHalfPi), R(-1.0), R(1.0));
  const R y2 = y * y;
  // sin y = y (1 − y²/3! + y⁴/5! − ...), cos y = 1 − y²/2! + y⁴/4! − ...
  R ps = R(1.0 / 51090942171709440000.0);        // 1/21!
  ps = R(1.0 / 121645100408832000.0) - y2 * ps;  // 1/19!
  ps = R(1.0 / 355687428096000.0) - y2 * ps;     // 1/17!
  ps = R(1.0 / 1307674368000.0) - y2 * ps;       // 1/15!
  ps = R(1.0 / 6227020800.0) - y2 * ps;          // 1/13!
  ps = R(1.0 / 39916800.0) - y2 * ps;            // 1/11!
  ps = R(1.0 / 362880.0) - y2 * ps;              // 1/9!
  ps = R(1.0 / 5040.0) - y2 * ps;                // 1/7!
  ps = R(1.0 / 120.0) - y2 * ps;                 // 1/5!
  ps = R(1.0 / 6.0) - y2 * ps;                   // 1/3!
  sin_x = y - y * (y2 * ps);
  R pc = R(1.0 / 1124000727777607680000.0);       // 1/22!
  pc = R(1.0 / 2432902008176640000.0) - y2 * pc;  // 1/20!
  pc = R(1.0 / 6402373705728000.0) - y2 * pc;     // 1/18!
  pc = R(1.0 / 20922789888000.0) - y2 * pc;       // 1/16!
  pc = R(1.0 / 87178291200.0) - y2 * pc;          // 1/14!
  pc = R(1.0 / 479001600.0) - y2 * pc;            // 1/12!
  pc = R(1.0 / 3628800.0) - y2 * pc;              // 1/10!
  pc = R(1.0 / 40320.0) - y2 * pc;                // 1/8!
  pc = R(1.0 / 720.0) - y2 * pc;                  // 1/6!
  pc = R(1.0 / 24.0) - y2 * pc;                   // 1/4!
  pc = R(0.5) - y2 * pc;                          // 1/2!
  cos_x = sign * (R(1.0) - y2 * pc);
}

}  // namespace scanmd::det
