// tests/physics/test_pair_styles.cpp — every pair style beyond lj and morse (their own files):
// lj/smooth/linear, yukawa, gauss, buck, soft, lj96/cut, and every tail correction. Oracles: each style's textbook U(r) in long double
// (LAMMPS's documentation of the style), and F(r)/r = −U'(r)/r by a central difference of the
// evaluator's own U, so force and energy are one potential; U(r_c) = 0 where the style shifts.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "physics/pair/styles.hpp"

namespace scanmd {
namespace {

using LD = long double;

template <class E>
void expect_potential(const typename E::Params& p, double r_lo, double r_hi,
                      const std::function<LD(LD)>& u_want, double u_scale) {
  SCOPED_TRACE(std::string(E::kName));
  for (double r = r_lo; r < r_hi; r += 0.0037) {
    const PairTerms<double> t = E::eval(r * r, p);
    const LD u = u_want(r);
    ASSERT_NEAR(t.energy, static_cast<double>(u),
                1e-12 * (std::fabs(static_cast<double>(u)) + u_scale))
        << "r = " << r;
    const double h = 1e-5;
    const double du =
        (E::eval((r + h) * (r + h), p).energy - E::eval((r - h) * (r - h), p).energy) / (2 * h);
    ASSERT_NEAR(t.fpair * r, -du, 1e-6 * (std::fabs(du) + u_scale)) << "r = " << r;
  }
}

TEST(PairStyles, LJSmoothLinearGoesToZeroWithItsForce) {
  const double eps = 0.8, sig = 1.1, rc = 2.5;
  const auto p = LJSmoothLinear::make({eps, sig}, rc, false);
  auto u_lj = [&](LD r) {
    const LD s6 = std::pow(LD(sig) / r, LD(6));
    return 4 * eps * (s6 * s6 - s6);
  };
  auto du_lj = [&](LD r) {
    const LD s6 = std::pow(LD(sig) / r, LD(6));
    return -24 * eps * (2 * s6 * s6 - s6) / r;
  };
  expect_potential<LJSmoothLinear>(
      p, 0.9 * sig, rc, [&](LD r) { return u_lj(r) - u_lj(rc) - (r - rc) * du_lj(rc); }, eps);
  const PairTerms<double> at = LJSmoothLinear::eval(rc * rc, p);
  EXPECT_NEAR(at.energy, 0.0, 1e-15);
  EXPECT_NEAR(at.fpair, 0.0, 1e-15);
}

TEST(PairStyles, Yukawa) {
  for (const bool shift : {false, true}) {
    const double a = 1.7, kappa = 2.0, rc = 2.5;
    const auto p = Yukawa::make({a, kappa}, rc, shift);
    const LD off = shift ? a * std::exp(-LD(kappa) * rc) / rc : 0;
    expect_potential<Yukawa>(
        p, 0.3, rc, [&](LD r) { return a * std::exp(-kappa * r) / r - off; }, a);
    if (shift) {
      EXPECT_NEAR(Yukawa::eval(rc * rc, p).energy, 0.0, 1e-16);
    }
  }
}

TEST(PairStyles, Gauss) {
  for (const double a : {1.0, -2.0}) {
    const double b = 1.5, rc = 2.5;
    const auto p = Gauss::make({a, b}, rc, true);
    const LD off = a * std::exp(-LD(b) * rc * rc);
    expect_potential<Gauss>(
        p, 0.01, rc, [&](LD r) { return -(a * std::exp(-b * r * r) - off); }, std::fabs(a));
    EXPECT_NEAR(Gauss::eval(rc * rc, p).energy, 0.0, 1e-16);
  }
}

TEST(PairStyles, Buckingham) {
  const double a = 1000.0, rho = 0.2, c = 1.5, rc = 2.5;
  const auto p = Buck::make({a, rho, c}, rc, false);
  expect_potential<Buck>(
      p, 0.6, rc, [&](LD r) { return a * std::exp(-r / rho) - c / std::pow(r, LD(6)); }, c);
}

TEST(PairStyles, MieAndItsPrefactor) {
  const double eps = 1.2, sig = 0.9, gr = 14.0, ga = 6.5, rc = 2.5;
  const auto p = MieCut::make({eps, sig, gr, ga}, rc, true);
  const LD C = LD(gr) / (gr - ga) * std::pow(LD(gr) / ga, LD(ga) / (gr - ga));
  const LD off = C * eps * (std::pow(LD(sig) / rc, LD(gr)) - std::pow(LD(sig) / rc, LD(ga)));
  expect_potential<MieCut>(
      p, 0.85 * sig, rc,
      [&](LD r) { return C * eps * (std::pow(sig / r, LD(gr)) - std::pow(sig / r, LD(ga))) - off; },
      eps);
  // γr = 12, γa = 6 is LJ: C = 4.
  const auto lj = MieCut::make({1.0, 1.0, 12.0, 6.0}, 2.5, false);
  const auto ref = LJCut::make({1.0, 1.0}, 2.5, false);
  for (double r = 0.9; r < 2.5; r += 0.1) {
    EXPECT_NEAR(MieCut::eval(r * r, lj).energy, LJCut::eval(r * r, ref).energy, 1e-13);
    EXPECT_NEAR(MieCut::eval(r * r, lj).fpair, LJCut::eval(r * r, ref).fpair, 1e-12);
  }
}

TEST(PairStyles, SoftCosine) {
  const double a = 10.0, rc = 1.2;
  const auto p = Soft::make({a}, rc, false);
  const LD pi = 3.141592653589793238462643383279502884L;
  expect_potential<Soft>(
      p, 0.05, rc, [&](LD r) { return a * (1 + std::cos(pi * r / rc)); }, a);
  EXPECT_NEAR(Soft::eval(rc * rc, p).energy, 0.0, 1e-14);
}

TEST(PairStyles, LJ96) {
  for (const bool shift : {false, true}) {
    const double eps = 0.8, sig = 1.1, rc = 2.5;
    const auto p = LJ96Cut::make({eps, sig}, rc, shift);
    auto u = [&](LD r) {
      const LD s3 = std::pow(LD(sig) / r, LD(3));
      return 4 * eps * (s3 * s3 * s3 - s3 * s3);
    };
    const LD off = shift ? u(rc) : 0;
    expect_potential<LJ96Cut>(
        p, 0.85 * sig, rc, [&](LD r) { return u(r) - off; }, eps);
  }
  // The minimum: U = −16ε/27 at r = (3/2)^(1/3) σ, where the force vanishes.
  const auto p = LJ96Cut::make({1.0, 1.0}, 2.5, false);
  const double rmin = std::cbrt(1.5);
  EXPECT_NEAR(LJ96Cut::eval(rmin * rmin, p).energy, -16.0 / 27.0, 1e-15);
  EXPECT_NEAR(LJ96Cut::eval(rmin * rmin, p).fpair, 0.0, 1e-14);
}

// Every style with a tail correction, at its example coefficients, against the integrals it
// stands for (one pair of particles, volume 1): e = 2π ∫_rc^∞ r² U(r) dr and
// p = −(2π/3) ∫_rc^∞ r³ U'(r) dr = (2π/3) ∫ r⁴ fpair(r) dr, by Simpson's rule in long double on
// a grid in 1/r (the integrands fall off as r^-4 or faster) from the unshifted evaluator.
TEST(PairStyles, TailCorrectionsAreTheIntegralsBeyondTheCutoff) {
  int tails = 0;
  for_each_pair_style([&]<class E>() {
    if constexpr (E::kTail) {
      SCOPED_TRACE(std::string(E::kName));
      Coefficients c{};
      for (std::size_t i = 0; i < E::kExample.size(); ++i) c[i] = E::kExample[i];
      for (std::size_t g = 0; g < E::kGlobalExample.size(); ++g)
        c[E::kCoefficients.size() + g] = E::kGlobalExample[g];
      const double rc = 2.5;
      const auto params = E::make(c, 1e9, false);  // the bare potential beyond rc
      // r = rc / s for s in (0, 1]: dr = rc / s² ds; s → 0 contributes nothing.
      const int n = 20000;
      LD e = 0, p = 0;
      for (int k = 1; k <= n; ++k) {
        const LD s = LD(k) / n, w = (k == n) ? 1 : (k % 2 ? 4 : 2);
        const double r = static_cast<double>(rc / s);
        const PairTerms<double> t = E::eval(r * r, params);
        const LD jac = LD(rc) / (s * s);
        e += w * LD(r) * r * t.energy * jac;
        p += w * LD(r) * r * r * r * t.fpair * jac;
      }
      const LD h = LD(1) / n, pi = 3.141592653589793238462643383279502884L;
      e *= 2 * pi * h / 3;
      p *= 2 * pi / 3 * h / 3;
      const TailTerms tail = E::tail(c, rc, 1.0, 1.0);
      EXPECT_NEAR(tail.energy, static_cast<double>(e), 1e-9 * std::fabs(static_cast<double>(e)));
      EXPECT_NEAR(tail.pressure, static_cast<double>(p), 1e-9 * std::fabs(static_cast<double>(p)));
      ++tails;
    }
  });
  EXPECT_GE(tails, 4);  // lj, lj96/cut, buck, mie/cut
}

// Every style has a name, coefficient rows as long as its defaults and domains, and an alias
// list; names are unique, so the deck resolves each to one style.
TEST(PairStyles, TheListIsConsistent) {
  std::vector<std::string_view> names;
  for_each_pair_style([&]<class E>() {
    static_assert(E::kDefaults.size() == E::kCoefficients.size());
    static_assert(E::kDomains.size() == E::kCoefficients.size());
    static_assert(E::kGlobalDefaults.size() == E::kGlobals.size());
    static_assert(E::kCoefficients.size() + E::kGlobals.size() <= kMaxCoefficients);
    names.push_back(E::kName);
    for (const auto alias : E::kAliases) names.push_back(alias);
  });
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = i + 1; j < names.size(); ++j) EXPECT_NE(names[i], names[j]);
  EXPECT_GE(names.size(), 6u);
}

}  // namespace
}  // namespace scanmd
