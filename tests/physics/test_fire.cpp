// FIRE's per-particle pieces (physics/dynamics/fire.hpp): the quantised sums are the same integer
// whatever the order and the split into ranks, and close to an exact (long double, compensated)
// sum; the update does LAMMPS MinFire's arithmetic in its order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "physics/dynamics/fire.hpp"

namespace scanmd {
namespace {

// Terms over 12 decades with both signs, as P = F·v has near a minimum.
std::vector<double> wide_range_terms(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> e(-9.0, 3.0), s(-1.0, 1.0);
  std::vector<double> t(n);
  for (double& x : t) x = s(rng) * std::pow(10.0, e(rng));
  return t;
}

fixed::Wide quantised_sum(const std::vector<double>& t, double scale) {
  fixed::Wide sum = 0;
  for (const double x : t) sum += fire_quantise(x, scale);
  return sum;
}

TEST(FireSums, SameIntegerInAnyOrderAndSplit) {
  std::vector<double> t = wide_range_terms(20000, 7);
  FireMaxima m;
  for (const double x : t) m.t[0] = std::max(m.t[0], std::fabs(x));
  const double scale = fire_scales(m).s[0];
  ASSERT_GT(scale, 0.0);
  const fixed::Wide reference = quantised_sum(t, scale);
  std::mt19937_64 rng(3);
  std::vector<double> double_sums;
  for (int round = 0; round < 5; ++round) {
    std::shuffle(t.begin(), t.end(), rng);
    double_sums.push_back(std::accumulate(t.begin(), t.end(), 0.0));
    // Split into "ranks" of random sizes, each summed alone, then the partial sums added.
    fixed::Wide total = 0;
    std::size_t at = 0;
    while (at < t.size()) {
      const std::size_t n = std::min<std::size_t>(t.size() - at, 1 + rng() % 5000);
      total += quantised_sum(std::vector<double>(t.begin() + at, t.begin() + at + n), scale);
      at += n;
    }
    EXPECT_TRUE(total == reference) << "round " << round;
  }
  // Against a long double sum of the exact terms: the quantisation keeps 2^-61 of the largest
  // term per term, so the error is at most n · 2^-61 · max.
  long double exact = 0;
  for (const double x : t) exact += x;
  const double got = fire_value(reference, scale);
  EXPECT_NEAR(got, static_cast<double>(exact), 20000.0 * std::ldexp(m.t[0], -60));
  // Plain double sums of the same shuffles differ (what the integers avoid): the orders tried
  // are ones that matter.
  std::sort(double_sums.begin(), double_sums.end());
  EXPECT_GT(std::unique(double_sums.begin(), double_sums.end()) - double_sums.begin(), 1);
}

TEST(FireSums, ScaleKeepsEveryTermBelow2To61) {
  for (const double max : {1e-300, 3e-7, 1.0, 2.0, 1.5e300}) {
    FireMaxima m;
    m.t[1] = max;
    const FireScales s = fire_scales(m);
    if (max < 1e-280) {  // too small to matter: no scale, sums 0
      EXPECT_EQ(s.s[1], 0.0);
      continue;
    }
    EXPECT_LT(max * s.s[1], std::ldexp(1.0, 61));
    EXPECT_GE(max * s.s[1], std::ldexp(1.0, 60));
    EXPECT_EQ(fire_quantise(max, s.s[1]), std::llrint(max * s.s[1]));
  }
  EXPECT_EQ(fire_scales(FireMaxima{}).s[0], 0.0);
}

// LAMMPS MinFire::iterate (integrator eulerimplicit), one particle, written out: halfstepback
// x -= 0.5 dt v; v = 0; then v += dtf/m f; v = scale1 v + scale2 f; x += dtv v.
TEST(FireUpdate, DoesLammpsArithmeticInItsOrder) {
  const Vec3 L{10, 10, 10};
  Vec3 x{1.0, 2.0, 3.0}, v{0.3, -0.2, 0.1};
  Int3 image{0, 0, 0};
  bool overflow = false;
  const Fix3 f{fixed::to_fixed(1.5, overflow), fixed::to_fixed(-2.25, overflow),
               fixed::to_fixed(0.125, overflow)};
  ASSERT_FALSE(overflow);
  const double m = 3.0, dt = 0.01, dtv = 0.008, s1 = 0.75, s2 = 0.0625;
  FireUpdate step;
  step.kick = dtv;
  step.mix = true;
  step.mix1 = s1;
  step.mix2 = s2;
  step.drift = dtv;
  Vec3 ex = x, ev = v;
  const double fx[3] = {1.5, -2.25, 0.125};
  double* pv[3] = {&ev.x, &ev.y, &ev.z};
  double* px[3] = {&ex.x, &ex.y, &ex.z};
  const double dtfm = dtv / m;
  for (int k = 0; k < 3; ++k) {
    *pv[k] += dtfm * fx[k];
    *pv[k] = s1 * *pv[k] + s2 * fx[k];
    *px[k] += dtv * *pv[k];
  }
  fire_update_particle(x, v, image, f, m, step, L);
  EXPECT_EQ(x.x, ex.x);
  EXPECT_EQ(x.y, ex.y);
  EXPECT_EQ(x.z, ex.z);
  EXPECT_EQ(v.x, ev.x);
  EXPECT_EQ(v.y, ev.y);
  EXPECT_EQ(v.z, ev.z);
  // The uphill step: half a step back along v, then v = 0.
  FireUpdate back;
  back.back = 0.5 * dt;
  back.zero_v = true;
  const Vec3 before = x, vb = v;
  fire_update_particle(x, v, image, f, m, back, L);
  EXPECT_EQ(x.x, before.x - 0.5 * dt * vb.x);
  EXPECT_EQ(x.z, before.z - 0.5 * dt * vb.z);
  EXPECT_EQ(v.x, 0.0);
  EXPECT_EQ(v.y, 0.0);
  // The first iteration's velocity from the force: v = dt/m f.
  FireUpdate set;
  set.set_v = dt;
  fire_update_particle(x, v, image, f, m, set, L);
  EXPECT_EQ(v.y, dt / m * -2.25);
  // A drift across the box is wrapped and counted.
  Vec3 y{9.99, 5.0, 5.0}, w{1.0, 0.0, 0.0};
  Int3 img{0, 0, 0};
  FireUpdate drift;
  drift.drift = 0.05;
  fire_update_particle(y, w, img, Fix3{0, 0, 0}, m, drift, L);
  EXPECT_EQ(img.x, 1);
  EXPECT_NEAR(y.x, 0.04, 1e-12);
}

}  // namespace
}  // namespace scanmd
