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
// Threads: 2 and 3 threads (rows in parts taken by whichever thread is free) must give one
// thread's force and thermo bits, and name the same pair when two pairs overflow.
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
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

// An environment variable set for a scope (SCANMD_PAIR_KERNEL; OMP_NUM_THREADS, which the
// backend reads through OpenMP's count: ScopedThreads).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_.empty())
      unsetenv(name_);
    else
      setenv(name_, old_.c_str(), 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
};

// `threads` for the Simulations made in its scope: OMP_NUM_THREADS set (else the backend takes
// 1) and OpenMP's count (read once at start from the environment).
class ScopedThreads {
 public:
  explicit ScopedThreads(int threads)
      : env_("OMP_NUM_THREADS", std::to_string(threads)), before_(omp_get_max_threads()) {
    omp_set_num_threads(threads);
  }
  ~ScopedThreads() { omp_set_num_threads(before_); }

 private:
  ScopedEnv env_;
  int before_;
};

TEST(ForcesAcrossThreads, SameBitsAsOneThread) {
  Communicator comm(MPI_COMM_WORLD);
  const ForceCase c = perturbed_lattice();
  const std::size_t n = c.x.size();
  const auto particles = test::make_particles(c.x, 0.5);
  for (const char* kernel : {"scalar", "auto"}) {
    SCOPED_TRACE(kernel);
    const ScopedEnv pin("SCANMD_PAIR_KERNEL", kernel);
    std::vector<Fix3> ref;
    ThermoSample ref_t{};
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(threads);
      const ScopedThreads omp(threads);
      Simulation sim(comm, config_for(c, false, Method::HalfShell));
      sim.setup(particles);
      const std::vector<Fix3> f = forces_by_id(sim, n);
      const ThermoSample t = sim.thermo();
      if (threads == 1) {
        ref = f;
        ref_t = t;
        continue;
      }
      for (std::size_t id = 1; id <= n; ++id) {
        ASSERT_EQ(f[id].x, ref[id].x) << "id " << id;
        ASSERT_EQ(f[id].y, ref[id].y) << "id " << id;
        ASSERT_EQ(f[id].z, ref[id].z) << "id " << id;
      }
      EXPECT_EQ(std::bit_cast<std::uint64_t>(t.pe), std::bit_cast<std::uint64_t>(ref_t.pe));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(t.press), std::bit_cast<std::uint64_t>(ref_t.press));
    }
  }
}

// Two overlapping pairs, one near each end of the row order (cell order: the box's low and high
// corners): threads find both, and the error names the one a single thread finds first.
TEST(ForcesAcrossThreads, NamesTheFirstOverflowingPairInRowOrder) {
  Communicator comm(MPI_COMM_WORLD);
  const ForceCase c = perturbed_lattice();
  std::vector<Vec3> x = c.x;
  const auto nearest = [&](Vec3 q) {
    std::size_t best = 0;
    double best_d = 1e300;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double d = (x[i].x - q.x) * (x[i].x - q.x) + (x[i].y - q.y) * (x[i].y - q.y) +
                       (x[i].z - q.z) * (x[i].z - q.z);
      if (d < best_d) best_d = d, best = i;
    }
    return best;
  };
  // Each chosen particle gets a partner 0.3σ away along x (F/r ~ 10^8: out of the fixed-point
  // range); the partner is the particle nearest to that spot, moved there.
  for (const Vec3 corner : {Vec3{1.0, 1.0, 1.0}, Vec3{c.L.x - 1.5, c.L.y - 1.0, c.L.z - 1.0}}) {
    const std::size_t a = nearest(corner);
    const Vec3 spot{x[a].x + 0.3, x[a].y, x[a].z};
    std::size_t b = nearest(spot);
    if (b == a) b = (a + 1) % x.size();
    x[b] = spot;
  }
  const auto particles = test::make_particles(x);
  const ScopedEnv pin("SCANMD_PAIR_KERNEL", "scalar");
  std::string first;
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(threads);
    const ScopedThreads omp(threads);
    Simulation sim(comm, config_for(c, false, Method::HalfShell));
    try {
      sim.setup(particles);
      FAIL() << "no overflow reported";
    } catch (const std::overflow_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("overflow"), std::string::npos) << what;
      if (threads == 1)
        first = what;
      else
        EXPECT_EQ(what, first);
    }
  }
}

// EAM (Cu_u3.eam, metal units): two atoms 1e-4 Å apart near each end of the row order (the box's
// low and high corners). Both passes run in parts on 2 and 3 threads; with either kernel the
// error names the pair one thread names, and that pair is one of the two.
TEST(EamAcrossThreads, NamesTheFirstOverflowingPairInRowOrder) {
  const char* env = std::getenv("LAMMPS_POTENTIALS");
  const std::string file =
      std::string(env != nullptr ? env : "/usr/share/lammps/potentials") + "/Cu_u3.eam";
  if (!std::ifstream(file)) GTEST_SKIP() << "no " << file << " (Debian's lammps package)";
  Communicator comm(MPI_COMM_WORLD);
  Vec3 L{};
  std::vector<InitialParticle> particles =
      test::make_particles(test::perturbed_fcc({6, 6, 6}, 0.084672, 0.0, 1, L));
  // Ids of the pairs: the particle nearest each corner and its partner moved 1e-4 Å along x.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
  for (const Vec3 corner : {Vec3{0.5, 0.5, 0.5}, Vec3{L.x - 2.5, L.y - 1.0, L.z - 1.0}}) {
    std::size_t a = 0, b = 0;
    double best = 1e300, second = 1e300;
    for (std::size_t i = 0; i < particles.size(); ++i) {
      const Vec3 x = particles[i].x;
      const double d = (x.x - corner.x) * (x.x - corner.x) + (x.y - corner.y) * (x.y - corner.y) +
                       (x.z - corner.z) * (x.z - corner.z);
      if (d < best) {
        second = best, b = a;
        best = d, a = i;
      } else if (d < second) {
        second = d, b = i;
      }
    }
    particles[b].x = {particles[a].x.x + 1e-4, particles[a].x.y, particles[a].x.z};
    pairs.emplace_back(particles[a].id, particles[b].id);
  }
  SimulationConfig cfg;
  cfg.system.units = UnitSystem::Metal;
  cfg.system.box = L;
  cfg.system.mass = {63.55};
  cfg.neighbor.skin = 1.0;
  cfg.run.dt = 0.005;
  cfg.potential.style = "eam";
  cfg.potential.files = {file};
  cfg.run.backend = Backend::Host;
  for (const char* kernel : {"scalar", "avx512"}) {
    if (std::string(kernel) == "avx512" && !cpu_runs(PairKernel::Avx512)) continue;
    SCOPED_TRACE(kernel);
    const ScopedEnv pin("SCANMD_PAIR_KERNEL", kernel);
    std::string first;
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(threads);
      const ScopedThreads omp(threads);
      Simulation sim(comm, cfg);
      try {
        sim.setup(particles, 0);
        ADD_FAILURE() << "no overflow reported";
      } catch (const std::overflow_error& e) {
        const std::string what = e.what();
        if (threads == 1) {
          first = what;
          bool named = false;
          for (const auto& [a, b] : pairs)
            named = named ||
                    what.find(fmt::format("of particles {} and {}", a, b)) != std::string::npos ||
                    what.find(fmt::format("of particles {} and {}", b, a)) != std::string::npos;
          EXPECT_TRUE(named) << what;
        } else {
          EXPECT_EQ(what, first);
        }
      }
    }
  }
}

}  // namespace
}  // namespace scanmd
