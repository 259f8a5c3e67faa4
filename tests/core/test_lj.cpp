// tests/core/test_lj.cpp — core/lj.hpp pair math: LJParams::make + lj_pair against the textbook
// formula, the energy shift, and the minimum-image displacement.
//
// Oracle: U(r) = 4ε[(σ/r)^12 − (σ/r)^6] (minus U(r_c) when shifted) and
// F(r)/r = −U'(r)/r = 24ε[2(σ/r)^12 − (σ/r)^6]/r², in long double with std::pow; the minimum
// image from long double rounding. pair_displacement must also be exactly antisymmetric (bits),
// which the cross-rank reproducibility of DESIGN.md §5 relies on.
#include <gtest/gtest.h>

#include <cmath>

#include "core/lj.hpp"
#include "tests/core/test_support.hpp"

namespace scanmd {
namespace {

using test::LD;

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
      const LJParams lj = LJParams::make(p.eps, p.sig, p.rc, shift);
      EXPECT_EQ(lj.cutoff_sq, p.rc * p.rc);
      const LD u_shift = shift ? oracle_energy(p.rc, p.eps, p.sig) : 0;
      EXPECT_NEAR(static_cast<double>(lj.energy_shift), static_cast<double>(u_shift),
                  1e-14 * std::fabs(static_cast<double>(u_shift)) + 1e-300);
      for (double r = 0.75 * p.sig; r < p.rc; r += 0.013) {
        const PairTerms t = lj_pair(r * r, lj);
        const LD want_f = oracle_fpair(r, p.eps, p.sig);
        const LD want_u = oracle_energy(r, p.eps, p.sig) - u_shift;
        ASSERT_NEAR(t.fpair, static_cast<double>(want_f), 1e-12 * std::fabs(static_cast<double>(want_f)) + 1e-14)
            << "r = " << r;
        ASSERT_NEAR(t.energy, static_cast<double>(want_u), 1e-12 * std::fabs(oracle_energy(r, p.eps, p.sig)) + 1e-14)
            << "r = " << r;
      }
      // Minimum of the potential at 2^(1/6) σ: zero force, energy −ε (minus the shift).
      const double rmin = std::pow(2.0, 1.0 / 6.0) * p.sig;
      const PairTerms t = lj_pair(rmin * rmin, lj);
      EXPECT_NEAR(t.fpair, 0.0, 1e-12 * p.eps / (p.sig * p.sig));
      EXPECT_NEAR(t.energy, -p.eps - static_cast<double>(u_shift), 1e-12 * p.eps);
      if (shift) {
        const PairTerms at_rc = lj_pair(p.rc * p.rc, lj);
        EXPECT_NEAR(at_rc.energy, 0.0, 1e-15 * p.eps);
      }
    }
  }
}

TEST(LJPair, MinimumImageDisplacementIsExactAndAntisymmetric) {
  const Vec3 L{7.3, 9.1, 11.7};
  const Vec3 H{0.5 * L.x, 0.5 * L.y, 0.5 * L.z};
  test::Rng rng(42);
  for (int k = 0; k < 20000; ++k) {
    const Vec3 a{rng.uniform() * L.x, rng.uniform() * L.y, rng.uniform() * L.z};
    const Vec3 b{rng.uniform() * L.x, rng.uniform() * L.y, rng.uniform() * L.z};
    const Vec3 d = pair_displacement(a, b, L, H);
    const Vec3 e = pair_displacement(b, a, L, H);
    ASSERT_EQ(d.x, -e.x);
    ASSERT_EQ(d.y, -e.y);
    ASSERT_EQ(d.z, -e.z);
    const double got[3] = {d.x, d.y, d.z};
    const double da[3] = {a.x - b.x, a.y - b.y, a.z - b.z};
    const double len[3] = {L.x, L.y, L.z};
    for (int c = 0; c < 3; ++c) {
      const LD want = test::min_image(LD(da[c]), len[c]);
      ASSERT_LE(std::fabs(got[c]), 0.5 * len[c] * (1 + 1e-15));
      ASSERT_NEAR(got[c], static_cast<double>(want), 1e-13);
    }
  }
}

}  // namespace
}  // namespace scanmd
