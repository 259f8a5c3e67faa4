// tests/base/test_fixed_point.cpp — base/fixed_point.hpp: 64-bit fixed point in units of 2^-40.
//
// Checks: conversion truncates toward zero and is symmetric (to_fixed(-v) == -to_fixed(v));
// the overflow flag is raised (and never cleared) for |v|·2^40 >= 2^62, ±inf and NaN, and not
// below that; add_checked flags signed overflow; lower_share parts add up to the whole and
// differ by at most one unit; to_double inverts exactly for representable values.
// Oracle: long double arithmetic (std::trunc of v·2^40, exact for |v| < 2^23 here) and
// __int128 sums, written independently of the header.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/fixed_point.hpp"
#include "tests/support/rng.hpp"

namespace scanmd {
namespace {

constexpr long double kUnit = 1099511627776.0L;  // 2^40, written out independently

// Round to nearest, ties to even (independent of the library: a tie is detected exactly).
std::int64_t oracle_fixed(double v) {
  const long double t = static_cast<long double>(v) * kUnit;
  long double r = std::floor(t + 0.5L);
  if (r - t == 0.5L && std::fmod(r, 2.0L) != 0) r -= 1;  // tie: to even
  return static_cast<std::int64_t>(r);
}

TEST(FixedPoint, RoundsToNearestEvenAndIsSymmetric) {
  bool overflow = false;
  const double u = std::ldexp(1.0, -40);             // one unit
  EXPECT_EQ(fixed::to_fixed(1.5 * u, overflow), 2);  // tie: to even
  EXPECT_EQ(fixed::to_fixed(-1.5 * u, overflow), -2);
  EXPECT_EQ(fixed::to_fixed(2.5 * u, overflow), 2);
  EXPECT_EQ(fixed::to_fixed(1.4 * u, overflow), 1);
  EXPECT_EQ(fixed::to_fixed(0.499 * u, overflow), 0);
  EXPECT_EQ(fixed::to_fixed(-0.999 * u, overflow), -1);
  EXPECT_EQ(fixed::to_fixed(1.0, overflow), std::int64_t{1} << 40);
  EXPECT_EQ(fixed::to_fixed(-2.75, overflow), -(std::int64_t{11} << 38));
  EXPECT_FALSE(overflow);

  test::Rng rng(12345);
  for (int k = 0; k < 20000; ++k) {
    // Magnitudes from 1e-14 to 1e6: below, at and far above the resolution.
    const double v = std::ldexp(rng.uniform(0.5, 1.0), rng.integer(-47, 20)) *
                     (rng.uniform() < 0.5 ? -1.0 : 1.0);
    const std::int64_t f = fixed::to_fixed(v, overflow);
    ASSERT_EQ(f, oracle_fixed(v)) << "v = " << v;
    ASSERT_EQ(fixed::to_fixed(-v, overflow), -f) << "v = " << v;
    // Nearest: within half a unit.
    ASSERT_LE(std::fabs(v - fixed::to_double(f)), 0.5 * u);
  }
  EXPECT_FALSE(overflow);
}

TEST(FixedPoint, ToDoubleIsExactOnRepresentableValues) {
  for (std::int64_t f :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, std::int64_t{123456789},
        -(std::int64_t{1} << 52), (std::int64_t{1} << 53) - 1}) {
    EXPECT_EQ(static_cast<long double>(fixed::to_double(f)), static_cast<long double>(f) / kUnit);
    bool overflow = false;
    EXPECT_EQ(fixed::to_fixed(fixed::to_double(f), overflow), f);
    EXPECT_FALSE(overflow);
  }
  // Wide (128-bit) sums convert too.
  const fixed::Wide w = static_cast<fixed::Wide>(std::int64_t{3} << 40) * 1000000;
  EXPECT_EQ(fixed::to_double(w), 3.0e6);
}

TEST(FixedPoint, OverflowFlagOnHugeInfAndNaN) {
  const double limit = std::ldexp(1.0, 22);  // 2^62 units = 2^22 in value ≈ 4.19e6
  struct Case {
    double v;
    bool overflows;
  };
  const std::vector<Case> cases = {
      {limit * 0.999, false},
      {-limit * 0.999, false},
      {limit, true},
      {-limit, true},
      {1e7, true},
      {-1e7, true},
      {1e300, true},
      {-1e300, true},
      {std::numeric_limits<double>::infinity(), true},
      {-std::numeric_limits<double>::infinity(), true},
      {std::numeric_limits<double>::quiet_NaN(), true},
      {4.0e6, false},
  };
  for (const Case& c : cases) {
    bool overflow = false;
    const std::int64_t f = fixed::to_fixed(c.v, overflow);
    EXPECT_EQ(overflow, c.overflows) << "v = " << c.v;
    if (!c.overflows) {
      EXPECT_EQ(f, oracle_fixed(c.v)) << "v = " << c.v;
    }
  }
  // The flag is sticky: a later good conversion does not clear it.
  bool overflow = false;
  fixed::to_fixed(std::numeric_limits<double>::quiet_NaN(), overflow);
  fixed::to_fixed(1.0, overflow);
  EXPECT_TRUE(overflow);
}

TEST(FixedPoint, AddCheckedFlagsSignedOverflow) {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
  bool overflow = false;
  std::int64_t a = max - 5;
  fixed::add_checked(a, 5, overflow);
  EXPECT_EQ(a, max);
  EXPECT_FALSE(overflow);
  fixed::add_checked(a, 1, overflow);
  EXPECT_TRUE(overflow);

  overflow = false;
  a = min + 3;
  fixed::add_checked(a, -3, overflow);
  EXPECT_EQ(a, min);
  EXPECT_FALSE(overflow);
  fixed::add_checked(a, -1, overflow);
  EXPECT_TRUE(overflow);
  fixed::add_checked(a, 0, overflow);  // sticky
  EXPECT_TRUE(overflow);

  // Random sums agree with 128-bit arithmetic, and the flag says exactly when they leave int64.
  test::Rng rng(99);
  for (int k = 0; k < 10000; ++k) {
    std::int64_t x = static_cast<std::int64_t>(rng.next());
    const std::int64_t y = static_cast<std::int64_t>(rng.next());
    const __int128 exact = static_cast<__int128>(x) + y;
    bool ovf = false;
    fixed::add_checked(x, y, ovf);
    const bool fits = exact >= min && exact <= max;
    ASSERT_EQ(ovf, !fits);
    if (fits) {
      ASSERT_EQ(x, static_cast<std::int64_t>(exact));
    }
  }
}

TEST(FixedPoint, LowerSharePartsAddUp) {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::vector<std::int64_t> values = {0,     1,      -1,  2,   -2,      3,      -3,
                                      12345, -12345, max, min, max - 1, min + 1};
  test::Rng rng(5);
  for (int k = 0; k < 10000; ++k)
    values.push_back(static_cast<std::int64_t>(rng.next()) >> rng.integer(0, 62));
  for (std::int64_t w : values) {
    const std::int64_t lo = fixed::lower_share(w);
    const __int128 hi = static_cast<__int128>(w) - lo;
    ASSERT_EQ(static_cast<__int128>(lo) + hi, static_cast<__int128>(w)) << w;
    ASSERT_LE(hi - lo, 1) << w;  // an even split, up to one unit
    ASSERT_GE(hi - lo, -1) << w;
    // The other part fits in int64 too (the caller computes it as `whole - lo`).
    ASSERT_TRUE(hi >= min && hi <= max) << w;
  }
}

}  // namespace
}  // namespace scanmd
