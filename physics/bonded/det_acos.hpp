// A deterministic arc cosine for the angle styles: fdlibm's __ieee754_acos (rational
// approximations of asin on [0, ½] and the half-angle formula beyond), written with +, −, ×, /
// and IEEE sqrt only, so that the host and the CUDA device give the same bits (no libm in a force
// path, DESIGN.md §5). fdlibm's high-word masking of √z (to make df² exact) is a Veltkamp split
// here: df = the upper 26 bits of s, taken with exact operations. Within about an ulp of a long
// double reference (tests/physics/test_bonded_styles.cpp).
#pragma once

#include "physics/pair/det_math.hpp"

namespace scanmd::det {

// acos(x) for x in [−1, 1] (callers clamp: a cosine from rounded vectors may leave it by an ulp).
SCANMD_HD inline double acos(double x) {
  constexpr double pi = 3.14159265358979311600e+00;
  constexpr double pio2_hi = 1.57079632679489655800e+00;
  constexpr double pio2_lo = 6.12323399573676603587e-17;
  constexpr double pS0 = 1.66666666666666657415e-01, pS1 = -3.25565818622400915405e-01,
                   pS2 = 2.01212532134862925881e-01, pS3 = -4.00555345006794114027e-02,
                   pS4 = 7.91534994289814532176e-04, pS5 = 3.47933107596021167570e-05;
  constexpr double qS1 = -2.40339491173441421878e+00, qS2 = 2.02094576023350569471e+00,
                   qS3 = -6.88283971605453293030e-01, qS4 = 7.70381505559019352791e-02;
  auto rational = [&](double z) {
    const double p = z * (pS0 + z * (pS1 + z * (pS2 + z * (pS3 + z * (pS4 + z * pS5)))));
    const double q = 1.0 + z * (qS1 + z * (qS2 + z * (qS3 + z * qS4)));
    return p / q;
  };
  if (x >= 1.0) return 0.0;
  if (x <= -1.0) return pi;
  if (x < 0.5 && x > -0.5) {
    if (x < 0x1p-57 && x > -0x1p-57) return pio2_hi + pio2_lo;
    const double r = rational(x * x);
    return pio2_hi - (x - (pio2_lo - x * r));
  }
  if (x < 0.0) {  // x <= −½: π − 2 asin(√((1 + x)/2))
    const double z = (1.0 + x) * 0.5;
    const double s = sqrt_of(z);
    const double w = rational(z) * s - pio2_lo;
    return pi - 2.0 * (s + w);
  }
  // x >= ½: 2 asin(√((1 − x)/2)), √ split as df + c with df² exact
  const double z = (1.0 - x) * 0.5;
  const double s = sqrt_of(z);
  const double t = s * 134217729.0;  // 2^27 + 1
  const double df = t - (t - s);     // s to 26 bits: df·df is exact
  const double c = (z - df * df) / (s + df);
  const double w = rational(z) * s + c;
  return 2.0 * (df + w);
}

}  // namespace scanmd::det
