// tests/base/test_box.cpp — wrapping coordinates into the periodic box [0, L) (base/box.hpp).
//
// Oracles:
//  * Exact arithmetic in __float128 (113-bit significand): for |k| < 2^40 and a 53-bit L, k·L
//    and x − k·L are exact there, so "the wrapped coordinate r and the image count k satisfy
//    x = r + k·L, 0 <= r < L" is checked without rounding of its own (exactly for x >= 0; below
//    0 the remainder L − |fmod| is one rounding).
//  * Constructed cases: L = 8 and dyadic r, so x = k·8 + r is an exact double and the wrap must
//    give back r and k bit for bit.
//  * Pair displacements: the minimum image against long double rounding, and exact
//    antisymmetry (bits), which the cross-rank reproducibility of every pair style relies on.
//  * The one-step paths of an ordinary drift (x within one box length of [0, L)) are the plain
//    x − L and x + L, as before: normal runs keep their bits.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "base/box.hpp"

namespace scanmd {
namespace {

using Q = __float128;

// Wraps x by the full count; returns the wrapped coordinate and the images added.
struct Wrapped {
  double x;
  int image;
};
Wrapped far(double x, double L, int image = 0) {
  wrap_far_coordinate(x, image, L);
  return {x, image};
}
Wrapped step(double x, double L, int image = 0) {
  wrap_coordinate(x, image, L);
  return {x, image};
}

TEST(Wrap, ConstructedCasesGiveBackRemainderAndCount) {
  const double L = 8.0;
  for (const long long k : {-123456789LL, -1000LL, -3LL, -2LL, -1LL, 0LL, 1LL, 2LL, 3LL, 7LL,
                            1000LL, 123456789LL, 2000000000LL})
    for (const double r : {0.0, 0.375, 5.25, 7.875}) {
      const double x = static_cast<double>(k) * L + r;  // exact: |k·8| < 2^53, r dyadic
      ASSERT_EQ(static_cast<Q>(x), static_cast<Q>(k) * 8 + static_cast<Q>(r));
      const Wrapped w = far(x, L);
      EXPECT_EQ(w.x, r) << "k = " << k << ", r = " << r;
      EXPECT_EQ(w.image, k) << "k = " << k << ", r = " << r;
      // The step wrap (what the integrator calls after every drift) too.
      const Wrapped s = step(x, L);
      EXPECT_EQ(s.x, r) << "k = " << k << ", r = " << r;
      EXPECT_EQ(s.image, k) << "k = " << k << ", r = " << r;
    }
}

TEST(Wrap, AnyBoxLengthIsExact) {
  // Box lengths of the tests and inputs (lattice boxes are not dyadic), far coordinates.
  for (const double L : {10.07757715, 8.397980956, 1.6795961913, 33.591923826, 0.31})
    for (const double x : {-5.0e8, -123456.789, -2.5 * L, -1.0000001 * L, -1e-300, 2.0 * L,
                           2.0000001 * L, 3.7 * L, 98765.4321, 3.3e8, 5.0e8}) {
      for (const bool full : {true, false}) {
        const Wrapped w = full ? far(x, L, 5) : step(x, L, 5);
        SCOPED_TRACE(testing::Message() << "L = " << L << ", x = " << x << ", full " << full);
        EXPECT_GE(w.x, 0.0);
        EXPECT_LT(w.x, L);
        // x = r + (image − 5)·L: exactly for x >= 0 (fmod is exact); below 0 the remainder
        // r = fmod + L is rounded once, as the one-step wrap x + L always was.
        const Q residual = static_cast<Q>(x) - static_cast<Q>(w.x) -
                           static_cast<Q>(w.image - 5) * static_cast<Q>(L);
        const double tolerance = x >= 0.0 ? 0.0 : std::ldexp(L, -52);
        EXPECT_LE(std::fabs(static_cast<double>(residual)), tolerance);
      }
    }
}

TEST(Wrap, OneStepDriftKeepsItsBits) {
  const double L = 10.07757715;
  for (const double x : {L, L + 0.001, 1.999 * L, std::nextafter(2.0 * L, 0.0)}) {
    const Wrapped w = step(x, L, 3);
    EXPECT_EQ(w.x, x - L);
    EXPECT_EQ(w.image, 4);
  }
  for (const double x : {-0.001, -0.999 * L, -L}) {
    const Wrapped w = step(x, L, 3);
    EXPECT_EQ(w.x, x + L);
    EXPECT_EQ(w.image, 2);
  }
  for (const double x : {0.0, 0.5, std::nextafter(L, 0.0)}) {
    const Wrapped w = step(x, L, 3);
    EXPECT_EQ(w.x, x);
    EXPECT_EQ(w.image, 3);
  }
  // -tiny + L rounds to L: the particle is at 0 of its own image, not of the one below (which
  // would put its unwrapped position a box length off).
  const Wrapped w = step(-1e-300, L, 3);
  EXPECT_EQ(w.x, 0.0);
  EXPECT_EQ(w.image, 3);
}

TEST(Wrap, WhatCannotBeWrappedIsLeftAndReported) {
  const double L = 8.0;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const double x : {inf, -inf, nan, 1e300, -1e300, 8.0 * 2147483648.0 + 1.0}) {
    for (const bool full : {true, false}) {
      double y = x;
      int image = 0;
      const bool ok = full ? wrap_far_coordinate(y, image, L) : wrap_coordinate(y, image, L);
      EXPECT_FALSE(ok) << x;
      EXPECT_EQ(image, 0) << x;
      EXPECT_TRUE(std::isnan(x) ? std::isnan(y) : y == x) << x;
    }
  }
  // The image counter itself must not overflow: one box above INT_MAX images.
  double y = 9.0;
  int image = INT_MAX;
  EXPECT_FALSE(wrap_coordinate(y, image, L));
  EXPECT_EQ(image, INT_MAX);
  y = -1.0;
  image = INT_MIN;
  EXPECT_FALSE(wrap_coordinate(y, image, L));
  EXPECT_EQ(image, INT_MIN);
  // The last count that fits.
  y = 8.0 * 2147483647.0 + 1.0;
  image = 0;
  EXPECT_TRUE(wrap_far_coordinate(y, image, L));
  EXPECT_EQ(y, 1.0);
  EXPECT_EQ(image, INT_MAX);
}

TEST(PairDisplacement, MinimumImageIsExactAndAntisymmetric) {
  const Vec3 L{7.3, 9.1, 11.7};
  const Vec3 H{0.5 * L.x, 0.5 * L.y, 0.5 * L.z};
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  using LD = long double;
  const auto min_image = [](LD d, LD len) { return d - len * std::nearbyint(d / len); };
  for (int k = 0; k < 20000; ++k) {
    const Vec3 a{u(rng) * L.x, u(rng) * L.y, u(rng) * L.z};
    const Vec3 b{u(rng) * L.x, u(rng) * L.y, u(rng) * L.z};
    const Vec3 d = pair_displacement(a, b, L, H);
    const Vec3 e = pair_displacement(b, a, L, H);
    ASSERT_EQ(d.x, -e.x);
    ASSERT_EQ(d.y, -e.y);
    ASSERT_EQ(d.z, -e.z);
    const double got[3] = {d.x, d.y, d.z};
    const double da[3] = {a.x - b.x, a.y - b.y, a.z - b.z};
    const double len[3] = {L.x, L.y, L.z};
    for (int c = 0; c < 3; ++c) {
      const LD want = min_image(LD(da[c]), len[c]);
      ASSERT_LE(std::fabs(got[c]), 0.5 * len[c] * (1 + 1e-15));
      ASSERT_NEAR(got[c], static_cast<double>(want), 1e-13);
    }
  }
}

}  // namespace
}  // namespace scanmd
