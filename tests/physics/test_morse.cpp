// tests/physics/test_morse.cpp — the Morse evaluator (physics/pair/morse.hpp) against the
// textbook formula in long double: U = D0 [e^(−2α(r−r0)) − 2e^(−α(r−r0))], F/r = −U'(r)/r;
// the minimum at r0 (U = −D0, F = 0), the shift (U(r_c) = 0), and that F/r is −dU/dr / r by
// a central difference of U (the force and energy are one potential).
#include <gtest/gtest.h>

#include <cmath>

#include "physics/pair/morse.hpp"

namespace scanmd {
namespace {

using LD = long double;

LD oracle_u(LD r, LD d0, LD a, LD r0) {
  const LD e = std::exp(-a * (r - r0));
  return d0 * (e * e - 2 * e);
}
LD oracle_fpair(LD r, LD d0, LD a, LD r0) {
  const LD e = std::exp(-a * (r - r0));
  return 2 * d0 * a * (e * e - e) / r;
}

TEST(Morse, MatchesTextbookFormula) {
  struct P {
    double d0, alpha, r0, rc;
  };
  for (const P& p : {P{1.0, 5.0, 1.0, 2.5}, P{0.7, 2.3, 1.2, 3.0}, P{2.5, 10.0, 0.9, 1.8}}) {
    for (const bool shift : {false, true}) {
      const Morse::Params m = Morse::make({p.d0, p.alpha, p.r0}, p.rc, shift);
      const LD u_shift = shift ? oracle_u(p.rc, p.d0, p.alpha, p.r0) : 0;
      for (double r = 0.7 * p.r0; r < p.rc; r += 0.0071) {
        const PairTerms<double> t = Morse::eval(r * r, m);
        const LD f = oracle_fpair(r, p.d0, p.alpha, p.r0), u = oracle_u(r, p.d0, p.alpha, p.r0);
        ASSERT_NEAR(t.fpair, static_cast<double>(f),
                    1e-13 * std::fabs(static_cast<double>(f)) + 1e-15)
            << "r = " << r;
        ASSERT_NEAR(t.energy, static_cast<double>(u - u_shift),
                    1e-13 * (std::fabs(static_cast<double>(u)) + p.d0))
            << "r = " << r;
        // F = −dU/dr (central difference, step 1e-5: error ~1e-10 relative).
        const double h = 1e-5;
        const double du =
            (Morse::eval((r + h) * (r + h), m).energy - Morse::eval((r - h) * (r - h), m).energy) /
            (2 * h);
        ASSERT_NEAR(t.fpair * r, -du, 1e-6 * (std::fabs(du) + p.d0 * p.alpha)) << "r = " << r;
      }
      const PairTerms<double> at_min = Morse::eval(p.r0 * p.r0, m);
      EXPECT_NEAR(at_min.fpair, 0.0, 1e-14);
      EXPECT_NEAR(at_min.energy, -p.d0 - static_cast<double>(u_shift), 1e-14 * p.d0);
      if (shift) {
        EXPECT_NEAR(Morse::eval(p.rc * p.rc, m).energy, 0.0, 1e-15 * p.d0);
      }
    }
  }
}

}  // namespace
}  // namespace scanmd
