// tests/engine/test_forces.cpp — forces, energy and virial of Simulation::setup() (one rank)
// against an O(N²) brute force, and the three decomposition methods against each other.
//
// Configurations: (a) random positions (minimum separation 0.8) in a cube, (b) a perturbed fcc
// lattice, (c) random positions in a non-cubic box with ε, σ, r_c ≠ LAMMPS defaults; each with
// the unshifted and the shifted potential. Velocities are zero, so press = W / (3V).
// Oracle: test_support.hpp's brute_force_lj — every minimum-image pair, long double, the LJ
// formula written from ε, σ, r_c. Tolerances: per-particle force 1e-9 absolute (fixed point is
// 2^-40 ≈ 9e-13 per pair term), energy and virial 1e-9 relative.
// Methods: every other method (neutral territory, full shell, eighth shell, midpoint) on one
// rank must give the half-shell force bits on every particle and the same thermo bits
// (DESIGN.md §5: the same integers are summed).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/simulation.hpp"
#include "tests/engine/test_support.hpp"

namespace scanmd {
namespace {

using test::LD;

struct ForceCase {
  std::string name;
  std::vector<Vec3> x;
  Vec3 L;
  test::LJSpec lj;
};

ForceCase random_cube() {
  ForceCase c{"random_cube", {}, {8.5, 8.5, 8.5}, {}};
  c.x = test::random_positions(500, c.L, 0.8, 2024);
  return c;
}
ForceCase perturbed_lattice() {
  ForceCase c{"perturbed_fcc", {}, {}, {}};
  c.x = test::perturbed_fcc({5, 5, 5}, 0.8442, 0.15, 77, c.L);
  return c;
}
ForceCase non_cubic() {
  ForceCase c{"non_cubic", {}, {6.0, 7.5, 11.3}, {1.3, 0.9, 2.2, false}};
  c.x = test::random_positions(400, c.L, 0.8 * 0.9, 31337);
  return c;
}

SimulationConfig config_for(const ForceCase& c, bool shift, Method m) {
  SimulationConfig cfg;
  cfg.system.box = c.L;
  test::set_lj(cfg.potential, c.lj.epsilon, c.lj.sigma);
  cfg.potential.cutoff = c.lj.cutoff;
  cfg.potential.shift = shift;
  cfg.neighbor.skin = 0.3;
  cfg.decomposition.method = m;
  cfg.system.temperature = 0.0;
  return cfg;
}

// Forces by id (1-based) after setup.
std::vector<Fix3> forces_by_id(const Simulation& sim, std::size_t n) {
  std::vector<Fix3> out(n + 1, Fix3{0, 0, 0});
  const ParticleStore& p = sim.particles();
  for (std::size_t i = 0; i < p.n_owned; ++i) out.at(p.id[i]) = p.f[i];
  return out;
}

class ForcesVsBruteForce : public ::testing::TestWithParam<int> {};

TEST_P(ForcesVsBruteForce, ForcesEnergyVirial) {
  const ForceCase c = GetParam() == 0   ? random_cube()
                      : GetParam() == 1 ? perturbed_lattice()
                                        : non_cubic();
  const std::size_t n = c.x.size();
  Communicator comm(MPI_COMM_WORLD);
  ASSERT_EQ(comm.size(), 1) << "one-rank test";
  const double volume = c.L.x * c.L.y * c.L.z;
  for (bool shift : {false, true}) {
    SCOPED_TRACE(c.name + (shift ? " shifted" : " unshifted"));
    test::LJSpec spec = c.lj;
    spec.shift = shift;
    const test::BruteForce bf = test::brute_force_lj(c.x, c.L, spec);
    ASSERT_EQ(bf.near_cutoff, 0) << "configuration has a pair at the cutoff: ambiguous";
    ASSERT_GT(bf.pairs, static_cast<long long>(10 * n)) << "too few pairs for a meaningful test";

    Simulation sim(comm, config_for(c, shift, Method::HalfShell));
    sim.setup(test::make_particles(c.x));
    ASSERT_EQ(sim.total_particles(), static_cast<long long>(n));
    EXPECT_EQ(sim.local_pairs(), bf.pairs);

    const std::vector<Fix3> f = forces_by_id(sim, n);
    double worst = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const Fix3 got = f[k + 1];
      const double g[3] = {fixed::to_double(got.x), fixed::to_double(got.y),
                           fixed::to_double(got.z)};
      for (int a = 0; a < 3; ++a) {
        const double err = std::fabs(g[a] - static_cast<double>(bf.force[k][a]));
        worst = std::max(worst, err);
        ASSERT_LT(err, 1e-9) << "particle id " << k + 1 << " component " << a << ": got " << g[a]
                             << ", brute force " << static_cast<double>(bf.force[k][a]);
      }
    }
    RecordProperty(c.name + (shift ? "_shift" : "") + "_max_force_error", test::sci(worst));

    const ThermoSample s = sim.thermo();
    const LD energy = LD(s.pe) * LD(n);
    EXPECT_NEAR(static_cast<double>(energy), static_cast<double>(bf.energy),
                1e-9 * std::fabs(static_cast<double>(bf.energy)));
    const LD press = bf.virial / (3 * LD(volume));
    EXPECT_NEAR(s.press, static_cast<double>(press), 1e-9 * std::fabs(static_cast<double>(press)));
    EXPECT_EQ(s.ke, 0.0);
    EXPECT_EQ(s.temp, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Configurations, ForcesVsBruteForce, ::testing::Values(0, 1, 2),
                         [](const auto& info) {
                           return std::string(info.param == 0   ? "RandomCube"
                                              : info.param == 1 ? "PerturbedFcc"
                                                                : "NonCubicBox");
                         });

TEST(ForcesAcrossMethods, BitwiseEqualOnOneRank) {
  Communicator comm(MPI_COMM_WORLD);
  for (const ForceCase& c : {random_cube(), non_cubic()}) {
    SCOPED_TRACE(c.name);
    const std::size_t n = c.x.size();
    const auto particles = test::make_particles(c.x, 0.5);
    Simulation hs(comm, config_for(c, true, Method::HalfShell));
    hs.setup(particles);
    const std::vector<Fix3> ref = forces_by_id(hs, n);
    const ThermoSample ref_t = hs.thermo();
    for (Method m : kAllMethods) {
      if (m == Method::HalfShell) continue;
      SCOPED_TRACE(std::string(method_name(m)));
      Simulation sim(comm, config_for(c, true, m));
      sim.setup(particles);
      const std::vector<Fix3> f = forces_by_id(sim, n);
      for (std::size_t id = 1; id <= n; ++id) {
        ASSERT_EQ(f[id].x, ref[id].x) << "id " << id;
        ASSERT_EQ(f[id].y, ref[id].y) << "id " << id;
        ASSERT_EQ(f[id].z, ref[id].z) << "id " << id;
      }
      const ThermoSample t = sim.thermo();
      EXPECT_EQ(std::bit_cast<std::uint64_t>(t.pe), std::bit_cast<std::uint64_t>(ref_t.pe));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(t.press), std::bit_cast<std::uint64_t>(ref_t.press));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(t.ke), std::bit_cast<std::uint64_t>(ref_t.ke));
      EXPECT_EQ(sim.state_hash(), hs.state_hash());
    }
  }
}

}  // namespace
}  // namespace scanmd
