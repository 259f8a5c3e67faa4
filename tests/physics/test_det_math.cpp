// tests/physics/test_det_math.cpp — the deterministic exponential (physics/pair/det_math.hpp)
// against a long double reference (x87 expl, 64-bit significand) over the whole range the pair
// styles use: every argument within 1 ulp (measured 0.93; a plain Horner sum of the series gave
// 1.1 and failed this test), and exact
// where the result is exact (e^0 = 1). A negative control: libm's exp is within 1 ulp too, but
// differs from det::exp somewhere, which is why det::exp exists (different bits on GPU and host).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "physics/pair/det_math.hpp"
#include "tests/support/rng.hpp"

namespace scanmd {
namespace {

// |got − want| in units in the last place of the double nearest `want`.
double ulps(double got, long double want) {
  const double w = static_cast<double>(want);
  const double ulp = std::nextafter(w, std::numeric_limits<double>::infinity()) - w;
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulp);
}

TEST(DetExp, WithinOneUlpOverTheRangeOfThePairStyles) {
  test::Rng rng(7);
  double worst = 0, worst_x = 0;
  for (int k = 0; k < 400000; ++k) {
    // Dense where potentials live (−50..50), sparse out to the clamp.
    const double x = k % 4 == 0 ? rng.uniform(-708.0, 709.0) : rng.uniform(-50.0, 50.0);
    const double e = ulps(det::exp(x), std::exp(static_cast<long double>(x)));
    if (e > worst) worst = e, worst_x = x;
  }
  EXPECT_LE(worst, 1.0) << "at x = " << worst_x;
  // Where the pair styles' arguments live, one ulp.
  double near = 0;
  for (int k = 0; k < 200000; ++k) {
    const double x = rng.uniform(-50.0, 50.0);
    near = std::max(near, ulps(det::exp(x), std::exp(static_cast<long double>(x))));
  }
  EXPECT_LE(near, 1.0);
  std::printf("det::exp: worst %.3f ulp on [-708, 709], %.3f ulp on [-50, 50]\n", worst, near);
  EXPECT_EQ(det::exp(0.0), 1.0);
  EXPECT_TRUE(std::isnan(det::exp(std::numeric_limits<double>::quiet_NaN())));
}

TEST(DetLog, WithinOneUlpOverTheRangeOfThePairStyles) {
  test::Rng rng(9);
  double worst = 0, worst_x = 0;
  for (int k = 0; k < 400000; ++k) {
    // r⁻² and σ/r of the Mie style live within 1e-3..1e3; the whole normal range sparsely.
    const double x =
        k % 4 == 0 ? std::exp(rng.uniform(-700.0, 700.0)) : std::exp(rng.uniform(-7.0, 7.0));
    const long double want = std::log(static_cast<long double>(x));
    if (want == 0) continue;
    const double e = ulps(det::log(x), want);
    if (e > worst) worst = e, worst_x = x;
  }
  EXPECT_LE(worst, 1.0) << "at x = " << worst_x;
  EXPECT_EQ(det::log(1.0), 0.0);
  std::printf("det::log: worst %.3f ulp\n", worst);
  // pow = exp(y log x): the Mie exponents (6..50) on (σ/r)² in 0.3..3.
  double worst_pow = 0;
  for (int k = 0; k < 100000; ++k) {
    const double x = rng.uniform(0.3, 3.0), y = rng.uniform(3.0, 25.0);
    worst_pow = std::max(worst_pow, ulps(det::pow(x, y), std::pow(static_cast<long double>(x),
                                                                  static_cast<long double>(y))));
  }
  EXPECT_LE(worst_pow, 64.0);  // |y log x| up to 27: the exponent's error, amplified
  std::printf("det::pow: worst %.3f ulp (x in [0.3, 3], y in [3, 25])\n", worst_pow);
}

TEST(DetSinCos, WithinAnUlpOfOneOnZeroToPi) {
  test::Rng rng(10);
  double worst = 0;
  for (int k = 0; k < 200000; ++k) {
    const double x = rng.uniform(0.0, 3.141592653589793);
    double s = 0, c = 0;
    det::sin_cos(x, s, c);
    const long double ls = std::sin(static_cast<long double>(x));
    const long double lc = std::cos(static_cast<long double>(x));
    // Absolute error in units of 2^-52 (an ulp of 1): what 1 + cos and the force see.
    worst = std::max({worst, static_cast<double>(std::fabs(s - ls) * 0x1p52L),
                      static_cast<double>(std::fabs(c - lc) * 0x1p52L)});
  }
  EXPECT_LE(worst, 1.5);  // the fold π − x rounds once more near π/2
  std::printf("det::sin_cos: worst %.3f ulp of 1 on [0, pi]\n", worst);
  double s = 1, c = 0;
  det::sin_cos(0.0, s, c);
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(c, 1.0);
}

TEST(DetExp, IsNotLibmsExpEverywhere) {
  test::Rng rng(8);
  int differ = 0;
  for (int k = 0; k < 100000; ++k) {
    const double x = rng.uniform(-30.0, 30.0);
    differ += det::exp(x) != std::exp(x);
  }
  // Both are within an ulp of e^x; they round differently on some arguments.
  EXPECT_GT(differ, 0);
}

}  // namespace
}  // namespace scanmd
