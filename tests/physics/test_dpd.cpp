// tests/physics/test_dpd.cpp — the DPD styles' evaluator and the pair noise (physics/pair/dpd.hpp,
// pair_noise.hpp). Oracles: Groot & Warren's force law written out here in long double (LAMMPS's
// pair_dpd.cpp: fpair = [a w − γ w² (d·v)/r + σ w θ/√dt] / r, σ² = 2 γ k_B T), U = −∫F by a
// central difference of the evaluator's own energy; the noise's defining properties: a function
// of the unordered pair and the step, bounded by √3, zero mean and unit variance (sampled).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>

#include "physics/pair/dpd.hpp"
#include "physics/pair/pair_noise.hpp"

namespace scanmd {
namespace {

using LD = long double;

TEST(DPD, ForceIsGrootWarrensLaw) {
  const double a = 25.0, gamma = 4.5, T = 1.3, seed = 42, rc = 1.2, dt = 0.04, boltz = 0.5;
  const DPD::Params p = DPD::make({a, gamma, T, seed}, rc, false, MotionConstants{dt, boltz});
  EXPECT_EQ(p.seed, 42u);
  const LD sigma = std::sqrt(LD(2) * LD(gamma) * LD(boltz) * LD(T));
  for (double r = 0.05; r < rc; r += 0.0173)
    for (const double dvd : {-2.0, 0.0, 0.7})
      for (const double theta : {-1.5, 0.0, 1.1}) {
        const PairTerms<double> t = DPD::eval(r * r, p, PairMotion<double>{dvd, theta});
        const LD w = 1 - LD(r) / LD(rc);
        const LD f =
            (a * w - gamma * w * w * LD(dvd) / LD(r) + sigma * w * theta / std::sqrt(LD(dt))) /
            LD(r);
        ASSERT_NEAR(t.fpair, static_cast<double>(f),
                    1e-12 * (std::fabs(static_cast<double>(f)) + 1))
            << "r = " << r << " dvd = " << dvd << " theta = " << theta;
        ASSERT_NEAR(t.energy, static_cast<double>(LD(0.5) * a * rc * w * w), 1e-12);
      }
  // The conservative part is −U'(r)/r.
  for (double r = 0.1; r < rc - 0.01; r += 0.031) {
    const double h = 1e-6;
    const double du =
        (DPD::eval((r + h) * (r + h), p).energy - DPD::eval((r - h) * (r - h), p).energy) / (2 * h);
    EXPECT_NEAR(DPD::eval(r * r, p).fpair * r, -du, 1e-6 * (std::fabs(du) + 1));
  }
  // Coincident particles have no direction: nothing (LAMMPS skips them).
  const PairTerms<double> zero = DPD::eval(0.0, p, PairMotion<double>{1.0, 1.0});
  EXPECT_EQ(zero.fpair, 0.0);
  EXPECT_EQ(zero.energy, 0.0);
}

TEST(DPD, TstatHasNoConservativePart) {
  const double gamma = 2.0, T = 1.0, seed = 7, rc = 1.0, dt = 0.01;
  const DPDTstat::Params p = DPDTstat::make({gamma, T, seed}, rc, false, MotionConstants{dt, 1.0});
  const double r = 0.6, dvd = 0.3, theta = -0.8;
  const PairTerms<double> t = DPDTstat::eval(r * r, p, PairMotion<double>{dvd, theta});
  const LD w = 1 - LD(r) / LD(rc);
  const LD f = (-gamma * w * w * LD(dvd) / LD(r) +
                std::sqrt(LD(2) * gamma * T) * w * theta / std::sqrt(LD(dt))) /
               LD(r);
  EXPECT_NEAR(t.fpair, static_cast<double>(f), 1e-12 * std::fabs(static_cast<double>(f)));
  EXPECT_EQ(t.energy, 0.0);
  EXPECT_EQ(DPDTstat::eval(r * r, p).fpair, 0.0);  // no motion, no noise: no force
}

TEST(PairNoise, IsAFunctionOfTheUnorderedPairAndTheStep) {
  for (std::uint64_t i = 1; i < 40; ++i)
    for (std::uint64_t j = i + 1; j < 40; j += 3) {
      EXPECT_EQ(pair_noise(5, 17, i, j), pair_noise(5, 17, j, i));
      EXPECT_NE(pair_noise(5, 17, i, j), pair_noise(5, 18, i, j));
      EXPECT_NE(pair_noise(5, 17, i, j), pair_noise(6, 17, i, j));
    }
  // Different pairs of one step draw different numbers (a counter collision would repeat them).
  std::set<double> seen;
  for (std::uint64_t i = 1; i <= 60; ++i)
    for (std::uint64_t j = i + 1; j <= 60; ++j) seen.insert(pair_noise(1, 3, i, j));
  EXPECT_EQ(seen.size(), 60u * 59u / 2u);
}

TEST(PairNoise, HasZeroMeanAndUnitVariance) {
  // n = 10^6 uniform draws on [−√3, √3): the mean's standard error is 1e-3, the variance's
  // (√(Var θ²) = √(9/5 − 1) ≈ 0.894) / 1e3; five of them each way.
  const int n = 1000000;
  LD sum = 0, sum2 = 0;
  double lo = 1e9, hi = -1e9;
  for (int k = 0; k < n; ++k) {
    const double t = pair_noise(99, static_cast<std::uint64_t>(k / 1000), 1 + k % 1000, 5000);
    sum += t;
    sum2 += LD(t) * t;
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  }
  const double mean = static_cast<double>(sum / n),
               var = static_cast<double>(sum2 / n) - mean * mean;
  EXPECT_NEAR(mean, 0.0, 5e-3);
  EXPECT_NEAR(var, 1.0, 5 * 0.894e-3);
  EXPECT_GE(lo, -std::sqrt(3.0));
  EXPECT_LT(hi, std::sqrt(3.0));
  EXPECT_LT(lo, -1.72);  // it fills the interval
  EXPECT_GT(hi, 1.72);
}

}  // namespace
}  // namespace scanmd
