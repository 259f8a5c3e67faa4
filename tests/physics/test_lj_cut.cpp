// tests/physics/test_lj_cut.cpp — the Lennard-Jones evaluator (physics/pair/lj_cut.hpp):
// LJCut::make + eval against the textbook formula, and the energy shift.
//
// Oracle: U(r) = 4ε[(σ/r)^12 − (σ/r)^6] (minus U(r_c) when shifted) and
// F(r)/r = −U'(r)/r = 24ε[2(σ/r)^12 − (σ/r)^6]/r², in long double with std::pow.
#include <gtest/gtest.h>

#include <cmath>

#include "physics/pair/lj_cut.hpp"

namespace scanmd {
namespace {

using LD = long double;

LD oracle_energy(LD r, LD eps, LD sig) {
  const LD sr6 = std::pow(sig / r, LD(6));
  return 4 * eps * (sr6 * sr6 - sr6);
}
LD oracle_fpair(LD r, LD eps, LD sig) {
  const LD sr6 = std::pow(sig / r, LD(6));
  return 24 * eps * (2 * sr6 * sr6 - sr6) / (r * r);
}

TEST(LJPair, MatchesTextbookFormula) {
  struct P {
    double eps, sig, rc;
  };
  for (const P& p : {P{1.0, 1.0, 2.5}, P{0.7, 1.3, 3.0}, P{2.5, 0.8, 2.0}}) {
    for (bool shift : {false, true}) {
      const LJCut::Params lj = LJCut::make({p.eps, p.sig}, p.rc, shift);
      EXPECT_EQ(lj.cutoff_sq, p.rc * p.rc);
      const LD u_shift = shift ? oracle_energy(p.rc, p.eps, p.sig) : 0;
      EXPECT_NEAR(static_cast<double>(lj.energy_shift), static_cast<double>(u_shift),
                  1e-14 * std::fabs(static_cast<double>(u_shift)) + 1e-300);
      for (double r = 0.75 * p.sig; r < p.rc; r += 0.013) {
        const PairTerms<double> t = LJCut::eval(r * r, lj);
        const LD want_f = oracle_fpair(r, p.eps, p.sig);
        const LD want_u = oracle_energy(r, p.eps, p.sig) - u_shift;
        ASSERT_NEAR(t.fpair, static_cast<double>(want_f),
                    1e-12 * std::fabs(static_cast<double>(want_f)) + 1e-14)
            << "r = " << r;
        ASSERT_NEAR(t.energy, static_cast<double>(want_u),
                    1e-12 * std::fabs(oracle_energy(r, p.eps, p.sig)) + 1e-14)
            << "r = " << r;
      }
      // Minimum of the potential at 2^(1/6) σ: zero force, energy −ε (minus the shift).
      const double rmin = std::pow(2.0, 1.0 / 6.0) * p.sig;
      const PairTerms<double> t = LJCut::eval(rmin * rmin, lj);
      EXPECT_NEAR(t.fpair, 0.0, 1e-12 * p.eps / (p.sig * p.sig));
      EXPECT_NEAR(t.energy, -p.eps - static_cast<double>(u_shift), 1e-12 * p.eps);
      if (shift) {
        const PairTerms<double> at_rc = LJCut::eval(p.rc * p.rc, lj);
        EXPECT_NEAR(at_rc.energy, 0.0, 1e-15 * p.eps);
      }
    }
  }
}

}  // namespace
}  // namespace scanmd
