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
