// tests/engine/test_species.cpp — engine/species: the pair table (mixing rules as LAMMPS
// pair_modify mix, every error), lattice types (exact counts, spread over ids), tail corrections
// against a numerical integral, and two-species forces against the O(N²) brute force.
//
// Oracles: the mixing formulas of the LAMMPS manual (pair_modify), numerical quadrature of
// 2π N_i N_j / V ∫ r² U_ij dr and −(2π/3) N_i N_j / V² ∫ r³ U'_ij dr from r_c to ∞, and
// test_support.hpp's brute_force_lj with per-pair coefficients.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "engine/simulation.hpp"
#include "engine/species.hpp"
#include "tests/engine/test_support.hpp"

namespace scanmd {
namespace {

using test::LD;

SimulationConfig two_species(Mixing mixing) {
  SimulationConfig c;
  c.system.type_fractions = {0.8, 0.2};
  c.potential.mixing = mixing;
  c.potential.pairs = {test::lj_pair({1, 1}, 1.0, 1.0, 2.5), test::lj_pair({2, 2}, 0.5, 0.88, 2.2)};
  return c;
}

// The Kob–Andersen mixture: every pair listed, r_c = 2.5 σ_αβ.
SimulationConfig kob_andersen() {
  SimulationConfig c = two_species(Mixing::None);
  c.potential.pairs.push_back(test::lj_pair({1, 2}, 1.5, 0.8, 2.0));
  return c;
}

template <class F>
std::string species_error(const SimulationConfig& c, F&& key_check) {
  try {
    (void)make_species(c);
  } catch (const SpeciesError& e) {
    key_check(e.key());
    return e.what();
  }
  ADD_FAILURE() << "no SpeciesError";
  return {};
}

TEST(Species, OneSpeciesIsTheScalarPotential) {
  SimulationConfig c;
  test::set_lj(c.potential, 1.3, 0.9);
  c.potential.cutoff = 2.2;
  c.potential.shift = true;
  const Species s = make_species(c);
  ASSERT_EQ(s.types, 1);
  const LJCut::Params want = LJCut::make({1.3, 0.9}, 2.2, true);
  const auto& table = std::get<StyleTable<LJCut>>(s.pair.tables());
  EXPECT_EQ(std::memcmp(&table.params[0], &want, sizeof want), 0) << "not the same bits";
  EXPECT_EQ(s.max_cutoff(), 2.2);
  EXPECT_EQ(s.mass, std::vector<double>{1.0});
}

TEST(Species, MixingRulesAsLammps) {
  for (const Mixing m : {Mixing::Geometric, Mixing::Arithmetic}) {
    SCOPED_TRACE(std::string(name_of<Mixing>(kMixingNames, m)));
    const Species s = make_species(two_species(m));
    ASSERT_EQ(s.types, 2);
    const Coefficients& ab = s.pair.coefficients(0, 1);
    EXPECT_DOUBLE_EQ(ab[LJCut::kEpsilon], std::sqrt(1.0 * 0.5));  // ε: geometric in both rules
    if (m == Mixing::Geometric) {
      EXPECT_DOUBLE_EQ(ab[LJCut::kSigma], std::sqrt(1.0 * 0.88));
      EXPECT_DOUBLE_EQ(s.pair.cutoff(0, 1), std::sqrt(2.5 * 2.2));
    } else {
      EXPECT_DOUBLE_EQ(ab[LJCut::kSigma], 0.5 * (1.0 + 0.88));
      EXPECT_DOUBLE_EQ(s.pair.cutoff(0, 1), 0.5 * (2.5 + 2.2));
    }
    EXPECT_EQ(std::memcmp(&s.pair.coefficients(0, 1), &s.pair.coefficients(1, 0), sizeof ab), 0)
        << "table not symmetric";
    EXPECT_EQ(s.pair.coefficients(1, 1)[LJCut::kSigma], 0.88);
    EXPECT_EQ(s.max_cutoff(), 2.5);
  }
  // A listed unlike pair wins over the rule, whichever order its types are given in.
  SimulationConfig c = two_species(Mixing::Geometric);
  c.potential.pairs.push_back(test::lj_pair({2, 1}, 1.5, 0.8, 2.0));
  const Species s = make_species(c);
  EXPECT_EQ(s.pair.coefficients(0, 1)[LJCut::kEpsilon], 1.5);
  EXPECT_EQ(s.pair.coefficients(1, 0)[LJCut::kSigma], 0.8);
  EXPECT_EQ(s.pair.cutoff(0, 1), 2.0);
}

TEST(Species, PerPairShiftMakesEveryPairZeroAtItsCutoff) {
  SimulationConfig c = kob_andersen();
  c.potential.shift = true;
  const Species s = make_species(c);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      const LJCut::Params& p = std::get<StyleTable<LJCut>>(s.pair.tables()).params[i * 2 + j];
      EXPECT_NEAR(LJCut::eval(p.cutoff_sq, p).energy, 0.0, 1e-15) << i << "-" << j;
      EXPECT_EQ(p.cutoff_sq, s.pair.cutoff(i, j) * s.pair.cutoff(i, j));
    }
}

TEST(Species, ErrorsNameTheKeyAndThePair) {
  // A like pair missing (mixing fills unlike pairs only).
  SimulationConfig c = two_species(Mixing::Geometric);
  c.potential.pairs.pop_back();
  std::string msg = species_error(c, [](const std::string& k) { EXPECT_EQ(k, "potential.pair"); });
  EXPECT_NE(msg.find("[2, 2]"), std::string::npos) << msg;
  // mixing = none: the unlike pair is missing.
  msg = species_error(two_species(Mixing::None),
                      [](const std::string& k) { EXPECT_EQ(k, "potential.pair"); });
  EXPECT_NE(msg.find("[1, 2]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("none"), std::string::npos) << msg;
  // A type beyond T.
  c = kob_andersen();
  c.potential.pairs[1].types = {3, 3};
  msg = species_error(c, [](const std::string& k) { EXPECT_EQ(k, "potential.pair[1]"); });
  EXPECT_NE(msg.find("type 3 does not exist"), std::string::npos) << msg;
  // The same pair twice.
  c = kob_andersen();
  c.potential.pairs.push_back(test::lj_pair({2, 1}, 1.0, 1.0, 2.0));
  msg = species_error(c, [](const std::string& k) { EXPECT_EQ(k, "potential.pair[3]"); });
  EXPECT_NE(msg.find("twice"), std::string::npos) << msg;
  // Three masses for two types.
  c = kob_andersen();
  c.system.mass = {1.0, 2.0, 3.0};
  msg = species_error(c, [](const std::string& k) { EXPECT_EQ(k, "system.mass"); });
  EXPECT_NE(msg.find("3 masses"), std::string::npos) << msg;
  // Two types and no pair table at all.
  c = SimulationConfig{};
  c.system.types = 2;
  msg = species_error(c, [](const std::string& k) { EXPECT_EQ(k, "potential.pair"); });
  EXPECT_NE(msg.find("[2, 2]"), std::string::npos) << msg;
}

TEST(LatticeTypes, ExactCountsSpreadOverIds) {
  const std::vector<double> f{0.8, 0.2};
  for (const std::uint64_t n : {1ull, 7ull, 864ull, 4000ull, 32001ull}) {
    SCOPED_TRACE(n);
    const std::vector<std::uint64_t> want = type_counts(f, n);
    ASSERT_EQ(want[0] + want[1], n);
    EXPECT_LE(std::fabs(static_cast<double>(want[1]) - 0.2 * static_cast<double>(n)), 1.0);
    const LatticeTypes type_of(f, n, 87287);
    std::vector<std::uint64_t> got(2, 0), first_half(2, 0);
    for (std::uint64_t id = 1; id <= n; ++id) {
      const std::uint32_t t = type_of(id);
      ASSERT_LT(t, 2u);
      ++got[t];
      if (id <= n / 2) ++first_half[t];
    }
    EXPECT_EQ(got, want) << "counts differ from the largest-remainder counts";
    if (n >= 4000) {  // spread, not blocks of ids
      const double frac = static_cast<double>(first_half[1]) / static_cast<double>(n / 2);
      EXPECT_NEAR(frac, 0.2, 0.03);
    }
  }
  // Three types; another seed gives another assignment with the same counts.
  const std::vector<double> f3{0.5, 0.3, 0.2};
  const LatticeTypes a(f3, 1000, 1), b(f3, 1000, 2);
  int differ = 0;
  std::vector<int> ca(3, 0), cb(3, 0);
  for (std::uint64_t id = 1; id <= 1000; ++id) {
    ++ca[a(id)], ++cb[b(id)];
    differ += a(id) != b(id);
  }
  EXPECT_EQ(ca, (std::vector<int>{500, 300, 200}));
  EXPECT_EQ(cb, ca);
  EXPECT_GT(differ, 300);
}

// ∫_a^∞ g(r) dr by the substitution r = a / t (t in (0, 1]) and composite Simpson in t.
template <class G>
LD integral_to_infinity(LD a, G g) {
  const int n = 20000;
  const LD h = LD(1) / n;
  LD sum = 0;
  for (int k = 0; k <= n; ++k) {
    const LD t = k * h;
    const LD y = t == 0 ? LD(0) : g(a / t) * a / (t * t);
    sum += y * (k == 0 || k == n ? 1 : (k % 2 ? 4 : 2));
  }
  return sum * h / 3;
}

TEST(TailCorrection, MatchesNumericalIntegral) {
  const Species s = make_species(kob_andersen());
  const std::vector<long long> count{3200, 800};
  const double V = 4000 / 1.2;
  const TailCorrection t = s.tail(count);
  LD e = 0, p = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      const Coefficients& c = s.pair.coefficients(i, j);
      const LD eps = c[LJCut::kEpsilon], sig = c[LJCut::kSigma];
      const LD cutoff = s.pair.cutoff(i, j);
      const auto u = [&](LD r) {
        const LD x = std::pow(sig / r, LD(6));
        return 4 * eps * (x * x - x);
      };
      const auto du = [&](LD r) {
        const LD x = std::pow(sig / r, LD(6));
        return -24 * eps * (2 * x * x - x) / r;
      };
      const LD nn = LD(count[i]) * count[j];
      e += 2 * std::numbers::pi_v<LD> * nn / V *
           integral_to_infinity(cutoff, [&](LD r) { return r * r * u(r); });
      p += -2 * std::numbers::pi_v<LD> / 3 * nn / (LD(V) * V) *
           integral_to_infinity(cutoff, [&](LD r) { return r * r * r * du(r); });
    }
  EXPECT_NEAR(t.energy / V, static_cast<double>(e), 1e-9 * std::fabs(static_cast<double>(e)));
  EXPECT_NEAR(t.pressure / (V * V), static_cast<double>(p),
              1e-9 * std::fabs(static_cast<double>(p)));
  EXPECT_LT(t.energy, 0.0);
  EXPECT_LT(t.pressure, 0.0);
}

// Two species in a random configuration: forces, energy and virial against the brute force with
// the Kob–Andersen coefficients (and geometric mixing), on every method (bitwise equal).
TEST(SpeciesForces, TwoTypesVsBruteForceOnEveryMethod) {
  Communicator comm(MPI_COMM_WORLD);
  ASSERT_EQ(comm.size(), 1) << "one-rank test";
  const Vec3 L{8.5, 8.5, 8.5};
  const std::vector<Vec3> x = test::random_positions(520, L, 0.8, 4242);
  test::Rng rng(99);
  std::vector<int> type(x.size());
  std::vector<InitialParticle> particles = test::make_particles(x, 0.3);
  for (std::size_t k = 0; k < x.size(); ++k) {
    type[k] = rng.uniform() < 0.25 ? 1 : 0;
    particles[k].type = static_cast<std::uint32_t>(type[k]);
  }
  for (const Mixing mixing : {Mixing::None, Mixing::Geometric}) {
    for (const bool shift : {false, true}) {
      SCOPED_TRACE(std::string(name_of<Mixing>(kMixingNames, mixing)) + (shift ? " shifted" : ""));
      SimulationConfig cfg = mixing == Mixing::None ? kob_andersen() : two_species(mixing);
      cfg.system.types = 2;
      cfg.system.box = L;
      cfg.system.mass = {1.0, 2.0};
      cfg.potential.shift = shift;
      const Species species = make_species(cfg);
      const test::BruteForce bf = test::brute_force_lj(x, L, type, [&](int i, int j) {
        const Coefficients& c = species.pair.coefficients(i, j);
        return test::LJSpec{c[LJCut::kEpsilon], c[LJCut::kSigma], species.pair.cutoff(i, j), shift};
      });
      ASSERT_EQ(bf.near_cutoff, 0);
      ASSERT_GT(bf.pairs, 10LL * static_cast<long long>(x.size()));

      std::vector<Fix3> ref;
      ThermoSample ref_t;
      for (const Method m : kAllMethods) {
        SCOPED_TRACE(std::string(method_name(m)));
        cfg.decomposition.method = m;
        Simulation sim(comm, cfg);
        sim.setup(particles);
        std::vector<Fix3> f(x.size() + 1);
        const ParticleStore& p = sim.particles();
        for (std::size_t i = 0; i < p.n_owned; ++i) {
          f.at(p.id[i]) = p.f[i];
          EXPECT_EQ(p.type[i], static_cast<std::uint32_t>(type[p.id[i] - 1]));
        }
        const ThermoSample t = sim.thermo();
        if (m == Method::HalfShell) {
          EXPECT_EQ(sim.local_pairs(), bf.pairs);
          for (std::size_t k = 0; k < x.size(); ++k) {
            const double g[3] = {fixed::to_double(f[k + 1].x), fixed::to_double(f[k + 1].y),
                                 fixed::to_double(f[k + 1].z)};
            for (int a = 0; a < 3; ++a)
              ASSERT_NEAR(g[a], static_cast<double>(bf.force[k][a]), 1e-9)
                  << "id " << k + 1 << " axis " << a;
          }
          const double V = L.x * L.y * L.z;
          EXPECT_NEAR(t.pe * x.size(), static_cast<double>(bf.energy),
                      1e-9 * std::fabs(static_cast<double>(bf.energy)));
          // Kinetic energy with per-type masses (m = 1 and 2).
          LD two_ke = 0;
          for (std::size_t k = 0; k < x.size(); ++k) {
            const Vec3 v = particles[k].v;
            two_ke +=
                LD(type[k] == 0 ? 1.0 : 2.0) * (LD(v.x) * v.x + LD(v.y) * v.y + LD(v.z) * v.z);
          }
          EXPECT_NEAR(t.ke, static_cast<double>(two_ke / (2 * x.size())), 1e-12);
          EXPECT_NEAR(t.press, static_cast<double>((two_ke + bf.virial) / (3 * LD(V))),
                      1e-9 * std::fabs(t.press));
          ref = f;
          ref_t = t;
        } else {
          for (std::size_t k = 1; k <= x.size(); ++k)
            ASSERT_TRUE(f[k].x == ref[k].x && f[k].y == ref[k].y && f[k].z == ref[k].z)
                << "id " << k << " differs from half-shell";
          EXPECT_EQ(t.pe, ref_t.pe);
          EXPECT_EQ(t.press, ref_t.press);
        }
      }
    }
  }
}

// Lattice start with two species of unequal mass: zero total momentum Σ m v and the exact
// temperature, and the exact type counts.
TEST(SpeciesVelocities, MassWeightedMomentumAndExactTemperature) {
  Communicator comm(MPI_COMM_WORLD);
  SimulationConfig cfg = kob_andersen();
  cfg.system.cells = {6, 6, 6};
  cfg.system.density = 1.2;
  cfg.system.temperature = 0.9;
  cfg.system.mass = {1.0, 3.0};
  Simulation sim(comm, cfg);
  sim.setup();
  const ParticleStore& p = sim.particles();
  ASSERT_EQ(sim.total_particles(), 864);
  EXPECT_EQ(sim.type_totals(), (std::vector<long long>{691, 173}));
  LD px = 0, py = 0, pz = 0, two_ke = 0, v2[2] = {0, 0};
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    const LD m = p.type[i] == 0 ? 1.0 : 3.0;
    const Vec3 v = p.v[i];
    px += m * v.x, py += m * v.y, pz += m * v.z;
    const LD vv = LD(v.x) * v.x + LD(v.y) * v.y + LD(v.z) * v.z;
    two_ke += m * vv;
    v2[p.type[i]] += vv;
  }
  EXPECT_LT(static_cast<double>(std::fabs(px) + std::fabs(py) + std::fabs(pz)), 1e-10);
  EXPECT_NEAR(static_cast<double>(two_ke / (3 * 864 - 3)), 0.9, 1e-12);
  EXPECT_NEAR(sim.thermo().temp, 0.9, 1e-12);
  // Heavier particles start slower: <m v²> per species alike within sampling noise.
  const LD mean_a = v2[0] / 691, mean_b = 3 * v2[1] / 173;
  EXPECT_NEAR(static_cast<double>(mean_b / mean_a), 1.0, 0.2);
}

}  // namespace
}  // namespace scanmd
