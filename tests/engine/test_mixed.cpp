// tests/engine/test_mixed.cpp — run.precision = "mixed" (physics/pair/mixed.hpp): the forces of
// Simulation::setup() (one rank) on a 500-atom perturbed fcc melt, lj unshifted and WCA, against
//  (a) the O(N²) long double brute force of test_support.hpp (the physics): every particle's
//      force within 1e-5 of the largest force and the force rms within 2e-6 of the rms force,
//      the energy and the virial within 1e-6 relative (float32 terms, each within a few ulp of
//      6e-8);
//  (b) a float32 reference written here from the LJ formula, pair by pair over all i < j (not
//      the library's evaluator or lists): r² formed in double from the minimum-image
//      displacement, rounded once to float, 1/r², (1/r²)³ and F/r in float with 48εσ¹² and
//      24εσ⁶ rounded to float, widened back, then F = trunc(F/r·2^40·d): the same integers on
//      every particle, bit for bit;
//  (c) the double run: a different state, not the same bits (else mixed would be a no-op).
// Morse likewise against its own float reference (det::exp in float) and the long double
// formula.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/simulation.hpp"
#include "physics/pair/det_math.hpp"
#include "tests/engine/test_support.hpp"

namespace scanmd {
namespace {

using test::LD;

std::vector<Fix3> forces_by_id(const Simulation& sim, std::size_t n) {
  std::vector<Fix3> out(n + 1, Fix3{0, 0, 0});
  const ParticleStore& p = sim.particles();
  for (std::size_t i = 0; i < p.n_owned; ++i) out.at(p.id[i]) = p.f[i];
  return out;
}

double min_image(double d, double len) {
  if (d > 0.5 * len) return d - len;
  if (d < -0.5 * len) return d + len;
  return d;
}

// The fixed-point forces of every pair within r_c, F/r from `fpair(r2f)` (float).
template <class Fpair>
std::vector<std::array<std::int64_t, 3>> float_reference(const std::vector<Vec3>& x, Vec3 L,
                                                         double cutoff, Fpair fpair) {
  std::vector<std::array<std::int64_t, 3>> f(x.size(), {0, 0, 0});
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      const double d[3] = {min_image(x[i].x - x[j].x, L.x), min_image(x[i].y - x[j].y, L.y),
                           min_image(x[i].z - x[j].z, L.z)};
      const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (!(r2 < cutoff * cutoff)) continue;
      const float fp = fpair(static_cast<float>(r2));
      const double s = static_cast<double>(fp) * 1099511627776.0;  // 2^40
      for (int a = 0; a < 3; ++a) {
        const auto F = static_cast<std::int64_t>(s * d[a]);
        f[i][static_cast<std::size_t>(a)] += F;
        f[j][static_cast<std::size_t>(a)] -= F;
      }
    }
  return f;
}

SimulationConfig lj_config(Vec3 L, double cutoff, bool shift, Precision precision) {
  SimulationConfig cfg;
  cfg.system.box = L;
  test::set_lj(cfg.potential, 1.0, 1.0);
  cfg.potential.cutoff = cutoff;
  cfg.potential.shift = shift;
  cfg.neighbor.skin = 0.3;
  cfg.system.temperature = 0.0;
  cfg.run.precision = precision;
  return cfg;
}

TEST(MixedPrecision, LjForcesEqualAFloatReferenceAndTheDoubleOnesTo1e6) {
  Vec3 L{};
  const std::vector<Vec3> x = test::perturbed_fcc({5, 5, 5}, 0.8442, 0.15, 77, L);
  const std::size_t n = x.size();
  Communicator comm(MPI_COMM_WORLD);
  ASSERT_EQ(comm.size(), 1) << "one-rank test";
  for (const double cutoff : {2.5, 1.122462048309373}) {
    const bool shift = cutoff < 2.0;  // WCA
    SCOPED_TRACE(shift ? "WCA" : "lj 2.5");
    const test::BruteForce bf = test::brute_force_lj(x, L, {1.0, 1.0, cutoff, shift});
    ASSERT_EQ(bf.near_cutoff, 0);
    Simulation mixed(comm, lj_config(L, cutoff, shift, Precision::Mixed));
    mixed.setup(test::make_particles(x));
    Simulation dbl(comm, lj_config(L, cutoff, shift, Precision::Double));
    dbl.setup(test::make_particles(x));
    const std::vector<Fix3> fm = forces_by_id(mixed, n), fd = forces_by_id(dbl, n);

    // (b) the float reference, bit for bit.
    const float lj1 = static_cast<float>(48.0), lj2 = static_cast<float>(24.0);
    const auto ref = float_reference(x, L, cutoff, [&](float r2) {
      const float r2inv = 1.0f / r2;
      const float r6inv = r2inv * r2inv * r2inv;
      return r6inv * (lj1 * r6inv - lj2) * r2inv;
    });
    long long same = 0;
    for (std::size_t k = 0; k < n; ++k)
      same += fm[k + 1].x == ref[k][0] && fm[k + 1].y == ref[k][1] && fm[k + 1].z == ref[k][2];
    EXPECT_EQ(same, static_cast<long long>(n)) << "particles whose force is the float reference's";

    // (a) against the long double brute force, and (c) not the double bits.
    LD max_f = 0, sum_f2 = 0, sum_e2 = 0, worst = 0;
    long long differ = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::int64_t m[3] = {fm[k + 1].x, fm[k + 1].y, fm[k + 1].z};
      const std::int64_t d[3] = {fd[k + 1].x, fd[k + 1].y, fd[k + 1].z};
      for (int a = 0; a < 3; ++a) {
        const LD want = bf.force[k][static_cast<std::size_t>(a)];
        const LD err = LD(fixed::to_double(m[a])) - want;
        max_f = std::max(max_f, std::fabs(want));
        worst = std::max(worst, std::fabs(err));
        sum_f2 += want * want;
        sum_e2 += err * err;
        differ += m[a] != d[a];
      }
    }
    EXPECT_LT(static_cast<double>(worst / max_f), 1e-5);
    EXPECT_LT(static_cast<double>(std::sqrt(sum_e2 / sum_f2)), 2e-6);
    EXPECT_GT(differ, static_cast<long long>(n)) << "mixed forces are the double bits";
    const ThermoSample s = mixed.thermo();
    const LD energy = LD(s.pe) * LD(n);
    EXPECT_NEAR(static_cast<double>(energy), static_cast<double>(bf.energy),
                1e-6 * std::fabs(static_cast<double>(bf.energy)));
    const LD press = bf.virial / (3 * LD(L.x * L.y * L.z));
    EXPECT_NEAR(s.press, static_cast<double>(press), 1e-6 * std::fabs(static_cast<double>(press)));
    RecordProperty(shift ? "wca_rms_rel_force_error" : "lj_rms_rel_force_error",
                   test::sci(static_cast<double>(std::sqrt(sum_e2 / sum_f2))));
  }
}

TEST(MixedPrecision, MorseForcesEqualAFloatReference) {
  Vec3 L{};
  const std::vector<Vec3> x = test::perturbed_fcc({5, 5, 5}, 0.8442, 0.15, 78, L);
  const std::size_t n = x.size();
  Communicator comm(MPI_COMM_WORLD);
  const double d0 = 1.0, alpha = 5.0, r0 = 1.1, cutoff = 2.2;
  auto config = [&](Precision precision) {
    SimulationConfig cfg;
    cfg.system.box = L;
    cfg.potential.style = "morse";
    cfg.potential.coeffs = {{"d0", d0}, {"alpha", alpha}, {"r0", r0}};
    cfg.potential.cutoff = cutoff;
    cfg.neighbor.skin = 0.3;
    cfg.system.temperature = 0.0;
    cfg.run.precision = precision;
    return cfg;
  };
  Simulation mixed(comm, config(Precision::Mixed));
  mixed.setup(test::make_particles(x));
  const std::vector<Fix3> fm = forces_by_id(mixed, n);
  const float morse1 = static_cast<float>(2.0 * d0 * alpha);
  const auto ref = float_reference(x, L, cutoff, [&](float r2) {
    const float r = std::sqrt(r2);
    const float dexp = det::exp(static_cast<float>(-alpha) * (r - static_cast<float>(r0)));
    return morse1 * (dexp * dexp - dexp) / r;
  });
  long long same = 0;
  LD max_f = 0, worst = 0;
  for (std::size_t k = 0; k < n; ++k) {
    same += fm[k + 1].x == ref[k][0] && fm[k + 1].y == ref[k][1] && fm[k + 1].z == ref[k][2];
    // Against the long double formula, pair by pair.
  }
  EXPECT_EQ(same, static_cast<long long>(n));
  std::vector<std::array<LD, 3>> want(n, {0, 0, 0});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const LD d[3] = {test::min_image(LD(x[i].x) - LD(x[j].x), L.x),
                       test::min_image(LD(x[i].y) - LD(x[j].y), L.y),
                       test::min_image(LD(x[i].z) - LD(x[j].z), L.z)};
      const LD r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      if (r >= cutoff) continue;
      const LD e = std::exp(-LD(alpha) * (r - LD(r0)));
      const LD fpair = 2 * LD(d0) * LD(alpha) * (e * e - e) / r;
      for (int a = 0; a < 3; ++a) {
        want[i][static_cast<std::size_t>(a)] += fpair * d[a];
        want[j][static_cast<std::size_t>(a)] -= fpair * d[a];
      }
    }
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t m[3] = {fm[k + 1].x, fm[k + 1].y, fm[k + 1].z};
    for (std::size_t a = 0; a < 3; ++a) {
      max_f = std::max(max_f, std::fabs(want[k][a]));
      worst = std::max(worst, std::fabs(LD(fixed::to_double(m[a])) - want[k][a]));
    }
  }
  EXPECT_LT(static_cast<double>(worst / max_f), 1e-5);
}

// The float det::exp of Morse within 2 ulp of a float of the long double exp over the range a
// pair uses, and clamped (finite, no NaN) beyond float's range.
TEST(MixedPrecision, FloatExpWithinTwoUlp) {
  float worst = 0;
  for (int k = -200000; k <= 200000; ++k) {
    const float x = static_cast<float>(k) * 4.0e-4f;  // [-80, 80]
    const float got = det::exp(x);
    const auto want = static_cast<float>(std::exp(static_cast<long double>(x)));
    const float ulp = std::nextafter(want, INFINITY) - want;
    worst = std::max(worst, std::fabs(got - want) / ulp);
  }
  EXPECT_LE(worst, 2.0f);
  EXPECT_TRUE(std::isfinite(det::exp(1000.0f)));
  EXPECT_EQ(det::exp(-1000.0f), det::exp(-87.0f));
}

}  // namespace
}  // namespace scanmd
